package difftest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// uniqueOrder: stmt is an UPDATE (without FROM or WITH) that failed with
// 23505 (unique_violation) on one engine and succeeded on the other. Both
// engines check a non-deferrable unique index as each row is written, so
// a row moved onto a key that a row met later vacates fails or not by the
// order the rows are met in: PostgreSQL's heap order (an UPDATE moves a
// row to the heap's end) or SQLite's rowid or index order.
//
//   - PostgreSQL failed, SQLite succeeded: SQLite's success shows an order
//     in which every row's new key is free when it is written, one
//     PostgreSQL meets when its heap holds the rows in that order; and on
//     PostgreSQL the same UPDATE, its table's unique constraints made
//     DEFERRABLE INITIALLY DEFERRED and checked at the statement's end (in
//     a transaction rolled back), succeeds with SQLite's RETURNING rows and
//     leaves the table with SQLite's rows (deferredUpdate).
//   - SQLite failed, PostgreSQL succeeded: one row alone raises 23505 on
//     both engines (rowAlone), so PostgreSQL, meeting that row first,
//     fails too.
func (e *prober) uniqueOrder(stmt *pg_query.Node, st translated, pgO, liteO outcome) string {
	u := stmt.GetUpdateStmt()
	if u == nil || len(u.GetFromClause()) > 0 || u.GetWithClause() != nil || pgO.failed() == liteO.failed() {
		return ""
	}
	if liteO.failed() {
		if liteO.Code == "23505" && e.rowAlone(u)["23505"] {
			return "unique order: one row alone raises 23505 on both engines; PostgreSQL meeting it first fails as SQLite did"
		}
		return ""
	}
	if pgO.Code != "23505" {
		return ""
	}
	table := pgx.Identifier{u.GetRelation().GetRelname()}
	if s := u.GetRelation().GetSchemaname(); s != "" {
		table = pgx.Identifier{s, u.GetRelation().GetRelname()}
	}
	ret, rows, ok := e.deferredUpdate(st, table.Sanitize())
	if !ok {
		return ""
	}
	read := translated{sql: "SELECT * FROM " + table.Sanitize()}
	read.tr, read.err = e.h.translate(read.sql, e.lite.cat, nil)
	liteRows := e.lite.run(read)
	if liteRows.failed() || len(differences(ret, liteO, false)) > 0 || len(differences(rows, liteRows, false)) > 0 {
		return ""
	}
	return "unique order: with its unique constraints checked at the statement's end PostgreSQL succeeds with SQLite's rows; SQLite met the rows in an order that frees each key first"
}

// deferredUpdate runs st, an UPDATE of table, on PostgreSQL in a
// transaction rolled back, with every unique and primary key constraint of
// table dropped and added again DEFERRABLE INITIALLY DEFERRED, then checks
// them (SET CONSTRAINTS ALL IMMEDIATE) and reads the table whole. ok is
// false when a constraint cannot be deferred (a unique index that is no
// constraint, a foreign key that references it) or when anything fails.
func (e *prober) deferredUpdate(st translated, table string) (ret, rows outcome, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.pg.conn.PgConn().Exec(ctx, "BEGIN; SET LOCAL relchain.tx = '0'").ReadAll(); err != nil {
		return ret, rows, false
	}
	defer func() { _, _ = e.pg.conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll() }()
	alter, err := e.deferConstraints(ctx, table)
	if err != nil {
		return ret, rows, false
	}
	if _, err := e.pg.conn.PgConn().Exec(ctx, alter).ReadAll(); err != nil {
		return ret, rows, false
	}
	if ret = e.pg.runStatement(ctx, st); ret.failed() {
		return ret, rows, false
	}
	if _, err := e.pg.conn.PgConn().Exec(ctx, "SET CONSTRAINTS ALL IMMEDIATE").ReadAll(); err != nil {
		return ret, rows, false
	}
	rows = e.pg.runStatement(ctx, translated{sql: "SELECT * FROM " + table})
	return ret, rows, !rows.failed()
}

