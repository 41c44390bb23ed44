package difftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pggate"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/sqlcheck"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// Environment variables of the suite (see doc.go).
const (
	envSeconds  = "RELCHAIN_DIFF_SECONDS"
	envSeed     = "RELCHAIN_DIFF_SEED"
	envCase     = "RELCHAIN_DIFF_CASE"
	envCases    = "RELCHAIN_DIFF_CASES" // at most this many random cases (0: no bound)
	envPG       = "RELCHAIN_DIFF_PG"
	envFindings = "RELCHAIN_DIFF_FINDINGS"
)

// gateEnv is the fixed environment statements are rewritten with: a
// block's time and seed.
var gateEnv = sqlcheck.Env{Time: time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC), Seed: [32]byte{7, 1, 9}}

// spec is one statement of a case.
type spec struct {
	sql   string
	args  []any
	setup bool // the case's later statements depend on it
	// ordered: the corpus says the statement's ORDER BY is total.
	ordered bool
	// read: judged by the gate's read policy (a "-- reads" section).
	read  bool
	where string // file:line, or the generator's seed
}

// diffCase is statements run in order on two fresh engines.
type diffCase struct {
	name  string
	stmts []spec
	// keepGoing: report every discrepancy instead of stopping the case
	// after three (its statements do not build on each other much).
	keepGoing bool
}

// tally counts what a test checked.
type tally struct {
	compared, refused, gateSkipped, unreached, discrepancies int
	// planDependent: differences PostgreSQL's plan decides, confirmed
	// on both engines (plandep_test.go), by reason.
	planDependent int
	planReasons   map[string]int
	refusals      map[string]int // by message
	gateRefusals  map[string]int
	examples      map[string]string // the shortest statement of each message
}

func (t *tally) log(tb testing.TB, what string) {
	tb.Logf("%s: %d statements compared, %d refused by the translator (0A000), %d skipped by the gate, %d not reached (a setup statement was refused, or a plan-dependent write left the engines' states apart), %d plan-dependent (confirmed on both engines), %d discrepancies",
		what, t.compared, t.refused, t.gateSkipped, t.unreached, t.planDependent, t.discrepancies)
	logTop(tb, "plan-dependent", t.planReasons, t.examples)
	logTop(tb, "translator refusals", t.refusals, t.examples)
	logTop(tb, "gate refusals", t.gateRefusals, t.examples)
}

// example keeps the shortest statement refused with msg.
func (t *tally) example(msg, sql string) {
	if old, ok := t.examples[msg]; !ok || len(sql) < len(old) {
		t.examples[msg] = sql
	}
}

// logTop logs the most frequent messages of m, each with its example
// statement when examples has one.
func logTop(tb testing.TB, what string, m map[string]int, examples map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	for i, k := range keys {
		if i == 8 {
			tb.Logf("  %s: ... %d more messages", what, len(keys)-i)
			break
		}
		tb.Logf("  %s: %4d × %s", what, m[k], k)
		if ex := examples[k]; ex != "" {
			tb.Logf("        e.g. %s", firstLine(ex))
		}
	}
}

// harness runs cases on one PostgreSQL database and fresh SQLite
// connections.
type harness struct {
	t       testing.TB
	pg      *pgx.Conn
	types   map[uint32]string
	schemas int
	tally   tally
	// report receives each discrepancy (t.Errorf by default).
	report func(msg string)
	// apart: a write was plan-dependent with one engine failing and the
	// other not, so the engines' states differ from there on and the
	// case's later statements compare nothing (runCase stops).
	apart bool
	// translate is pgdialect.TranslateTyped with the arguments' types as
	// the SQLite backend gives them (argTypes); a test plants another.
	translate func(sql string, cat pgdialect.Catalog, args []any) (*pgdialect.Translation, error)
	// maria is the third column, MariaDB (maria_test.go).
	maria mariaColumn
}

