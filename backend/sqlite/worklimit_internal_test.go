package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/relchain/relchain/sqlcheck"
)

// The fuel a statement burns is the same whether it runs fresh or from the
// statement cache, run after run (a node that restarted has an empty cache).
// Without resetting SQLite's VM_STEP counter it would not be.
func TestFuelIndependentOfTheStatementCache(t *testing.T) {
	ctx := context.Background()
	b, err := Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	for _, s := range []string{
		`CREATE TABLE n (i INTEGER PRIMARY KEY, v INT)`,
		`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 2000) INSERT INTO n (i, v) SELECT i, i FROM s`,
	} {
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The same work at every run (the same rows updated).
	const q = `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?1) UPDATE n SET v = v + 1 WHERE i IN (SELECT i FROM s)`
	spent := func(sql string, n int64) int64 {
		c, temp, err := b.prepare(sql)
		if err != nil || temp {
			t.Fatal(err)
		}
		f := newFuel(context.Background(), 1<<40)
		if _, err := b.runOnFuel(c.stmt, []any{n}, f); err != nil {
			t.Fatal(err)
		}
		c.stmt.Reset()
		c.stmt.ClearBindings()
		return f.spent
	}
	for _, n := range []int64{150, 777, 1234} {
		fresh := spent(q+" -- fresh", n)
		for i := range 5 {
			if got := spent(q, n); got != fresh {
				t.Fatalf("n=%d, run %d from the cache: %d units, fresh: %d", n, i, got, fresh)
			}
		}
	}

	// A DDL statement that fails after changing the schema makes SQLite
	// discard the schema it had loaded; the next run must not load it on
	// fuel (nor re-prepare a cached statement there).
	for _, ddl := range []string{
		`ALTER TABLE n ADD COLUMN g AS (random())`,
		`CREATE TABLE n (x)`,
		`ALTER TABLE n ADD COLUMN c INT CHECK (c > 0) DEFAULT 0`,
	} {
		fresh := spent(q+" -- fresh before "+ddl, 500)
		for _, tx := range []bool{false, true} {
			spent(q, 500) // cached
			if tx {
				if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := blk.Exec(ctx, ddl, nil); err == nil {
				t.Fatalf("%s succeeded", ddl)
			}
			if tx {
				if err := blk.RollbackTo(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				// Without a savepoint a failed ALTER leaves the capture
				// triggers dropped (the executor always rolls back to the
				// tx's savepoint): put them back.
				b.schemaVer = -1
				if err := b.afterSchemaChange(); err != nil {
					t.Fatal(err)
				}
			}
			if got := spent(q, 500); got != fresh {
				t.Errorf("after the failed %q (in a savepoint: %v): %d units from the cache, %d fresh", ddl, tx, got, fresh)
			}
		}
	}

	// SQLite's own behaviour, which the reset above neutralizes.
	st, _, err := b.w.Prepare(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 150) SELECT count(*) FROM s`)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seen := map[int64]bool{}
	for range 4 {
		f := newFuel(context.Background(), 1<<40)
		b.w.SetInterrupt(f)
		for st.Step() {
		}
		b.w.SetInterrupt(context.Background())
		st.Reset()
		seen[f.spent] = true
	}
	if len(seen) < 2 {
		t.Logf("note: this SQLite build no longer carries VM_STEP across runs (%v)", seen)
	}
}
