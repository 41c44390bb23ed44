package conflict

import (
	"math/rand"
	"reflect"
	"testing"
)

// A Memo answers as Analyze without it, over the random statements of the
// schedule test (texts repeated with other arguments) and the cases of
// TestAnalyze, whatever the order; it remembers only texts whose answer
// depends on no argument; an answer's slices are the caller's own.
func TestMemoAnswersAsAnalyze(t *testing.T) {
	cat := testCatalog()
	memo := NewMemo(cat)
	r := rand.New(rand.NewSource(38))
	for range 3000 {
		sql, args := randomStatement(r)
		want := Analyze(sql, args, cat)
		if got := Analyze(sql, args, memo); !reflect.DeepEqual(got, want) {
			t.Fatalf("Analyze(%q, %v) with a memo %+v, without %+v", sql, args, got, want)
		}
	}
	for sql := range memo.m {
		if _, usedArgs := analyze(sql, nil, cat); usedArgs {
			t.Errorf("%q remembered: its answer depends on its arguments", sql)
		}
	}
	if len(memo.m) == 0 {
		t.Fatal("nothing remembered: the random statements hold texts without key arguments")
	}

	const byName = "SELECT custid FROM accounts WHERE name = 'alice'"
	first := Analyze(byName, nil, memo)
	first.Reads[0].Row = "mallory"
	if again := Analyze(byName, nil, memo); again.Reads[0].Row == "mallory" {
		t.Error("a caller's change to an answer reached the memo")
	}
	const byKey = "SELECT bal FROM savings WHERE custid = $1"
	Analyze(byKey, []any{int64(3)}, memo)
	if got := Analyze(byKey, []any{int64(4)}, memo); !reflect.DeepEqual(got, reads(row("savings", "4"))) {
		t.Errorf("a key argument's answer came from the memo: %+v", got)
	}
}
