package readmegate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	mysqlgate "github.com/relchain/relchain/backend/mysql/mysqlgate"
	pggate "github.com/relchain/relchain/backend/postgres/pggate"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck"
)

// vocabulary lists the constructs the bullets name in plain words (the
// code spans and upper-case keywords are found by pattern).
var vocabulary = []string{
	"joins", "subqueries", "CTEs", "SQLite triggers", "PostgreSQL functions", "procedures",
	"system columns", "dblink", "advisory locks", "roles", "grants", "databases", "extensions",
	"system catalogs", "relchain's own tables", "cartesian joins",
}

// notConstructs are upper-case words of the bullets that name no construct.
var notConstructs = []string{"SQL", "PL", "MySQL"}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	keywords = regexp.MustCompile(`\b[A-Z]{2,}(?:[ /][A-Z]{2,})*\b`)
)

// gateSections are the headings of docs/sql.md whose text lists the
// constructs the gates allow, rewrite and refuse.
var gateSections = []string{"## What the gate allows", "## What the gate rewrites", "## What the gate refuses"}

// readmeBullets returns the text of docs/sql.md's sections "What the gate
// allows", "What the gate rewrites" and "What the gate refuses", each up to
// its first subheading (the aggregates and bounds that follow are checked by
// the gates' own tests).
func readmeBullets(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "sql.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range gateSections {
		_, section, ok := strings.Cut(string(b), "\n"+h+"\n")
		if !ok {
			t.Fatalf("docs/sql.md has no section %q", h)
		}
		n := len(out)
		for _, line := range strings.Split(section, "\n") {
			if strings.HasPrefix(line, "#") {
				break
			}
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
		if len(out) == n {
			t.Fatalf("docs/sql.md: section %q is empty", h)
		}
	}
	return strings.Join(out, " ")
}

// readmePhrases are the constructs the bullets name: code spans, runs of
// upper-case keywords, and the vocabulary words they contain.
func readmePhrases(text string) []string {
	var ps []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		ps = append(ps, m[1])
	}
	plain := strings.ReplaceAll(codeSpan.ReplaceAllString(text, " "), "**", "")
	for _, k := range keywords.FindAllString(plain, -1) {
		if !slices.Contains(notConstructs, k) {
			ps = append(ps, k)
		}
	}
	for _, w := range vocabulary {
		if strings.Contains(plain, w) {
			ps = append(ps, w)
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

// Every construct docs/sql.md's gate sections name has a statement in rows,
// every row illustrates a construct docs/sql.md names, and each dialect's gate
// gives each statement the verdict docs/sql.md promises.
func TestReadmeAndGatesAgree(t *testing.T) {
	phrases := readmePhrases(readmeBullets(t))
	covered := map[string]bool{}
	for _, r := range rows {
		for _, p := range r.phrases {
			covered[p] = true
			if !slices.Contains(phrases, p) {
				t.Errorf("a statement illustrates %q, which docs/sql.md's gate sections do not name (docs/sql.md and this table disagree)", p)
			}
		}
	}
	for _, p := range phrases {
		if !covered[p] {
			t.Errorf("docs/sql.md's gate sections name %q, but no statement here illustrates it", p)
		}
	}
	gates := map[string]func(t *testing.T, sql string) (sqlcheck.Analysis, error, bool){
		"sqlite":   sqliteGate(t),
		"postgres": pureGate(pggate.Analyze),
		"mysql":    pureGate(mysqlgate.Analyze),
	}
	for _, r := range rows {
		for _, d := range []struct{ dialect, sql string }{{"sqlite", r.sqlite}, {"postgres", r.postgres}, {"mysql", r.mysql}} {
			if d.sql == "" {
				continue
			}
			a, err, parsed := gates[d.dialect](t, d.sql)
			if msg := judge(r.want, d.dialect, a, err, parsed); msg != "" {
				t.Errorf("%s %q (docs/sql.md: %s): %s", d.dialect, d.sql, strings.Join(r.phrases, ", "), msg)
			}
		}
	}
}

// judge compares a gate's answer with the promised verdict ("" if they
// agree). parsed is false when the gate could not parse the statement (no
// verdict at all).
func judge(want verdict, dialect string, a sqlcheck.Analysis, err error, parsed bool) string {
	switch {
	case !parsed:
		return "the gate cannot parse it: " + err.Error()
	case want == refuse && err == nil:
		return "docs/sql.md says refused; the gate allows it"
	case want != refuse && err != nil:
		return "docs/sql.md says allowed; the gate refuses it: " + err.Error()
	case want == rewrite && dialect == "postgres" && !a.UsesEnv:
		return "docs/sql.md says rewritten to the block's time or seed; the gate does not rewrite it"
	}
	return ""
}

// pureGate adapts a dialect's text-only gate.
func pureGate(analyze func(string) (sqlcheck.Analysis, error)) func(*testing.T, string) (sqlcheck.Analysis, error, bool) {
	return func(_ *testing.T, sql string) (sqlcheck.Analysis, error, bool) {
		a, err := analyze(sql)
		return a, err, !errors.Is(err, sqlcheck.ErrUnparseable)
	}
}

// sqliteGate is the SQLite backend's Analyze (CheckTx's verdict) on a
// database with the tables t and u.
func sqliteGate(t *testing.T) func(*testing.T, string) (sqlcheck.Analysis, error, bool) {
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, n INTEGER)",
		"CREATE TABLE u (id INTEGER PRIMARY KEY, v TEXT)",
		// A table without INTEGER PRIMARY KEY: its rowids are node-local
		// after a VACUUM, so the gate refuses them.
		"CREATE TABLE k (name TEXT PRIMARY KEY, v TEXT)",
	} {
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T, sql string) (sqlcheck.Analysis, error, bool) {
		a, err := b.Gate().Analyze(ctx, sql)
		if err == nil {
			// A function relchain's SQLite build lacks (load_extension)
			// has no verdict at CheckTx and cannot run in a block.
			if err := execRolledBack(ctx, b, sql); isAbsentFunction(err) {
				return a, err, true
			}
			return a, nil, true
		}
		be := backend.AsError(err)
		if be == nil {
			t.Fatalf("sqlite Analyze(%q): not a verdict: %v", sql, err)
		}
		return a, err, be.Class == backend.ClassPermission
	}
}

// execRolledBack runs sql in a block that is rolled back.
func execRolledBack(ctx context.Context, b backend.Backend, sql string) error {
	blk, err := b.Begin(ctx)
	if err != nil {
		return err
	}
	defer blk.Rollback(ctx)
	if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
		return err
	}
	_, err = blk.Exec(ctx, sql, nil)
	return err
}

// isAbsentFunction reports a statement failure naming a function that does
// not exist.
func isAbsentFunction(err error) bool {
	be := backend.AsError(err)
	return be != nil && be.Class == backend.ClassUndefined && strings.Contains(be.Message, "no such function")
}
