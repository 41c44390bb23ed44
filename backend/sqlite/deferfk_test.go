package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/sqlcheck"
)

// deferSchema has a key of most kinds PostgreSQL knows: deferred (c),
// deferred with ON DELETE CASCADE (c2) and RESTRICT (c5), not deferrable
// (c3), a deferred key to its own table (tree), and one added by ALTER
// TABLE under a name (c6). A key DEFERRABLE INITIALLY IMMEDIATE (initiallyImmediate)
// makes SET CONSTRAINTS ALL DEFERRED refused: its cases create it.
var deferSchema = []string{
	"CREATE TABLE p (id int4 PRIMARY KEY)",
	"CREATE TABLE c (id int4 PRIMARY KEY, p int4 REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)",
	"CREATE TABLE c2 (id int4 PRIMARY KEY, p int4 REFERENCES p (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED)",
	"CREATE TABLE c3 (id int4 PRIMARY KEY, p int4 REFERENCES p (id))",
	"CREATE TABLE c5 (id int4 PRIMARY KEY, p int4 REFERENCES p (id) ON DELETE RESTRICT DEFERRABLE INITIALLY DEFERRED)",
	"CREATE TABLE tree (id int4 PRIMARY KEY, up int4 REFERENCES tree (id) DEFERRABLE INITIALLY DEFERRED)",
	"CREATE TABLE c6 (id int4 PRIMARY KEY, p int4)",
	"ALTER TABLE c6 ADD CONSTRAINT c6_to_p FOREIGN KEY (p) REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED",
}

// deferCase is one transaction run after setup (its own committed tx).
// A statement marked pgOnly runs on PostgreSQL alone, inside a client
// savepoint the case rolls back: what relchain's gateway does with a
// ROLLBACK TO (it drops the statements from the bc-transaction).
type deferCase struct {
	name  string
	setup []string
	tx    []deferStmt
	// message: compare PostgreSQL's message too, not only the SQLSTATE.
	message bool
	// dropped: the tx drops tables deferCounts reads (compare p's rows).
	dropped bool
}

type deferStmt struct {
	sql    string
	pgOnly bool
}

func stmts(sqls ...string) []deferStmt {
	out := make([]deferStmt, len(sqls))
	for i, s := range sqls {
		out[i] = deferStmt{sql: s}
	}
	return out
}

const initiallyImmediate = "CREATE TABLE c4 (id int4 PRIMARY KEY, p int4, FOREIGN KEY (p) REFERENCES p (id) DEFERRABLE INITIALLY IMMEDIATE)"

