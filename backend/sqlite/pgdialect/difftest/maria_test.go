package difftest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
	relmysql "github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	mypgdialect "github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/postgres/pggate"
)

// envMaria turns the MariaDB column off ("off") or sets how many random
// cases it takes (a number; defaultMariaCases without it). The column runs
// where the tests find a MariaDB server (RELCHAIN_TEST_MYSQL, or a private
// one as backend/mysql/mysqltest starts it).
const envMaria = "RELCHAIN_DIFF_MARIADB"

// defaultMariaCases is how many random cases of a run the MariaDB column
// takes: each case opens a MariaDB validator's backend on a database of
// its own and runs every statement as a block, about 20 times the time the
// two other engines take, so CI's run compares the first cases of its
// fixed seed on three engines and the rest on two.
const defaultMariaCases = 60

// mariaColumn is the suite's third column (issue 37, item 3): every
// statement PostgreSQL and SQLite run also runs on a MariaDB validator's
// backend (backend/mysql in the postgres dialect: PostgreSQL's gate, the
// translation into MariaDB's SQL, the results rendered as PostgreSQL's),
// each in a block of its own as a node runs it, and its outcome is
// compared with PostgreSQL's as SQLite's is.
type mariaColumn struct {
	on    bool
	cases int // random cases left to take (-1: no bound)
	tally tally
	eng   *mariaEngine // the case's, nil when the column does not take it
	// spent is the time the column took: a random run's budget is the
	// two other engines' (TestRandom), so the column adds to it.
	spent   time.Duration
	opened  int           // cases it took
	opening time.Duration // of spent, opening and closing their engines
}

// newMariaColumn is the column of a harness: off without a MariaDB server
// (said once) or with RELCHAIN_DIFF_MARIADB=off.
func newMariaColumn(h *harness) mariaColumn {
	m := mariaColumn{cases: defaultMariaCases}
	m.tally.refusals, m.tally.gateRefusals, m.tally.examples, m.tally.planReasons = map[string]int{}, map[string]int{}, map[string]string{}, map[string]int{}
	switch v := os.Getenv(envMaria); {
	case v == "off":
		return m
	case v != "":
		n, err := fmt.Sscan(v, &m.cases)
		if n != 1 || err != nil {
			h.t.Fatalf("%s=%q: want off or a number of random cases", envMaria, v)
		}
	}
	if os.Getenv(mysqltest.EnvDSN) == "" && os.Getenv(mysqltest.EnvSkip) == "1" {
		h.t.Logf("no MariaDB (%s unset, %s=1): the suite compares two engines", mysqltest.EnvDSN, mysqltest.EnvSkip)
		return m
	}
	m.on = true
	return m
}

// mariaEngine is one case's MariaDB validator: a backend on a fresh
// database, and the administrator's connection to it that reads the
// schema (the result columns' PostgreSQL types).
type mariaEngine struct {
	b      *relmysql.Backend
	db     *sql.DB
	name   string
	height int64
	// apart: a write ran on PostgreSQL and not on MariaDB (refused there,
	// or plan-dependent), so their states differ and the rest of the case
	// is not compared on MariaDB.
	apart bool
}

