package postgres_test

import (
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// Query sends its read-only transaction, the height, the statement and
// the ROLLBACK in one round trip. On one pooled connection, a query after
// a failed one, and after a block committed, must see the new committed
// state: the previous transaction (and its snapshot) ended.
func TestQueryEndsItsTransaction(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithMaxReaders(1))
	defer b.Close()
	oneTx(t, b, 1, 0, `CREATE TABLE t (id int PRIMARY KEY)`, nil)
	oneTx(t, b, 2, 0, `INSERT INTO t VALUES (1)`, nil)
	count := func(wantHeight, want int64) {
		t.Helper()
		rows, h, err := b.Query(ctx(t), `SELECT count(*) FROM t WHERE id > $1`, []any{int64(0)})
		if err != nil {
			t.Fatal(err)
		}
		if h != wantHeight || len(rows.Rows) != 1 || rows.Rows[0][0] != want {
			t.Fatalf("height %d, rows %v; want height %d, count %d", h, rows.Rows, wantHeight, want)
		}
	}
	count(2, 1)
	if _, _, err := b.Query(ctx(t), `SELECT 1/0`, nil); backend.AsError(err) == nil || backend.AsError(err).SQLState != "22012" {
		t.Fatalf("1/0: %v, want SQLSTATE 22012", err)
	}
	count(2, 1)
	oneTx(t, b, 3, 0, `INSERT INTO t VALUES (2)`, nil)
	count(3, 2)
	if _, _, err := b.Query(ctx(t), `SELECT * FROM missing`, nil); backend.AsError(err) == nil {
		t.Fatalf("missing table: %v, want a statement failure", err)
	}
	oneTx(t, b, 4, 0, `INSERT INTO t VALUES (3)`, nil)
	count(4, 3)
	rows, _, err := b.Query(ctx(t), `SELECT id FROM t`, nil)
	if err != nil || len(rows.Rows) != 3 || rows.Rows[0][0] != int64(1) || rows.Rows[2][0] != int64(3) {
		t.Fatalf("rows %v (%v), want 1, 2, 3 sorted", rows, err)
	}
}