var deferCases = []deferCase{
	{name: "child before parent", tx: stmts("INSERT INTO c VALUES (1, 1)", "INSERT INTO p VALUES (1)")},
	{name: "violation left at the end", tx: stmts("INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 2)"), message: true},
	{name: "violation repaired by an update", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("UPDATE c SET p = 7 WHERE id = 1", "UPDATE c SET p = 1 WHERE id = 1")},
	{name: "violation made by an update", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("UPDATE c SET p = 7 WHERE id = 1"), message: true},
	{name: "parent deleted and inserted again", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("DELETE FROM p WHERE id = 1", "INSERT INTO p VALUES (1)")},
	{name: "parent deleted under its child", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("DELETE FROM p WHERE id = 1")},
	{name: "child deleted with its missing parent", tx: stmts("INSERT INTO c VALUES (1, 1)", "DELETE FROM c WHERE id = 1")},
	{name: "SET CONSTRAINTS ALL IMMEDIATE with a pending violation",
		tx: stmts("INSERT INTO c VALUES (1, 1)", "SET CONSTRAINTS ALL IMMEDIATE", "INSERT INTO p VALUES (1)")},
	{name: "SET CONSTRAINTS ALL IMMEDIATE then a violation",
		tx: stmts("SET CONSTRAINTS ALL IMMEDIATE", "INSERT INTO c VALUES (1, 1)", "INSERT INTO p VALUES (1)")},
	{name: "Django's check_constraints", tx: stmts("INSERT INTO c VALUES (1, 1)", "INSERT INTO p VALUES (1)",
		"SET CONSTRAINTS ALL IMMEDIATE", "SET CONSTRAINTS ALL DEFERRED", "INSERT INTO c VALUES (2, 3)", "INSERT INTO p VALUES (3)")},
	{name: "deferred again after IMMEDIATE, violation left", tx: stmts("SET CONSTRAINTS ALL IMMEDIATE",
		"SET CONSTRAINTS ALL DEFERRED", "INSERT INTO c VALUES (1, 1)")},
	{name: "ON DELETE CASCADE on a deferred key", setup: []string{"INSERT INTO p VALUES (1), (2)", "INSERT INTO c2 VALUES (1, 1), (2, 2)"},
		tx: stmts("DELETE FROM p WHERE id = 1", "INSERT INTO c2 VALUES (3, 4)", "INSERT INTO p VALUES (4)")},
	{name: "ON DELETE RESTRICT is checked at once", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c5 VALUES (1, 1)"},
		tx: stmts("DELETE FROM p WHERE id = 1", "INSERT INTO p VALUES (1)")},
	{name: "a key that is not deferrable", tx: stmts("INSERT INTO c3 VALUES (1, 1)", "INSERT INTO p VALUES (1)")},
	{name: "a key DEFERRABLE INITIALLY IMMEDIATE", setup: []string{initiallyImmediate}, tx: stmts("INSERT INTO c4 VALUES (1, 1)", "INSERT INTO p VALUES (1)")},
	{name: "a tree built leaves first", tx: stmts("INSERT INTO tree VALUES (2, 1)", "INSERT INTO tree VALUES (1, NULL)")},
	{name: "a tree left with a dangling branch", tx: stmts("INSERT INTO tree VALUES (2, 1)"), message: true},
	{name: "the second of two deferred keys", setup: []string{"CREATE TABLE c7 (id int4 PRIMARY KEY, a int4 REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED, b int4, FOREIGN KEY (b) REFERENCES tree (id) DEFERRABLE INITIALLY DEFERRED)"},
		tx: stmts("INSERT INTO c7 VALUES (1, NULL, 9)"), message: true},
	{name: "a named key added by ALTER TABLE", tx: stmts("INSERT INTO c6 VALUES (1, 5)"), message: true},
	{name: "a pending violation dropped with its tables", setup: []string{"INSERT INTO p VALUES (1)"},
		tx: stmts("INSERT INTO c VALUES (1, 2)", "DROP TABLE c, c2, c3, c5, c6"), dropped: true},
	{name: "a pending violation dropped with both tables", setup: []string{"INSERT INTO p VALUES (1)", "DROP TABLE c2, c3, c5, c6, tree"},
		tx: stmts("INSERT INTO c VALUES (1, 1)", "DELETE FROM p", "DROP TABLE p, c"), dropped: true},
	{name: "ALTER TABLE of a table with a pending insert", setup: []string{"INSERT INTO p VALUES (1)"},
		tx: stmts("INSERT INTO c VALUES (1, 1)", "ALTER TABLE c ADD COLUMN z int4"), message: true},
	{name: "CREATE INDEX on a table with a pending insert", setup: []string{"INSERT INTO p VALUES (1)"},
		tx: stmts("INSERT INTO c VALUES (1, 1)", "CREATE INDEX c_p_idx ON c (p)"), message: true},
	{name: "TRUNCATE of a table with a pending insert", setup: []string{"INSERT INTO p VALUES (1)"},
		tx: stmts("INSERT INTO c VALUES (1, 1)", "TRUNCATE c"), message: true},
	{name: "ALTER TABLE of a referenced table with a pending delete", setup: []string{"INSERT INTO p VALUES (1), (2)"},
		tx: stmts("DELETE FROM p WHERE id = 2", "ALTER TABLE p ADD COLUMN z int4"), message: true},
	{name: "ALTER TABLE after an update of no key", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("UPDATE c SET id = 5", "ALTER TABLE c ADD COLUMN z int4")},
	{name: "ALTER TABLE after a delete of referencing rows", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("DELETE FROM c", "ALTER TABLE c ADD COLUMN z int4")},
	{name: "ALTER TABLE after an insert that changed no row", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("INSERT INTO c VALUES (1, 1) ON CONFLICT DO NOTHING", "ALTER TABLE c ADD COLUMN z int4")},
	{name: "ALTER TABLE after the events fired", setup: []string{"INSERT INTO p VALUES (1)"},
		tx: stmts("INSERT INTO c VALUES (1, 1)", "SET CONSTRAINTS ALL IMMEDIATE", "ALTER TABLE c ADD COLUMN z int4")},
	{name: "Django's AddField of a foreign key", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts(`ALTER TABLE "c" ADD COLUMN "q" integer NULL CONSTRAINT "c_q_fk_p_id" REFERENCES "p"("id") DEFERRABLE INITIALLY DEFERRED`,
			`SET CONSTRAINTS "c_q_fk_p_id" IMMEDIATE`, `CREATE INDEX "c_q_idx" ON "c" ("q")`, `UPDATE "c" SET "q" = 1`,
			`ALTER TABLE "c" ALTER COLUMN "q" SET NOT NULL`)},
	{name: "a named key made IMMEDIATE with a pending violation", tx: stmts("INSERT INTO c VALUES (1, 9)", "SET CONSTRAINTS c_p_fkey IMMEDIATE"), message: true},
	{name: "another key made IMMEDIATE with a pending violation", tx: stmts("INSERT INTO c VALUES (1, 9)", "SET CONSTRAINTS tree_up_fkey IMMEDIATE", "INSERT INTO p VALUES (9)")},
	{name: "a named IMMEDIATE key violated later", tx: stmts("SET CONSTRAINTS c_p_fkey IMMEDIATE", "INSERT INTO tree VALUES (2, 1)", "INSERT INTO c VALUES (1, 9)"), message: true},
	{name: "another key violated and repaired under a named IMMEDIATE", tx: stmts("SET CONSTRAINTS c_p_fkey IMMEDIATE", "INSERT INTO tree VALUES (2, 1)", "INSERT INTO tree VALUES (1, NULL)")},
	{name: "DDL after inserts under a named IMMEDIATE key", tx: stmts("SET CONSTRAINTS c_p_fkey, c6_to_p IMMEDIATE", "INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)", "ALTER TABLE c ADD COLUMN z int4")},
	{name: "a named key deferred again", tx: stmts("SET CONSTRAINTS c_p_fkey IMMEDIATE", "SET CONSTRAINTS c_p_fkey DEFERRED", "INSERT INTO c VALUES (1, 9)", "INSERT INTO p VALUES (9)")},
	{name: "SET CONSTRAINTS naming no constraint", tx: stmts("SET CONSTRAINTS nothing_here IMMEDIATE"), message: true},
	{name: "SET CONSTRAINTS naming another schema's", tx: stmts("SET CONSTRAINTS other.c_p_fkey IMMEDIATE"), message: true},
	{name: "SET CONSTRAINTS naming a key that is not deferrable", tx: stmts("SET CONSTRAINTS c3_p_fkey DEFERRED"), message: true},
	{name: "SET CONSTRAINTS naming a primary key", tx: stmts("SET CONSTRAINTS p_pkey IMMEDIATE"), message: true},
	{name: "SET CONSTRAINTS deferring a primary key", tx: stmts("SET CONSTRAINTS p_pkey DEFERRED"), message: true},
	{name: "SET CONSTRAINTS naming a key that is not deferrable IMMEDIATE", tx: stmts("SET CONSTRAINTS c3_p_fkey, c_p_fkey IMMEDIATE", "INSERT INTO c VALUES (1, 9)"), message: true},
	{name: "ALTER TABLE rebuilding a referenced table with referencing rows", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)", "INSERT INTO tree VALUES (1, NULL), (2, 1)"},
		tx: stmts("ALTER TABLE p ADD CONSTRAINT p_id_check CHECK (id > 0)", "ALTER TABLE tree ALTER COLUMN up TYPE int8", "INSERT INTO c VALUES (2, 1)")},
	{name: "ALTER TABLE rebuilding a referenced table under a pending violation", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("INSERT INTO c VALUES (2, 9)", "ALTER TABLE p ADD CONSTRAINT p_id_check CHECK (id > 0)"), message: true},
	{name: "ALTER TABLE rebuilding a referenced table, violation repaired after", setup: []string{"INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (1, 1)"},
		tx: stmts("INSERT INTO c VALUES (2, 9)", "ALTER TABLE p ADD CONSTRAINT p_id_check CHECK (id > 0)", "INSERT INTO p VALUES (9)")},
	{name: "a rolled-back savepoint undoes SET CONSTRAINTS", tx: []deferStmt{
		{sql: "INSERT INTO c VALUES (1, 1)"}, {sql: "SAVEPOINT s", pgOnly: true},
		{sql: "SET CONSTRAINTS ALL IMMEDIATE", pgOnly: true}, {sql: "ROLLBACK TO SAVEPOINT s", pgOnly: true},
		{sql: "INSERT INTO p VALUES (1)"}}},
	{name: "a rolled-back savepoint undoes a violation", tx: []deferStmt{
		{sql: "SAVEPOINT s", pgOnly: true}, {sql: "INSERT INTO c VALUES (1, 1)", pgOnly: true},
		{sql: "ROLLBACK TO SAVEPOINT s", pgOnly: true}, {sql: "INSERT INTO c VALUES (2, NULL)"}}},
}

