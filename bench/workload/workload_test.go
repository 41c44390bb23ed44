package workload_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

func TestNormalizeGivesOneTypePerValueWhateverItsSource(t *testing.T) {
	for _, c := range []struct {
		in   any
		want any
	}{
		{json.Number("42"), int64(42)},
		{json.Number("59.27"), 59.27},
		{int32(7), int64(7)},
		{[]byte("abc"), "abc"},
		{float32(0.5), 0.5},
		{nil, nil},
		{true, true},
	} {
		if got := workload.Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%#v) = %#v, want %#v", c.in, got, c.want)
		}
	}
	if n, err := workload.Int("12"); err != nil || n != 12 {
		t.Errorf(`Int("12") = %d, %v`, n, err)
	}
	if _, err := workload.Int(2.5); err == nil {
		t.Errorf("Int(2.5) accepted a fraction")
	}
	if f, err := workload.Float("59.27"); err != nil || f != 59.27 {
		t.Errorf(`Float("59.27") = %v, %v`, f, err)
	}
	if _, err := workload.Float(nil); err == nil {
		t.Errorf("Float(nil) accepted NULL")
	}
}

func TestMixDrawsKindsByWeightAndRefusesUnknownKinds(t *testing.T) {
	m, err := workload.NewMix("w", map[string]int{"A": 3, "B": 1, "C": 0}, []string{"A", "B", "C"})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[string]int{}
	for i := 0; i < 40000; i++ {
		counts[m.Pick(r)]++
	}
	if counts["C"] != 0 || counts["A"] < 29000 || counts["A"] > 31000 {
		t.Fatalf("draws %v: want about 30,000 A, 10,000 B and no C", counts)
	}
	if _, err := workload.NewMix("w", map[string]int{"D": 1}, []string{"A"}); err == nil || !strings.Contains(err.Error(), `"D"`) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := workload.NewMix("w", map[string]int{"A": 0}, []string{"A"}); err == nil {
		t.Errorf("a mix without positive weights was accepted")
	}
}

func TestPositionalRepeatsArgumentsInTextOrder(t *testing.T) {
	st := txn.Statement{
		SQL:  "UPDATE t SET a = CASE WHEN a >= ?1 THEN a - ?1 END, s = '?2 it''s', `?1` = 1 WHERE id = ?2 -- ?1\n AND k = ?1",
		Args: []txn.Arg{txn.Int(5), txn.Text("x")},
	}
	got, err := workload.Positional(st)
	if err != nil {
		t.Fatal(err)
	}
	want := "UPDATE t SET a = CASE WHEN a >= ? THEN a - ? END, s = '?2 it''s', `?1` = 1 WHERE id = ? -- ?1\n AND k = ?"
	if got.SQL != want {
		t.Fatalf("SQL:\n got %q\nwant %q", got.SQL, want)
	}
	if len(got.Args) != 4 || got.Args[0].Int != 5 || got.Args[1].Int != 5 || got.Args[2].Text != "x" || got.Args[3].Int != 5 {
		t.Fatalf("args: %+v", got.Args)
	}
	if _, err := workload.Positional(txn.Statement{SQL: "SELECT ?3", Args: []txn.Arg{txn.Int(1)}}); err == nil {
		t.Fatal("?3 with one argument: no error")
	}
	q, args, err := workload.QueryArgs(workload.MySQL, "SELECT ?2, ?1, ?2", []any{int64(1), "b"})
	if err != nil || q != "SELECT ?, ?, ?" || len(args) != 3 || args[0] != "b" || args[1] != int64(1) || args[2] != "b" {
		t.Fatalf("QueryArgs: %q %v %v", q, args, err)
	}
}

func TestDDLAloneSplitsDDLOnMySQLOnly(t *testing.T) {
	st := func(sql string) txn.Statement { return txn.Statement{SQL: sql} }
	bcs := [][]txn.Statement{{st("CREATE TABLE a (x INT)"), st("create index i on a (x)"), st("INSERT INTO a VALUES (1)"), st("INSERT INTO a VALUES (2)"), st("DROP TABLE b")}, {st("UPDATE a SET x = 3")}}
	got := workload.DDLAlone(workload.MySQL, bcs)
	var shape []int
	for _, bc := range got {
		shape = append(shape, len(bc))
	}
	if fmt.Sprint(shape) != "[1 1 2 1 1]" || got[2][1].SQL != "INSERT INTO a VALUES (2)" || got[3][0].SQL != "DROP TABLE b" {
		t.Fatalf("MySQL split: %v", got)
	}
	if len(workload.DDLAlone(workload.SQLite, bcs)) != 2 {
		t.Fatal("SQLite's bc-transactions were split")
	}
}