// deferConstraints is the DDL that makes table's unique and primary key
// constraints DEFERRABLE INITIALLY DEFERRED (drop and add again, with the
// same definition); an error when table has a unique index that is not a
// constraint (which cannot be deferred) or no such constraint at all.
func (e *prober) deferConstraints(ctx context.Context, table string) (string, error) {
	var plain int
	if err := e.pg.conn.QueryRow(ctx, `SELECT count(*) FROM pg_index i WHERE i.indrelid = $1::regclass AND i.indisunique
		AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`, table).Scan(&plain); err != nil {
		return "", fmt.Errorf("unique indexes of %s: %w", table, err)
	}
	if plain > 0 {
		return "", fmt.Errorf("%s has a unique index that is not a constraint", table)
	}
	rs, err := e.pg.conn.Query(ctx, `SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = $1::regclass AND contype IN ('p', 'u') AND NOT condeferrable ORDER BY conname`, table)
	if err != nil {
		return "", fmt.Errorf("constraints of %s: %w", table, err)
	}
	var drops, adds []string
	for rs.Next() {
		var name, def string
		if err := rs.Scan(&name, &def); err != nil {
			return "", fmt.Errorf("constraints of %s: %w", table, err)
		}
		id := pgx.Identifier{name}.Sanitize()
		drops = append(drops, "ALTER TABLE "+table+" DROP CONSTRAINT "+id)
		adds = append(adds, "ALTER TABLE "+table+" ADD CONSTRAINT "+id+" "+def+" DEFERRABLE INITIALLY DEFERRED")
	}
	if err := rs.Err(); err != nil {
		return "", fmt.Errorf("constraints of %s: %w", table, err)
	}
	if len(drops) == 0 {
		return "", fmt.Errorf("%s has no unique constraint to defer", table)
	}
	return strings.Join(append(drops, adds...), "; "), nil
}

// TestUniqueOrderNeedsDeferredRun: PostgreSQL's 23505 against SQLite's
// success counts as plan-dependent only when PostgreSQL, its unique
// constraints checked at the statement's end, succeeds and leaves SQLite's
// rows. SQLite's state is real: each UPDATE runs on it, rolled back after.
func TestUniqueOrderNeedsDeferredRun(t *testing.T) {
	h := newHarness(t)
	h.schemas++
	pgE, err := newPGEngine(h.pg, fmt.Sprintf("difftest_uniqorder_%d", h.schemas), h.types)
	if err != nil {
		t.Fatal(err)
	}
	defer pgE.close()
	lite, err := newLiteEngine()
	if err != nil {
		t.Fatal(err)
	}
	defer lite.close()
	for _, sql := range []string{
		"CREATE TABLE v (k int4 PRIMARY KEY, d int4)", "INSERT INTO v VALUES (1, 10), (2, 20), (3, 30)",
		"CREATE TABLE w (k int4, d int4)", "CREATE UNIQUE INDEX w_k ON w (k)", "INSERT INTO w VALUES (1, 10), (2, 20)",
	} {
		st := translated{sql: sql}
		st.tr, st.err = h.translate(sql, lite.cat, nil)
		if o, l := pgE.run(st), lite.run(st); o.failed() || l.failed() {
			t.Fatalf("%s: postgres %s, sqlite %s", sql, o, l)
		}
	}
	p := &prober{pg: pgE, lite: lite, h: h}
	for _, c := range []struct {
		sql, ran   string // ran is what SQLite runs (the state it is in)
		plan       bool
		whyPlanted string
	}{
		{"UPDATE v SET k = k - 1 RETURNING d", "UPDATE v SET k = k - 1 RETURNING d", true, "deferred, PostgreSQL leaves 0, 1, 2 as SQLite"},
		{"UPDATE v SET k = k - 1", "UPDATE v SET k = k - 2", false, "SQLite's rows are not the deferred run's"},
		{"UPDATE v SET k = k - 1 RETURNING d", "UPDATE v SET k = k - 1 RETURNING k", false, "SQLite's RETURNING rows are not the deferred run's"},
		{"UPDATE v SET k = 5 WHERE k < 3", "UPDATE v SET k = k + 5 WHERE k < 3", false, "two rows end on one key: the deferred check fails too"},
		{"UPDATE w SET k = k - 1", "UPDATE w SET k = k - 1", false, "a unique index that is no constraint cannot be deferred"},
	} {
		if err := lite.conn.Exec("SAVEPOINT planted"); err != nil {
			t.Fatal(err)
		}
		ran := translated{sql: c.ran}
		ran.tr, ran.err = h.translate(c.ran, lite.cat, nil)
		liteO := lite.run(ran)
		if liteO.failed() {
			t.Fatalf("%s on SQLite: %s", c.ran, liteO)
		}
		why := p.planDependent(translated{sql: c.sql}, outcome{Code: "23505", Message: "duplicate key value violates unique constraint"}, liteO)
		if (why != "") != c.plan {
			t.Errorf("%s (%s): plan-dependent %q, want %v", c.sql, c.whyPlanted, why, c.plan)
		}
		if err := lite.conn.Exec("ROLLBACK TO planted; RELEASE planted"); err != nil {
			t.Fatal(err)
		}
	}
}
