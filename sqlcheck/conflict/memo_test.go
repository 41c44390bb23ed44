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
	if len(memo.t) == 0 {
		t.Fatal("no template remembered: the random statements hold texts with key arguments")
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

// A template (a text's answer with its arguments' values left open) is
// filled with each call's own values, and normalized again: two
// parameters that bring one value make one key, and a row read and
// written through different parameters is a write. Arguments of another
// shape (a key given as text, or as text that is no canonical integer)
// get their own answers.
func TestMemoFillsTemplatesWithTheCallsValues(t *testing.T) {
	cat := testCatalog()
	memo := NewMemo(cat)
	cases := []struct {
		sql  string
		args [][]any
	}{
		{"UPDATE savings SET x = 1 WHERE custid IN ($1, $2)", [][]any{{int64(1), int64(2)}, {int64(3), int64(3)}, {"4", int64(4)}, {"04", int64(5)}, {int64(6), nil}}},
		{"UPDATE savings SET x = (SELECT x FROM savings WHERE custid = $1) WHERE custid = $2", [][]any{{int64(1), int64(2)}, {int64(7), int64(7)}, {"7", "7"}}},
		{"SELECT * FROM savings s JOIN checking c USING (custid) WHERE s.custid = $1", [][]any{{int64(8)}, {int64(9)}, {"x"}}},
		{"UPDATE checking SET x = 1 WHERE custid = (SELECT custid FROM customers WHERE name = $1)", [][]any{{"n1"}, {"n2"}, {int64(3)}}},
		{"SELECT * FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 AND ol_number = 4", [][]any{{int64(1), int64(2), int64(3)}, {int64(1), int64(2), int64(30)}, {int64(1), "2", int64(3)}}},
	}
	for _, c := range cases {
		for _, args := range c.args {
			want := Analyze(c.sql, args, cat)
			if got := Analyze(c.sql, args, memo); !reflect.DeepEqual(got, want) {
				t.Errorf("Analyze(%q, %v) with a memo %+v, without %+v", c.sql, args, got, want)
			}
		}
	}
	if got := Analyze(cases[0].sql, []any{int64(3), int64(3)}, memo); len(got.Writes) != 1 {
		t.Errorf("two parameters with one value: %+v, want one key", got)
	}
	if got := Analyze(cases[1].sql, []any{int64(7), int64(7)}, memo); len(got.Reads) != 0 || len(got.Writes) != 1 {
		t.Errorf("a row read and written through two parameters: %+v, want one write", got)
	}
	if len(memo.t) < len(cases) {
		t.Fatalf("%d templates for %d texts with key arguments", len(memo.t), len(cases))
	}
}