// deferCounts reads what each case leaves in the tables.
const deferCounts = "SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM c), (SELECT count(*) FROM c2), (SELECT count(*) FROM c5), (SELECT count(*) FROM tree), (SELECT count(*) FROM c6)"

// outcome is how a transaction ended: "" committed, else the SQLSTATE of
// its failure (and its message, for the cases that compare it).
type outcome struct{ state, message string }

// Each transaction of deferCases ends on relchain's SQLite backend in the
// postgres dialect as on PostgreSQL (RELCHAIN_TEST_PG): committed, or
// failed with the same SQLSTATE (and message, where the case says), and
// leaves the same rows.
func TestPostgresDialectDeferredKeysAgainstPostgres(t *testing.T) {
	racetest.Heavy(t) // one case after another on two engines: 37 s under -race
	server := pgtest.ServerDSN(t)
	ctx := context.Background()
	pg := catalogScratch(t, server, fmt.Sprintf("sqlite_deferfk_%d", os.Getpid()))
	for _, c := range deferCases {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range []string{"DROP TABLE IF EXISTS c, c2, c3, c4, c5, c6, c7, tree, p"} {
				if _, err := pg.Exec(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			b := mustOpenPostgresDialect(t)
			for i, s := range append(append([]string{}, deferSchema...), c.setup...) {
				if _, err := pg.Exec(ctx, s); err != nil {
					t.Fatalf("PostgreSQL: %s: %v", s, err)
				}
				pgBlock(t, b, int64(i+1), pgStmt{sql: s})
			}
			want := pgTx(t, pg, c.tx)
			got := relchainTx(t, b, c.tx)
			if !c.message {
				want.message, got.message = "", ""
			}
			if got != want {
				t.Errorf("relchain %+v, PostgreSQL %+v", got, want)
			}
			counts := deferCounts
			if c.dropped {
				counts = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
				counts = "SELECT (SELECT count(*) FROM p)"
				if got.state == "" && want.state == "" {
					return
				}
			}
			rows, _, err := b.Query(ctx, counts, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := textRow(rows.Rows[0]), pgTextRows(t, pg, counts)[0]; g != w {
				t.Errorf("rows left: relchain %s, PostgreSQL %s", g, w)
			}
		})
	}
}

// pgTx runs tx in one PostgreSQL transaction: the first failure's
// SQLSTATE (a pgOnly statement's failure is rolled back by the case).
func pgTx(t *testing.T, pg *pgx.Conn, tx []deferStmt) outcome {
	ctx := context.Background()
	if _, err := pg.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	for _, s := range tx {
		_, err := pg.Exec(ctx, s.sql)
		if err != nil && !s.pgOnly {
			pg.Exec(ctx, "ROLLBACK")
			return pgOutcome(err)
		}
	}
	_, err := pg.Exec(ctx, "COMMIT")
	return pgOutcome(err)
}

func pgOutcome(err error) outcome {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return outcome{pe.Code, pe.Message}
	}
	if err != nil {
		return outcome{"?", err.Error()}
	}
	return outcome{}
}

