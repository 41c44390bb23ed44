package backendtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/sqlcheck"
)

// Open opens the Backend under test for t.
//
// The first call for a given t opens a fresh, empty database unique to t; a
// later call with the same t, after the Backend returned before was closed,
// reopens that same database (so the suite can check durability). The
// suite closes every Backend it opens: open must not close it itself.
type Open func(t *testing.T) backend.Backend

// Run runs the conformance suite against the backend that open provides,
// in the database's spelling sp.
func Run(t *testing.T, open Open, sp Spelling, opts ...Option) { RunExcept(t, open, sp, nil, opts...) }

// RunExcept is Run without the named tests: for a backend whose gate
// refuses what a test needs (the MySQL gate refuses floating-point
// columns, which ValuesRoundTrip stores); the caller runs them elsewhere
// (without the gate).
func RunExcept(t *testing.T, open Open, sp Spelling, skip []string, opts ...Option) {
	if err := sp.check(); err != nil {
		t.Fatal(err)
	}
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	sub := subject{open: open, sp: sp}
	tests := []struct {
		name string
		fn   func(*testing.T, subject)
	}{
		{"FreshStateIsZero", testFreshStateIsZero},
		{"CommitPersistsDataAndStateAcrossReopen", testCommitPersists},
		{"RollbackDiscardsBlock", testRollbackDiscards},
		{"FailedTxRollsBackToSavepointOnly", testSavepointIsolation},
		{"ErrorClasses", testErrorClasses},
		{"Analyze", testAnalyze},
		{"AnalyzeCountsParams", testAnalyzeCountsParams},
		{"QueryIgnoresOpenBlockAndReportsHeight", testQueryIsolation},
		{"QueryRejectsWrites", testQueryRejectsWrites},
		{"ReturningRows", testReturning},
		{"RowsAffected", testRowsAffected},
		{"ChangeDigestDeterministic", testChangeDigest},
		{"ChangeDigestExcludesRolledBackChanges", testChangeDigestRollback},
		{"BeginWhileOpenFails", testBeginWhileOpen},
		{"ValuesRoundTrip", testValuesRoundTrip},
		{"SystemStateCommitsWithBlockOnly", testSystemState},
	}
	for _, tc := range append(append(append(tests, stateTests...), effectTests...), describeTests...) {
		if slices.Contains(skip, tc.name) {
			continue
		}
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, sub) })
	}
	t.Run("InternalSQLImmuneToUserIdentifiers", func(t *testing.T) { testIdentifiers(t, sub, cfg.restore) })
}

// subject is the backend under test: how to open it and its spelling.
type subject struct {
	open Open
	sp   Spelling
}

// ph returns the placeholder for positional argument n in dialect d, in
// the style package dialect gives it.
func ph(d string, n int) string {
	dl, err := dialect.Lookup(d)
	if err != nil {
		panic(fmt.Sprintf("backendtest: %v", err))
	}
	switch dl.Wire.Placeholders {
	case dialect.PlaceholdersDollar:
		return "$" + strconv.Itoa(n)
	case dialect.PlaceholdersNumbered:
		return "?" + strconv.Itoa(n)
	case dialect.PlaceholdersOrdered:
		return "?"
	}
	panic(fmt.Sprintf("backendtest: dialect %q numbers placeholders as %q", d, dl.Wire.Placeholders))
}

var (
	placeholder = regexp.MustCompile(`\$([0-9]+)`)
	typeName    = regexp.MustCompile(`\{([A-Z]+)\}`)
)

// placeholders turns the suite's $N into dialect d's placeholders.
func placeholders(d, sql string) string {
	return placeholder.ReplaceAllStringFunc(sql, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		return ph(d, n)
	})
}

// q adapts the suite's SQL to the backend under test: $N becomes its
// placeholder and {BLOB}, {DOUBLE}, {FRACTION} its type names.
func (n *node) q(sql string) string {
	return typeName.ReplaceAllStringFunc(placeholders(n.d, sql), func(m string) string {
		if s, ok := n.sp.typeName(m[1 : len(m)-1]); ok {
			return s
		}
		panic(fmt.Sprintf("backendtest: the Spelling of %q names no type %s", n.d, m))
	})
}