// log logs what the test checked on each column.
func (h *harness) log(tb testing.TB, what string) {
	h.tally.log(tb, what)
	if m := h.maria; m.on {
		m.tally.log(tb, what+", MariaDB against PostgreSQL")
		tb.Logf("the MariaDB column took %s over %d cases (%s opening and dropping their databases)",
			m.spent.Round(time.Millisecond), m.opened, m.opening.Round(time.Millisecond))
	}
}

// newHarness connects to a fresh PostgreSQL database, or skips the test
// when there is no PostgreSQL to compare with.
func newHarness(t *testing.T) *harness {
	t.Helper()
	if os.Getenv(pgtest.EnvDSN) == "" && os.Getenv(envPG) != "private" {
		t.Skipf("%s is unset: the differential suite compares with a real PostgreSQL (set it, or %s=private for a private cluster; make test-dialect-diff does)", pgtest.EnvDSN, envPG)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := pgtest.DSN(t)
	// Opening the PostgreSQL backend once installs relchain's schema, whose
	// functions the gate's rewrites call (relchain.clock_guard,
	// relchain.nextval ...).
	b, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("install relchain's schema: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("close the PostgreSQL backend: %v", err)
	}
	conn, err := connectPG(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	h := &harness{t: t, pg: conn, types: map[uint32]string{}}
	h.tally.refusals, h.tally.gateRefusals, h.tally.examples = map[string]int{}, map[string]int{}, map[string]string{}
	h.tally.planReasons = map[string]int{}
	h.report = func(msg string) { t.Error(msg) }
	h.translate = func(sql string, cat pgdialect.Catalog, args []any) (*pgdialect.Translation, error) {
		return pgdialect.TranslateTyped(sql, cat, argTypes(args))
	}
	return h
}

// runCase runs c on two fresh engines; context is printed with each
// discrepancy (the seed of a random case). It returns the number of
// discrepancies found.
func (h *harness) runCase(c diffCase, context string) int {
	h.schemas++
	pgE, err := newPGEngine(h.pg, fmt.Sprintf("difftest_%d", h.schemas), h.types)
	if err != nil {
		h.t.Fatal(err)
	}
	defer pgE.close()
	lite, err := newLiteEngine()
	if err != nil {
		h.t.Fatal(err)
	}
	defer lite.close()
	h.maria.eng = h.openMaria(c)
	defer h.closeMaria()
	found := 0
	h.apart = false
	for i, s := range c.stmts {
		ok, diff := h.runStatement(c, i, pgE, lite, context)
		if diff {
			found++
		}
		if !ok && (s.setup || h.apart) {
			h.tally.unreached += len(c.stmts) - i - 1
			if !strings.HasPrefix(c.name, "random ") {
				why := "its setup statement %s (refused)"
				if h.apart {
					why = "%s (a plan-dependent write left the engines' states apart)"
				}
				h.t.Logf("case %q stops at "+why+": %s", c.name, s.where, firstLine(s.sql))
			}
			break
		}
		if found == 3 && !c.keepGoing {
			h.tally.unreached += len(c.stmts) - i - 1
			break
		}
	}
	return found + h.checkStorage(c, lite, context)
}

// checkStorage reports, as a discrepancy of the case, every column of
// the SQLite side holding a value of another storage class than its
// type's (storageClass): a slip no single statement's result may show.
func (h *harness) checkStorage(c diffCase, lite *liteEngine, context string) int {
	bad, err := lite.storageViolations()
	if err != nil {
		h.t.Fatalf("case %q: check the stored values' classes: %v", c.name, err)
	}
	for _, b := range bad {
		h.tally.discrepancies++
		msg := fmt.Sprintf("DISCREPANCY in case %q [%s]: stored value classes: %s", c.name, context, b)
		appendFinding(msg)
		h.report(msg)
	}
	return len(bad)
}

// runStatement passes s through the gate and the translator and, if both
// accept it, compares the two engines. ok is false when s did not run.
func (h *harness) runStatement(c diffCase, i int, pgE engine, lite *liteEngine, context string) (ok, diff bool) {
	s := c.stmts[i]
	if !s.read && pgdialect.BeyondGate(s.sql) {
		return h.compare(c, i, pgE, lite, context, translated{sql: s.sql, orig: s.sql, args: s.args, ddl: true})
	}
	text, err := h.gate(s)
	if err != nil {
		h.tally.gateSkipped++
		h.tally.gateRefusals[firstLine(err.Error())]++
		h.tally.example(firstLine(err.Error()), s.sql)
		return false, false
	}
	st := translated{sql: text, orig: s.sql, args: s.args}
	if a, err := pggate.Analyze(s.sql); err == nil {
		st.ddl = a.DDL
	}
	return h.compare(c, i, pgE, lite, context, st)
}

// compare translates a statement the gate accepted and, unless the
// translator refuses it, runs it on both engines and compares them.
func (h *harness) compare(c diffCase, i int, pgE engine, lite *liteEngine, context string, st translated) (ok, diff bool) {
	s, text := c.stmts[i], st.sql
	st.tr, st.err = h.translate(text, lite.cat, s.args)
	var te *pgdialect.Error
	if errors.As(st.err, &te) && te.Code == "0A000" {
		h.tally.refused++
		h.tally.refusals[firstLine(te.Message)]++
		h.tally.example(firstLine(te.Message), text)
		return false, false
	}
	pre := h.insertSelectBefore(st, pgE, lite)
	pgO, liteO := pgE.run(st), lite.run(st)
	h.tally.compared++
	ordered := s.ordered || totalOrder(text, len(pgO.Columns), pgO.Columns)
	comparable := true // PostgreSQL's plan does not decide its outcome
	defer func() { h.mariaStatement(c, i, st, pgO, ordered, comparable && !h.apart) }()
	d := differences(pgO, liteO, ordered)
	if len(d) == 0 && pre != nil && !pgO.failed() {
		return h.written(c, i, st, pre, pgE, lite, context)
	}
	if len(d) == 0 {
		return true, false
	}
	if pe, ok := pgE.(*pgEngine); ok {
		if why := (&prober{pg: pe, lite: lite, h: h, args: st.args}).planDependent(st, pgO, liteO); why != "" {
			kind, _, _ := strings.Cut(why, ":")
			h.tally.planDependent++
			h.tally.planReasons[kind]++
			h.tally.example(kind, s.sql)
			comparable = false
			if pgO.failed() != liteO.failed() && !isSelect(text) {
				// one engine wrote and the other did not
				h.apart = true
				return false, false
			}
			return true, false
		}
	}
	h.tally.discrepancies++
	h.discrepancy(c, i, st, pgO, liteO, d, context)
	return true, true
}

// requireCompared fails a test that compared nothing although the
// translator accepts the simplest statement: the suite must not pass by
// refusing everything once there is a translator.
func (h *harness) requireCompared(t *testing.T) {
	t.Helper()
	lite, err := newLiteEngine()
	if err != nil {
		t.Fatal(err)
	}
	defer lite.close()
	if _, err := pgdialect.Translate("SELECT 1", lite.cat); err != nil {
		t.Logf("the translator refuses SELECT 1 (%v): nothing can be compared yet", err)
		return
	}
	if h.tally.compared == 0 {
		t.Errorf("no statement compared: the translator refused all %d", h.tally.refused)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// discrepancy reports one difference with all a reader needs to replay it.
func (h *harness) discrepancy(c diffCase, i int, st translated, pgO, liteO outcome, d []string, context string) {
	s := c.stmts[i]
	var b strings.Builder
	fmt.Fprintf(&b, "DISCREPANCY in case %q (%s)", c.name, s.where)
	if context != "" && context != s.where {
		fmt.Fprintf(&b, " [%s]", context)
	}
	fmt.Fprintf(&b, "\n  statement: %s", s.sql)
	if st.sql != s.sql {
		fmt.Fprintf(&b, "\n  rewritten: %s", st.sql)
	}
	if len(s.args) > 0 {
		fmt.Fprintf(&b, "\n  args: %s", renderRow(s.args))
	}
	if st.tr != nil {
		fmt.Fprintf(&b, "\n  translation: %q", st.tr.Statements)
	}
	fmt.Fprintf(&b, "\n  differences: %s\n  postgres: %s\n  sqlite:   %s", strings.Join(d, "; "), pgO, liteO)
	fmt.Fprintf(&b, "\n  statements before it in the case (%d):", i)
	for j, p := range c.stmts[:i] {
		if i > 40 && j == 10 {
			fmt.Fprintf(&b, "\n    ... %d more", i-20)
		}
		if i <= 40 || j < 10 || j >= i-10 {
			fmt.Fprintf(&b, "\n    %s", p.sql)
		}
	}
	appendFinding(b.String())
	switch {
	case h.tally.discrepancies <= maxPrinted:
		h.report(b.String())
	case h.tally.discrepancies == maxPrinted+1:
		h.report(fmt.Sprintf("more than %d discrepancies: the rest are counted, not printed (RELCHAIN_DIFF_FINDINGS=<file> keeps them all)", maxPrinted))
	}
}

// maxPrinted bounds the discrepancies a test prints in full.
const maxPrinted = 100

var findingsMu sync.Mutex

// appendFinding appends msg to the file RELCHAIN_DIFF_FINDINGS names.
func appendFinding(msg string) {
	path := os.Getenv(envFindings)
	if path == "" {
		return
	}
	findingsMu.Lock()
	defer findingsMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "\n### %s (difftest)\n```\n%s\n```\n", time.Now().UTC().Format(time.RFC3339), msg)
}

// totalOrder reports whether sql is a SELECT whose top-level ORDER BY
// names every one of its output columns (by position or by name): rows
// it leaves unordered among themselves are then identical, so the order
// of the rows is fixed.
func totalOrder(sql string, ncols int, cols []string) bool {
	res, err := pg_query.Parse(sql)
	if err != nil || len(res.Stmts) != 1 || ncols == 0 {
		return false
	}
	sel := res.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.SortClause) == 0 {
		return false
	}
	covered := make([]bool, ncols)
	for _, n := range sel.SortClause {
		markCovered(n.GetSortBy().GetNode(), cols, covered)
	}
	for _, c := range covered {
		if !c {
			return false
		}
	}
	return true
}

func markCovered(key *pg_query.Node, cols []string, covered []bool) {
	if k := key.GetAConst().GetIval(); k != nil && k.Ival >= 1 && int(k.Ival) <= len(covered) {
		covered[k.Ival-1] = true
		return
	}
	ref := key.GetColumnRef()
	if ref == nil || len(ref.Fields) == 0 {
		return
	}
	name := ref.Fields[len(ref.Fields)-1].GetString_().GetSval()
	for i, c := range cols {
		if c == name && name != "" {
			covered[i] = true
		}
	}
}

// gate is PostgreSQL's gate's verdict on s and the text to translate: the
// block policy's (Check, then Rewrite), or for a statement the corpus
// marks "-- read" the query path's (CheckRead: window functions and WITH
// RECURSIVE, which the block policy refuses, reach the translator there).
func (h *harness) gate(s spec) (string, error) {
	if s.read {
		r, err := pggate.CheckRead(s.sql)
		return r.Text, err
	}
	if err := pggate.Check(s.sql); err != nil {
		return "", err
	}
	text, err := pggate.Rewrite(s.sql, gateEnv)
	if err != nil {
		h.t.Fatalf("%s: pggate.Rewrite of an accepted statement: %v", s.where, err)
	}
	return text, nil
}

// isSelect: sql is one SELECT (no write), as PostgreSQL parses it.
func isSelect(sql string) bool {
	res, err := pg_query.Parse(sql)
	return err == nil && len(res.Stmts) == 1 && res.Stmts[0].Stmt.GetSelectStmt() != nil
}