// openMaria opens the MariaDB engine of case c, random or not; nil when
// the column is off or has taken its random cases.
func (h *harness) openMaria(c diffCase) *mariaEngine {
	m := &h.maria
	if !m.on {
		return nil
	}
	if strings.HasPrefix(c.name, "random ") {
		if m.cases == 0 {
			return nil
		}
		if m.cases > 0 {
			m.cases--
		}
	}
	began := time.Now()
	defer func() { m.took(began); m.opened++; m.opening += time.Since(began) }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := mysqltest.AdminDSN(h.t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		h.t.Fatalf("mariadb dsn: %v", err)
	}
	b, err := relmysql.Open(ctx, dsn, relmysql.WithUnsafeSuperuser(), relmysql.WithPostgresDialect())
	if err != nil {
		h.t.Fatalf("open the MariaDB backend: %v", err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		h.t.Fatalf("connect to MariaDB: %v", err)
	}
	return &mariaEngine{b: b, db: db, name: cfg.DBName}
}

// took adds the time since start to the column's.
func (m *mariaColumn) took(start time.Time) { m.spent += time.Since(start) }

// closeMaria closes the case's MariaDB engine, if any.
func (h *harness) closeMaria() {
	if e := h.maria.eng; e != nil {
		began := time.Now()
		defer func() { h.maria.took(began); h.maria.opening += time.Since(began) }()
		e.close()
		h.maria.eng = nil
	}
}

// close closes the backend and drops the case's database.
func (e *mariaEngine) close() {
	_ = e.b.Close()
	_, _ = e.db.Exec("DROP DATABASE IF EXISTS `" + e.name + "`")
	_ = e.db.Close()
}

// mariaStatement runs statement i of c, as PostgreSQL ran it (pgO), on
// the case's MariaDB engine and compares the outcomes; comparable is
// false where PostgreSQL's plan decides its result (then a write sets
// the engines apart).
func (h *harness) mariaStatement(c diffCase, i int, st translated, pgO outcome, ordered, comparable bool) {
	e := h.maria.eng
	if e == nil || e.apart {
		return
	}
	defer h.maria.took(time.Now())
	s, t := c.stmts[i], &h.maria.tally
	write := !isSelect(st.sql)
	mO, refusal := e.run(h, s, st)
	switch {
	case refusal != "":
		t.refused++
		t.refusals[refusal]++
		t.example(refusal, s.sql)
		e.apart = write && !pgO.failed()
		return
	case !comparable:
		e.apart = write
		return
	}
	t.compared++
	d := differences(pgO, mO, ordered)
	if len(d) == 0 {
		return
	}
	t.discrepancies++
	for k := range d {
		d[k] = strings.ReplaceAll(d[k], "sqlite", "mariadb")
	}
	msg := fmt.Sprintf("DISCREPANCY (MariaDB) in case %q (%s)\n  statement: %s\n  args: %s\n  differences: %s\n  postgres: %s\n  mariadb:  %s",
		c.name, s.where, s.sql, renderRow(s.args), strings.Join(d, "; "), pgO, mO)
	appendFinding(msg)
	if t.discrepancies <= maxPrinted {
		h.report(msg)
	}
	e.apart = write && pgO.failed() != mO.failed()
}

// run runs one statement on the backend as a node runs it: a read (the
// corpus's "-- read") by Query, anything else in a block of its own. The
// refusal is the message of the gate's or the translation's refusal
// ("" when it ran); a failure of the node itself fails the test.
func (e *mariaEngine) run(h *harness, s spec, st translated) (out outcome, refusal string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	types, terr := e.types(ctx, st)
	var rows *backend.Rows
	var err error
	if s.read {
		rows, _, err = e.b.Query(ctx, st.orig, st.args)
	} else {
		rows, err = e.block(ctx, st)
	}
	var be *backend.Error
	switch {
	case errors.As(err, &be) && be.SQLState == "0A000":
		return outcome{}, firstLine(be.Message)
	case errors.As(err, &be) && (be.SQLState == "42501" || gateRefuses(s)):
		// the gate's refusal: no statement of the suite lacks a privilege
		return outcome{}, "the gate: " + firstLine(be.Message)
	case errors.As(err, &be):
		return outcome{Code: be.SQLState, Message: be.Message}, ""
	case err != nil:
		h.t.Fatalf("%s: MariaDB's backend failed (not the statement): %v", s.where, err)
	case terr != nil:
		h.t.Fatalf("%s: the statement ran on MariaDB, but its translation for the column types fails: %v", s.where, terr)
	}
	return outcome{Columns: rows.Columns, Rows: rows.Rows, Affected: rows.RowsAffected, Types: types}, ""
}

// gateRefuses: PostgreSQL's gate, which the MariaDB backend asks first,
// refuses s on its own (a statement SQLite's translation takes beyond
// the gate, say).
func gateRefuses(s spec) bool {
	if s.read {
		_, err := pggate.CheckRead(s.sql)
		return err != nil
	}
	_, err := pggate.Analyze(s.sql)
	return err != nil
}

// types are the PostgreSQL types of st's result columns as MariaDB's
// translation gives them on the schema before the statement runs.
func (e *mariaEngine) types(ctx context.Context, st translated) ([]string, error) {
	cat := &mypgdialect.SchemaCatalog{Ctx: ctx, Q: e.db}
	tr, err := mypgdialect.TranslateTyped(st.sql, cat, mypgdialectTypes(st.args))
	if cat.Err != nil {
		return nil, cat.Err
	}
	if err != nil {
		return nil, nil // the statement's own error: run reports it
	}
	var out []string
	for _, c := range tr.Columns {
		out = append(out, typeName(c.Type.Name, c.Type.Typmod))
	}
	return out, nil
}

// mypgdialectTypes are the arguments' PostgreSQL types as the MariaDB
// backend gives them to its translation.
func mypgdialectTypes(args []any) []mypgdialect.Type {
	out := make([]mypgdialect.Type, len(args))
	for i, a := range args {
		t := argTypes([]any{a})[0]
		out[i] = mypgdialect.Type{Name: t.Name, Typmod: t.Typmod}
	}
	return out
}

// block runs st in a block of its own at the engine's next height, as
// the executor runs a tx: a savepoint with the suite's environment,
// released, or rolled back to when the statement fails.
func (e *mariaEngine) block(ctx context.Context, st translated) (*backend.Rows, error) {
	blk, err := e.b.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	e.height++
	if err := blk.Savepoint(ctx, gateEnv); err != nil {
		_ = blk.Rollback(ctx)
		return nil, fmt.Errorf("savepoint: %w", err)
	}
	rows, xerr := blk.Exec(ctx, st.orig, st.args)
	if xerr == nil {
		xerr = blk.Release(ctx)
	}
	if xerr != nil && !errors.Is(xerr, backend.ErrBlockLost) {
		if err := blk.RollbackTo(ctx); err != nil {
			_ = blk.Rollback(ctx)
			return nil, fmt.Errorf("roll back to the savepoint: %w", err)
		}
	}
	if errors.Is(xerr, backend.ErrBlockLost) {
		if blk, err = e.b.Begin(ctx); err != nil {
			return nil, fmt.Errorf("begin again: %w", err)
		}
	}
	if err := e.commit(ctx, blk); err != nil {
		return nil, err
	}
	var be *backend.Error
	if xerr != nil && !errors.As(xerr, &be) {
		return nil, xerr
	}
	return rows, xerr
}

// commit ends a block as the executor does: its change records
// consumed, its state digest folded, its height recorded.
func (e *mariaEngine) commit(ctx context.Context, blk backend.Block) error {
	if _, err := blk.ChangeDigest(ctx); err != nil {
		_ = blk.Rollback(ctx)
		return fmt.Errorf("change digest: %w", err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		_ = blk.Rollback(ctx)
		return fmt.Errorf("state digest: %w", err)
	}
	if err := blk.Commit(ctx, backend.State{Height: e.height, AppHash: []byte{1}}); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