// node is a Backend under test with helpers that fail the test on error.
type node struct {
	t *testing.T
	backend.Backend
	d     string
	sp    Spelling
	close func()
}

// mustOpen opens a Backend for t and closes it at the end of the test,
// unless it was closed before.
func mustOpen(t *testing.T, sub subject) *node {
	t.Helper()
	b := sub.open(t)
	if b == nil {
		t.Fatal("open returned a nil Backend")
	}
	var once sync.Once
	n := &node{t: t, Backend: b, d: b.Dialect(), sp: sub.sp}
	n.close = func() {
		once.Do(func() {
			if err := b.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	t.Cleanup(n.close)
	return n
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func (n *node) begin() backend.Block {
	n.t.Helper()
	blk, err := n.Begin(ctx(n.t))
	if err != nil {
		n.t.Fatalf("Begin: %v", err)
	}
	return blk
}

// exec runs sql (in the suite's dialect-neutral form) and fails on error.
func (n *node) exec(blk backend.Block, sql string, args ...any) *backend.Rows {
	n.t.Helper()
	rows, err := blk.Exec(ctx(n.t), n.q(sql), args)
	if err != nil {
		n.t.Fatalf("Exec %q: %v", sql, err)
	}
	return rows
}

// tx runs statements as one bc-transaction: in a savepoint, released on
// success, rolled back to on the first failure, whose error it returns.
func (n *node) tx(blk backend.Block, stmts ...string) error {
	n.t.Helper()
	return n.txAt(blk, 0, stmts...)
}

// txAt is tx for the bc-transaction with index i in its block.
func (n *node) txAt(blk backend.Block, i int, stmts ...string) error {
	n.t.Helper()
	c := ctx(n.t)
	if err := blk.Savepoint(c, sqlcheck.Env{Tx: i}); err != nil {
		n.t.Fatalf("Savepoint: %v", err)
	}
	for _, s := range stmts {
		if _, err := blk.Exec(c, n.q(s), nil); err != nil {
			if backend.AsError(err) == nil {
				n.t.Fatalf("Exec %q: not a statement failure (*backend.Error): %v", s, err)
			}
			if err := blk.RollbackTo(c); err != nil {
				n.t.Fatalf("RollbackTo: %v", err)
			}
			return err
		}
	}
	if err := blk.Release(c); err != nil {
		n.t.Fatalf("Release: %v", err)
	}
	return nil
}

// commit commits blk as the executor does: after ChangeDigest has consumed
// its change records (records left behind would stop the next Begin with
// backend.ErrOutOfBandChange) and StateDigest folded them.
func (n *node) commit(blk backend.Block, height int64) {
	n.t.Helper()
	if _, err := blk.ChangeDigest(ctx(n.t)); err != nil {
		n.t.Fatalf("ChangeDigest of block %d: %v", height, err)
	}
	if _, err := blk.StateDigest(ctx(n.t)); err != nil {
		n.t.Fatalf("StateDigest of block %d: %v", height, err)
	}
	n.commitOnly(blk, height)
}

// commitOnly commits blk as it is (its caller digested it, or means to
// leave change records behind).
func (n *node) commitOnly(blk backend.Block, height int64) {
	n.t.Helper()
	if err := blk.Commit(ctx(n.t), backend.State{Height: height, AppHash: appHash(height)}); err != nil {
		n.t.Fatalf("Commit %d: %v", height, err)
	}
}

func (n *node) digest(blk backend.Block) []byte {
	n.t.Helper()
	d, err := blk.ChangeDigest(ctx(n.t))
	if err != nil {
		n.t.Fatalf("ChangeDigest: %v", err)
	}
	if len(d.Block) == 0 {
		n.t.Fatal("ChangeDigest returned an empty digest")
	}
	return d.Block
}

func (n *node) query(sql string, args ...any) (*backend.Rows, int64) {
	n.t.Helper()
	rows, h, err := n.Query(ctx(n.t), n.q(sql), args)
	if err != nil {
		n.t.Fatalf("Query %q: %v", sql, err)
	}
	return rows, h
}

// ids returns the first column of a query's rows, which must be integers.
func (n *node) ids(sql string) []int64 {
	n.t.Helper()
	rows, _ := n.query(sql)
	out := []int64{}
	for _, r := range rows.Rows {
		v, ok := r[0].(int64)
		if !ok {
			n.t.Fatalf("Query %q: first column is %T, want int64", sql, r[0])
		}
		out = append(out, v)
	}
	return out
}

func appHash(h int64) []byte { return []byte(fmt.Sprintf("apphash-%d", h)) }

const createT = `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`

// setup commits block 1: table t with rows (1,'a') and (2,'b').
func (n *node) setup() {
	n.t.Helper()
	blk := n.begin()
	n.exec(blk, createT)
	n.exec(blk, `INSERT INTO t (id, v) VALUES (1, 'a')`)
	n.exec(blk, `INSERT INTO t (id, v) VALUES (2, 'b')`)
	n.commit(blk, 1)
}

func wantClass(t *testing.T, what string, err error, want backend.Class) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want a %s error", what, want)
	}
	e := backend.AsError(err)
	if e == nil {
		t.Fatalf("%s: error %v is not a *backend.Error", what, err)
	}
	if e.Class != want {
		t.Fatalf("%s: class %s (%v), want %s", what, e.Class, err, want)
	}
}

func testFreshStateIsZero(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	s, err := n.LoadState(ctx(t))
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	if s.Height != 0 || len(s.AppHash) != 0 {
		t.Fatalf("LoadState on a fresh database = %+v, want height 0 and empty AppHash", s)
	}
}

func testCommitPersists(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	blk := n.begin()
	n.exec(blk, createT)
	n.exec(blk, `INSERT INTO t (id, v) VALUES ($1, $2)`, int64(7), "seven")
	n.commit(blk, 1)
	n.close()

	n = mustOpen(t, sub)
	s, err := n.LoadState(ctx(t))
	if err != nil {
		t.Fatalf("LoadState after reopen: %v", err)
	}
	if s.Height != 1 || !bytes.Equal(s.AppHash, appHash(1)) {
		t.Fatalf("LoadState after reopen = {%d %q}, want {1 %q}", s.Height, s.AppHash, appHash(1))
	}
	rows, h := n.query(`SELECT id, v FROM t`)
	if h != 1 {
		t.Errorf("Query height = %d, want 1", h)
	}
	want := [][]any{{int64(7), "seven"}}
	if !reflect.DeepEqual(rows.Rows, want) {
		t.Fatalf("rows after reopen = %#v, want %#v", rows.Rows, want)
	}

	// The next block commits on top.
	blk = n.begin()
	n.exec(blk, `INSERT INTO t (id, v) VALUES (8, 'eight')`)
	n.commit(blk, 2)
	if s, _ := n.LoadState(ctx(t)); s.Height != 2 {
		t.Fatalf("LoadState after block 2: height %d, want 2", s.Height)
	}
}

func testRollbackDiscards(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	blk := n.begin()
	n.exec(blk, `INSERT INTO t (id, v) VALUES (3, 'c')`)
	n.exec(blk, `DELETE FROM t WHERE id = 1`)
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if got := n.ids(`SELECT id FROM t ORDER BY id`); !reflect.DeepEqual(got, []int64{1, 2}) {
		t.Fatalf("ids after Rollback = %v, want [1 2]", got)
	}
	if s, _ := n.LoadState(ctx(t)); s.Height != 1 {
		t.Fatalf("height after Rollback = %d, want 1", s.Height)
	}
	// A new block can begin after a rollback.
	blk = n.begin()
	n.exec(blk, `INSERT INTO t (id, v) VALUES (3, 'c')`)
	n.commit(blk, 2)
	if got := n.ids(`SELECT id FROM t ORDER BY id`); !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf("ids after block 2 = %v, want [1 2 3]", got)
	}
}

func testSavepointIsolation(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	blk := n.begin()
	n.exec(blk, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`)
	if err := n.tx(blk, `INSERT INTO t (id, v) VALUES (1, 'tx1')`); err != nil {
		t.Fatalf("tx 1: %v", err)
	}
	err := n.tx(blk,
		`INSERT INTO t (id, v) VALUES (2, 'tx2')`, // succeeds, then is undone
		`INSERT INTO t (id, v) VALUES (1, 'dup')`) // fails
	wantClass(t, "tx 2 (duplicate key)", err, backend.ClassConstraint)
	if err := n.tx(blk, `INSERT INTO t (id, v) VALUES (3, 'tx3')`); err != nil {
		t.Fatalf("tx 3: %v", err)
	}
	n.commit(blk, 1)
	rows, _ := n.query(`SELECT id, v FROM t ORDER BY id`)
	want := [][]any{{int64(1), "tx1"}, {int64(3), "tx3"}}
	if !reflect.DeepEqual(rows.Rows, want) {
		t.Fatalf("rows = %#v, want %#v", rows.Rows, want)
	}
}

func testErrorClasses(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	c := ctx(t)
	wantClass(t, "Analyze of SELEC", analyzeErr(n.Gate().Analyze(c, "SELEC 1")), backend.ClassSyntax)

	blk := n.begin()
	defer blk.Rollback(c)
	wantClass(t, "INSERT into a missing table", n.tx(blk, `INSERT INTO missing (id) VALUES (1)`), backend.ClassUndefined)
	wantClass(t, "SELECT of a missing column", n.tx(blk, `SELECT nope FROM t`), backend.ClassUndefined)
	wantClass(t, "duplicate primary key", n.tx(blk, `INSERT INTO t (id, v) VALUES (1, 'x')`), backend.ClassConstraint)
	nn := []string{`CREATE TABLE nn (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`, `INSERT INTO nn (id, v) VALUES (1, NULL)`}
	if !n.Capabilities().TransactionalDDL {
		// Without transactional DDL (MySQL) a bc-transaction with DDL
		// is that statement alone (see backend.Block).
		if err := n.tx(blk, nn[0]); err != nil {
			t.Fatalf("CREATE TABLE nn: %v", err)
		}
		nn = nn[1:]
	}
	wantClass(t, "NOT NULL", n.tx(blk, nn...), backend.ClassConstraint)
	wantClass(t, "CREATE TABLE that exists", n.tx(blk, createT), backend.ClassDuplicate)
	// The block is still usable after the failures.
	if err := n.tx(blk, `INSERT INTO t (id, v) VALUES (3, 'c')`); err != nil {
		t.Fatalf("tx after failures: %v", err)
	}
}

func analyzeErr(_ sqlcheck.Analysis, err error) error { return err }

func testAnalyze(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	c := ctx(t)
	for _, ok := range []string{
		`SELECT 1`,
		`SELECT * FROM no_such_table`, // schema errors are not syntax errors
		`INSERT INTO no_such_table (a) VALUES (1)`,
		`SELECT 1;`, // one statement with its terminator
		n.q(`UPDATE t SET v = $1 WHERE id = $2`),
	} {
		if _, err := n.Gate().Analyze(c, ok); err != nil {
			t.Errorf("Analyze(%q) = %v, want nil", ok, err)
		}
	}
	wantClass(t, "two statements", analyzeErr(n.Gate().Analyze(c, `SELECT 1; SELECT 2`)), backend.ClassInvalid)
	wantClass(t, "empty text", analyzeErr(n.Gate().Analyze(c, ``)), backend.ClassInvalid)
	wantClass(t, "blank text", analyzeErr(n.Gate().Analyze(c, "  \n ")), backend.ClassInvalid)
	wantClass(t, "garbage", analyzeErr(n.Gate().Analyze(c, `INSERT INTO VALUES`)), backend.ClassSyntax)
	// Verdicts are stable (a cache must not change them).
	wantClass(t, "two statements again", analyzeErr(n.Gate().Analyze(c, `SELECT 1; SELECT 2`)), backend.ClassInvalid)
	wantClass(t, "SELEC again", analyzeErr(n.Gate().Analyze(c, `SELEC 1`)), backend.ClassSyntax)
	wantClass(t, "SELEC again", analyzeErr(n.Gate().Analyze(c, `SELEC 1`)), backend.ClassSyntax)
	// The gate refuses what would make nodes differ, naming it.
	wantClass(t, "a refused statement", analyzeErr(n.Gate().Analyze(c, n.sp.Refused)), backend.ClassPermission)

	// What a statement does, on committed state and in the block.
	cases := []struct {
		sql  string
		want sqlcheck.Analysis
	}{
		{`SELECT v FROM t WHERE id = 1`, sqlcheck.Analysis{}},
		{`INSERT INTO t (id, v) VALUES (9, 'x')`, sqlcheck.Analysis{Writes: []string{"t"}}},
		{`UPDATE T SET v = 'y' WHERE id = 1`, sqlcheck.Analysis{Writes: []string{"t"}}},
		{`DELETE FROM t WHERE id IN (SELECT id FROM t WHERE v = 'a')`, sqlcheck.Analysis{Writes: []string{"t"}}},
		{`CREATE TABLE u (id INTEGER PRIMARY KEY)`, sqlcheck.Analysis{DDL: true}},
		{`CREATE INDEX t_v ON t (v)`, sqlcheck.Analysis{DDL: true}},
		{`DROP TABLE t`, sqlcheck.Analysis{DDL: true}},
	}
	for _, tc := range cases {
		got, err := n.Gate().Analyze(c, tc.sql)
		if err != nil || !reflect.DeepEqual(normalize(got), tc.want) {
			t.Errorf("Analyze(%q) = %+v, %v; want %+v", tc.sql, got, err, tc.want)
		}
	}
	blk := n.begin()
	defer blk.Rollback(c)
	if err := n.tx(blk, `CREATE TABLE fresh (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatalf("create table in block: %v", err)
	}
	got, err := n.Gate().AnalyzeInBlock(c, blk, `INSERT INTO fresh (id) VALUES (1)`)
	if err != nil || !reflect.DeepEqual(normalize(got), sqlcheck.Analysis{Writes: []string{"fresh"}}) {
		t.Errorf("Block.Analyze of an insert into a table created in the block = %+v, %v", got, err)
	}
	for _, tc := range cases[:len(cases)-1] {
		got, err := n.Gate().AnalyzeInBlock(c, blk, tc.sql)
		if err != nil || !reflect.DeepEqual(normalize(got), tc.want) {
			t.Errorf("Block.Analyze(%q) = %+v, %v; want %+v", tc.sql, got, err, tc.want)
		}
	}
	_, err = n.Gate().AnalyzeInBlock(c, blk, n.sp.Refused)
	wantClass(t, "Block.Analyze of a refused statement", err, backend.ClassPermission)
}

// normalize makes an empty Writes nil, so analyses compare with DeepEqual.
func normalize(a sqlcheck.Analysis) sqlcheck.Analysis {
	if len(a.Writes) == 0 {
		a.Writes = nil
	}
	return a
}

func testQueryIsolation(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	blk := n.begin()
	n.exec(blk, `INSERT INTO t (id, v) VALUES (3, 'c')`)
	n.exec(blk, `DELETE FROM t WHERE id = 1`)

	rows, h := n.query(`SELECT id FROM t ORDER BY id`)
	if h != 1 {
		t.Errorf("Query height during block 2 = %d, want 1", h)
	}
	if len(rows.Rows) != 2 || rows.Rows[0][0] != int64(1) || rows.Rows[1][0] != int64(2) {
		t.Fatalf("Query during block 2 = %v, want ids [1 2] (committed state only)", rows.Rows)
	}
	n.commit(blk, 2)
	rows, h = n.query(`SELECT id FROM t ORDER BY id`)
	if h != 2 {
		t.Errorf("Query height after block 2 = %d, want 2", h)
	}
	if got := n.ids(`SELECT id FROM t ORDER BY id`); !reflect.DeepEqual(got, []int64{2, 3}) {
		t.Fatalf("ids after block 2 = %v, want [2 3]", got)
	}
	if rows.Columns[0] != "id" {
		t.Errorf("columns = %v, want [id]", rows.Columns)
	}

	// A query on a fresh database reports height 0.
	t.Run("fresh", func(t *testing.T) {
		n := mustOpen(t, sub)
		if _, h := n.query(`SELECT 1`); h != 0 {
			t.Errorf("Query height on a fresh database = %d, want 0", h)
		}
	})
}

func testQueryRejectsWrites(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	c := ctx(t)
	for _, w := range []string{
		`INSERT INTO t (id, v) VALUES (9, 'z')`,
		`UPDATE t SET v = 'z'`,
		`DELETE FROM t`,
		`CREATE TABLE u (id INTEGER PRIMARY KEY)`,
	} {
		if _, _, err := n.Query(c, n.q(w), nil); err == nil {
			t.Errorf("Query(%q) succeeded, want it rejected", w)
		}
	}
	if got := n.ids(`SELECT id FROM t ORDER BY id`); !reflect.DeepEqual(got, []int64{1, 2}) {
		t.Fatalf("ids = %v after rejected writes, want [1 2]", got)
	}
}

func testReturning(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	blk := n.begin()
	defer blk.Rollback(ctx(t))
	rows := n.exec(blk, `INSERT INTO t (id, v) VALUES ($1, $2) RETURNING id, v`, int64(5), "e")
	if !reflect.DeepEqual(rows.Columns, []string{"id", "v"}) {
		t.Errorf("RETURNING columns = %v, want [id v]", rows.Columns)
	}
	if want := [][]any{{int64(5), "e"}}; !reflect.DeepEqual(rows.Rows, want) {
		t.Errorf("RETURNING rows = %#v, want %#v", rows.Rows, want)
	}
	if n.sp.NoUpdateReturning {
		// MariaDB has INSERT/DELETE ... RETURNING but no UPDATE ...
		// RETURNING (and MySQL 8 none): the statement fails to parse.
		_, err := blk.Exec(ctx(t), `UPDATE t SET v = 'z' WHERE id >= 2 RETURNING id`, nil)
		wantClass(t, "UPDATE ... RETURNING where the Spelling says it fails", err, backend.ClassSyntax)
		rows = n.exec(blk, `DELETE FROM t WHERE id >= 2 RETURNING id`)
	} else {
		rows = n.exec(blk, `UPDATE t SET v = 'z' WHERE id >= 2 RETURNING id`)
	}
	var got []int64
	for _, r := range rows.Rows {
		got = append(got, r[0].(int64))
	}
	if len(got) != 2 {
		t.Errorf("UPDATE (or DELETE, without UPDATE ... RETURNING) ... RETURNING rows = %v, want 2 rows", rows.Rows)
	}
}

func testRowsAffected(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	blk := n.begin()
	defer blk.Rollback(ctx(t))
	for _, tc := range []struct {
		sql  string
		want int64
	}{
		{`INSERT INTO t (id, v) VALUES (3, 'c')`, 1},
		{`UPDATE t SET v = 'x' WHERE id >= 2`, 2},
		{`UPDATE t SET v = 'x' WHERE id > 100`, 0},
		{`DELETE FROM t WHERE id <> 2`, 2},
	} {
		if got := n.exec(blk, tc.sql).RowsAffected; got != tc.want {
			t.Errorf("%s: RowsAffected = %d, want %d", tc.sql, got, tc.want)
		}
	}
}

// digestRun runs the blocks on a fresh backend and returns the digest of
// each block. A statement starting with "!" is expected to fail, and
// ends its bc-transaction.
func digestRun(t *testing.T, sub subject, blocks [][][]string) [][]byte {
	t.Helper()
	var out [][]byte
	t.Run(fmt.Sprintf("node%d", len(blocks)), func(t *testing.T) {
		n := mustOpen(t, sub)
		for h, txs := range blocks {
			blk := n.begin()
			for _, stmts := range txs {
				err := n.tx(blk, stmts...)
				if err != nil && !expectFail(stmts) {
					t.Fatalf("tx %v: %v", stmts, err)
				}
				if err == nil && expectFail(stmts) {
					t.Fatalf("tx %v succeeded, want a failure", stmts)
				}
			}
			out = append(out, n.digest(blk))
			n.commit(blk, int64(h+1))
		}
	})
	if len(out) != len(blocks) {
		t.FailNow()
	}
	return out
}

// expectFail reports whether a tx's statements are marked to fail: the
// suite marks them by a trailing "-- fails" comment on the last statement.
func expectFail(stmts []string) bool {
	return len(stmts) > 0 && strings.HasSuffix(stmts[len(stmts)-1], "-- fails")
}

func testChangeDigest(t *testing.T, sub subject) {
	schema := [][]string{{createT}, {`INSERT INTO t (id, v) VALUES (1, 'a')`, `INSERT INTO t (id, v) VALUES (2, 'b')`}}
	same := [][][]string{
		schema,
		{{`UPDATE t SET v = 'c' WHERE id = 1`}, {`DELETE FROM t WHERE id = 2`}, {`INSERT INTO t (id, v) VALUES (3, 'd')`}},
		{}, // a block without changes
	}
	a := digestRun(t, sub, same)
	b := digestRun(t, sub, same)
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("block %d: digests differ between two backends running the same statements: %x vs %x", i+1, a[i], b[i])
		}
	}
	if bytes.Equal(a[1], a[2]) {
		t.Fatal("a block with changes has the digest of a block without")
	}

	other := [][][]string{
		schema,
		{{`UPDATE t SET v = 'C' WHERE id = 1`}, {`DELETE FROM t WHERE id = 2`}, {`INSERT INTO t (id, v) VALUES (3, 'd')`}},
		{},
	}
	c := digestRun(t, sub, other)
	if !bytes.Equal(a[0], c[0]) {
		t.Fatalf("block 1: digests differ for the same statements")
	}
	if bytes.Equal(a[1], c[1]) {
		t.Fatalf("block 2: digest is the same although one update wrote 'c' and the other 'C'")
	}
	if !bytes.Equal(a[2], c[2]) {
		t.Fatalf("block 3: empty blocks have different digests: %x vs %x", a[2], c[2])
	}
}

func testChangeDigestRollback(t *testing.T, sub subject) {
	ok := []string{`INSERT INTO t (id, v) VALUES (1, 'a')`}
	failed := []string{`INSERT INTO t (id, v) VALUES (2, 'b')`, `INSERT INTO t (id, v) VALUES (1, 'dup') -- fails`}
	a := digestRun(t, sub, [][][]string{{{createT}}, {ok, failed}})
	b := digestRun(t, sub, [][][]string{{{createT}}, {ok}})
	if !bytes.Equal(a[1], b[1]) {
		t.Fatalf("digest of [ok, failed] = %x, digest of [ok] = %x; a tx rolled back to its savepoint must leave no trace", a[1], b[1])
	}

	// ChangeDigest resets: a second call in the same block sees nothing new.
	n := mustOpen(t, sub)
	blk := n.begin()
	defer blk.Rollback(ctx(t))
	n.exec(blk, createT)
	n.exec(blk, `INSERT INTO t (id, v) VALUES (1, 'a')`)
	first := n.digest(blk)
	second := n.digest(blk)
	n.exec(blk, `INSERT INTO t (id, v) VALUES (2, 'b')`)
	third := n.digest(blk)
	if bytes.Equal(first, second) {
		t.Error("second ChangeDigest equals the first: it did not reset")
	}
	if bytes.Equal(second, third) {
		t.Error("ChangeDigest after a new change equals the empty digest")
	}
}

func testBeginWhileOpen(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	blk := n.begin()
	if _, err := n.Begin(ctx(t)); !errors.Is(err, backend.ErrBlockOpen) {
		t.Fatalf("second Begin = %v, want backend.ErrBlockOpen", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	blk = n.begin()
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
}

func testValuesRoundTrip(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	blk := n.begin()
	n.exec(blk, `CREATE TABLE vals (id INTEGER PRIMARY KEY, i BIGINT, f {DOUBLE}, s TEXT, b {BLOB}, z TEXT)`)
	in := [][]any{
		{int64(1), int64(-42), 1.5, "héllo, wörld", []byte{0, 1, 2, 0xff}, nil},
		{int64(2), int64(1) << 40, 0.1, "", []byte("x"), nil},
		{int64(3), nil, nil, nil, nil, nil},
	}
	for _, r := range in {
		n.exec(blk, `INSERT INTO vals (id, i, f, s, b, z) VALUES ($1, $2, $3, $4, $5, $6)`, r...)
	}
	sel := `SELECT id, i, f, s, b, z FROM vals ORDER BY id`
	check := func(where string, rows *backend.Rows) {
		t.Helper()
		if !reflect.DeepEqual(rows.Columns, []string{"id", "i", "f", "s", "b", "z"}) {
			t.Errorf("%s: columns = %v", where, rows.Columns)
		}
		if !reflect.DeepEqual(rows.Rows, in) {
			t.Errorf("%s: rows =\n%#v\nwant\n%#v", where, rows.Rows, in)
		}
	}
	check("Exec in block", n.exec(blk, sel))
	n.commit(blk, 1)
	rows, _ := n.query(sel)
	check("Query", rows)

	rows, _ = n.query(`SELECT 1 + 1, 'text', 2.5 * 2`)
	want := []any{int64(2), "text"}
	if len(rows.Rows) != 1 || !reflect.DeepEqual(rows.Rows[0][:2], want) {
		t.Errorf("SELECT of literals = %#v, want %#v first", rows.Rows, want)
	}
	rows, _ = n.query(`SELECT id FROM vals WHERE i = $1 AND s = $2`, int64(-42), "héllo, wörld")
	if len(rows.Rows) != 1 || rows.Rows[0][0] != int64(1) {
		t.Errorf("Query with arguments = %#v, want id 1", rows.Rows)
	}
}

// System state is written in the block's db-transaction: committed with it,
// gone with a rolled-back block, deleted by a nil value, and still there
// after a reopen.
func testSystemState(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	blk := n.begin()
	if err := blk.SaveSystem(ctx(t), map[string][]byte{"key-b": []byte("b1"), "key-a": []byte("a1"), "key-d": []byte("d1")}); err != nil {
		t.Fatalf("SaveSystem: %v", err)
	}
	if got, err := n.LoadSystem(ctx(t)); err != nil || len(got) != 0 {
		t.Fatalf("system state visible before commit: %v (%v)", got, err)
	}
	n.commit(blk, 1)
	blk = n.begin()
	if err := blk.SaveSystem(ctx(t), map[string][]byte{"key-a": []byte("a2"), "key-c": []byte("c1")}); err != nil {
		t.Fatalf("SaveSystem: %v", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	blk = n.begin()
	if err := blk.SaveSystem(ctx(t), map[string][]byte{"key-a": []byte("a3"), "key-d": nil, "key-e": nil}); err != nil {
		t.Fatalf("SaveSystem: %v", err)
	}
	n.commit(blk, 2)
	n.close()
	n = mustOpen(t, sub)
	got, err := n.LoadSystem(ctx(t))
	want := map[string][]byte{"key-a": []byte("a3"), "key-b": []byte("b1")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("system state after reopen = %q (%v), want %q", got, err, want)
	}
}
