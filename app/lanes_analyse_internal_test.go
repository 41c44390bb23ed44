package app

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/relchain/relchain/sqlcheck/conflict"
	"github.com/relchain/relchain/txn"
)

// twoTables is a conflict.Catalog of acct (integer key) and kv (text key).
type twoTables struct{}

func (twoTables) Table(name string) (conflict.Table, bool) {
	switch name {
	case "acct":
		return conflict.Table{Name: name, PrimaryKey: []conflict.Column{{Name: "id", Kind: conflict.KindInt}}, KeyIsOnlyUnique: true}, true
	case "kv":
		return conflict.Table{Name: name, PrimaryKey: []conflict.Column{{Name: "k", Kind: conflict.KindText}}, KeyIsOnlyUnique: true}, true
	}
	return conflict.Table{}, false
}

func (twoTables) Routine(string) bool { return false }

// randomAnalysedTxs is n txs of 1-3 statements by key, table-wide and on
// an unknown table, with rejected ones (nil) among them.
func randomAnalysedTxs(r *rand.Rand, n int) []*txn.Tx {
	txs := make([]*txn.Tx, n)
	for i := range txs {
		if r.IntN(10) == 0 {
			continue
		}
		tx := &txn.Tx{}
		for range 1 + r.IntN(3) {
			id := txn.Int(int64(r.IntN(50)))
			switch r.IntN(5) {
			case 0:
				tx.Statements = append(tx.Statements, txn.Statement{SQL: "UPDATE acct SET bal = bal + 1 WHERE id = $1", Args: []txn.Arg{id}})
			case 1:
				tx.Statements = append(tx.Statements, txn.Statement{SQL: "SELECT bal FROM acct WHERE id IN ($1, $2)", Args: []txn.Arg{id, txn.Int(int64(r.IntN(50)))}})
			case 2:
				tx.Statements = append(tx.Statements, txn.Statement{SQL: "INSERT INTO kv (k, v) VALUES ($1, 1)", Args: []txn.Arg{txn.Text(string(rune('a' + r.IntN(20))))}})
			case 3:
				tx.Statements = append(tx.Statements, txn.Statement{SQL: "SELECT count(*) FROM kv WHERE v > $1", Args: []txn.Arg{id}})
			default:
				tx.Statements = append(tx.Statements, txn.Statement{SQL: "UPDATE acct SET bal = 0 WHERE bal < $1", Args: []txn.Arg{id}})
			}
		}
		txs[i] = tx
	}
	return txs
}

// A block's conflict analysis on the node's pool (issue 38, part 3) gives
// every tx the Access one goroutine computes, whatever the pool's size,
// and reports a block with an unbounded tx (DDL, an unknown table) as
// unbounded on every pool.
func TestTheAnalysisOnThePoolIsTheSerialOne(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 3))
	for round := range 20 {
		txs := randomAnalysedTxs(r, 1+r.IntN(300))
		want, ok := analyseTxs(txs, twoTables{}, 1)
		if !ok {
			t.Fatalf("round %d: a block of keyed and table-wide statements is unbounded", round)
		}
		for _, workers := range []int{2, 3, 8, 64} {
			got, ok := analyseTxs(txs, twoTables{}, workers)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, %d workers: bounded %v, access differs from one goroutine's", round, workers, ok)
			}
		}
		for _, bad := range []string{"ALTER TABLE acct ADD COLUMN x INT", "UPDATE nowhere SET x = 1"} {
			at := r.IntN(len(txs))
			unbounded := append(append(append([]*txn.Tx{}, txs[:at]...), &txn.Tx{Statements: []txn.Statement{{SQL: bad}}}), txs[at:]...)
			for _, workers := range []int{1, 2, 8} {
				if _, ok := analyseTxs(unbounded, twoTables{}, workers); ok {
					t.Fatalf("round %d, %d workers: %q at tx %d of %d: the block is bounded", round, workers, bad, at, len(unbounded))
				}
			}
		}
	}
}