// relchainTx runs tx as the executor runs one bc-transaction in a block:
// each statement judged in the block and run, the savepoint released, or
// rolled back to on a failure (Release's included).
func relchainTx(t *testing.T, b *sqlite.Backend, tx []deferStmt) outcome {
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx, sqlcheck.Env{Time: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	res := outcome{}
	for _, s := range tx {
		if s.pgOnly {
			continue
		}
		if _, err = b.Gate().AnalyzeInBlock(ctx, blk, s.sql); err == nil {
			_, err = blk.Exec(ctx, s.sql, nil)
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = blk.Release(ctx)
		if err != nil && !errors.Is(err, backend.ErrDeferredViolation) {
			t.Fatalf("release: %v", err)
		}
	}
	if err != nil {
		be := backend.AsError(err)
		if be == nil {
			t.Fatalf("not a tx failure: %v", err)
		}
		res = outcome{be.SQLState, be.Message}
		if err := blk.RollbackTo(ctx); err != nil {
			t.Fatal(err)
		}
	}
	commitBlock(t, blk)
	return res
}

// commitBlock digests and commits blk at the next height.
func commitBlock(t *testing.T, blk backend.Block) {
	t.Helper()
	ctx := context.Background()
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := blk.StateDigest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: 100, AppHash: st}); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// mustDeferSchema opens a postgres-dialect backend holding deferSchema.
func mustDeferSchema(t *testing.T) *sqlite.Backend {
	b := mustOpenPostgresDialect(t)
	for i, s := range deferSchema {
		pgBlock(t, b, int64(i+1), pgStmt{sql: s})
	}
	return b
}

// A tx that leaves a deferred key violated fails at Release and is rolled
// back with SQLite's deferred count: the next tx of the same block, which
// violates nothing, is released and the block commits (SQLite's COMMIT
// would fail on a count left behind).
func TestPostgresDialectRollbackToResetsTheDeferredCount(t *testing.T) {
	b := mustDeferSchema(t)
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run := func(sql string) {
		t.Helper()
		if _, err := blk.Exec(ctx, sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: 0}); err != nil {
		t.Fatal(err)
	}
	run("INSERT INTO c VALUES (1, 1)")
	run("INSERT INTO tree VALUES (5, 4)")
	err = blk.Release(ctx)
	if be := backend.AsError(err); !errors.Is(err, backend.ErrDeferredViolation) || be == nil || be.SQLState != "23503" ||
		be.Message != `insert or update on table "c" violates foreign key constraint "c_p_fkey"` {
		t.Fatalf("release of a tx that left violations: %v", err)
	}
	if err := blk.RollbackTo(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: 1}); err != nil {
		t.Fatal(err)
	}
	run("INSERT INTO p VALUES (2)")
	run("INSERT INTO c VALUES (2, 2)")
	if err := blk.Release(ctx); err != nil {
		t.Fatalf("release of a tx after a rolled-back violation: %v", err)
	}
	commitBlock(t, blk)
	rows, _, err := b.Query(ctx, "SELECT id FROM c ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Rows) != 1 || textRow(rows.Rows[0]) != "2" {
		t.Fatalf("rows of c: %v, want the second tx's only", rows.Rows)
	}
}

// SET CONSTRAINTS ALL DEFERRED while a key is DEFERRABLE INITIALLY
// IMMEDIATE, and that key DEFERRED by name (SQLite cannot defer it
// alone), are refused with 0A000; the gate accepts SET CONSTRAINTS outside
// a block too.
func TestPostgresDialectSetConstraintsRefusals(t *testing.T) {
	b := mustDeferSchema(t)
	pgBlock(t, b, 100, pgStmt{sql: initiallyImmediate})
	ctx := context.Background()
	for _, s := range []string{"SET CONSTRAINTS ALL IMMEDIATE", "set constraints c_p_fkey deferred"} {
		if _, err := b.Gate().Analyze(ctx, s); err != nil {
			t.Errorf("gate: %s: %v", s, err)
		}
	}
	for _, s := range []string{"SET CONSTRAINTS ALL DEFERRED", "SET CONSTRAINTS c4_p_fkey DEFERRED"} {
		got := relchainTx(t, b, stmts(s))
		if got.state != "0A000" || !strings.Contains(got.message, "INITIALLY IMMEDIATE") {
			t.Errorf("%s beside an initially immediate key: %+v, want 0A000", s, got)
		}
	}
	if got := relchainTx(t, b, stmts("SET CONSTRAINTS ALL IMMEDIATE", "SET CONSTRAINTS c_p_fkey DEFERRED")); got.state != "0A000" {
		t.Errorf("one key deferred under ALL IMMEDIATE: %+v, want 0A000", got)
	}
}

// The sqlite dialect is unchanged: a deferred key the client writes in
// SQLite's DDL is SQLite's own business (checked at the block's COMMIT),
// and Release does not look at it.
func TestSQLiteDialectReleaseIgnoresDeferredKeys(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE p (id INTEGER PRIMARY KEY)",
		"CREATE TABLE c (id INTEGER PRIMARY KEY, p INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)",
		"INSERT INTO c VALUES (1, 1)",
	} {
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatalf("release in the sqlite dialect: %v", err)
	}
}

// DDL after an UPDATE that set a deferred key's column is refused (0A000):
// PostgreSQL refuses it (55006) only when the key's value changed, which
// the text does not tell.
func TestPostgresDialectDDLAfterAKeyUpdateIsRefused(t *testing.T) {
	b := mustDeferSchema(t)
	pgBlock(t, b, 100, pgStmt{sql: "INSERT INTO p VALUES (1), (2)"}, pgStmt{sql: "INSERT INTO c VALUES (1, 1)"})
	got := relchainTx(t, b, stmts("UPDATE c SET p = 2", "ALTER TABLE c ADD COLUMN z int4"))
	if got.state != "0A000" || !strings.Contains(got.message, "SET CONSTRAINTS ALL IMMEDIATE first") {
		t.Errorf("tx ends %+v, want the 0A000 refusal", got)
	}
	if got := relchainTx(t, b, stmts("UPDATE c SET p = 2", "SET CONSTRAINTS ALL IMMEDIATE", "ALTER TABLE c ADD COLUMN z int4")); got.state != "" {
		t.Errorf("with the events fired first: %+v, want committed", got)
	}
}
