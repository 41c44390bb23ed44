package postgres_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// deepSum is issue 32's reproduction 3: an expression nested n levels
// deep, (1+1+...+1)::text.
func deepSum(n int) string {
	return "(" + strings.Repeat("1+", n-1) + "1)::text"
}

// stackStatements exceed PostgreSQL's default stack depth (2 MB) when
// they run, built at run time so that no lexical bound can see them: a
// JSON value nested 100,000 deep, one nested 20,000 deep (past the 2 MB
// stack's ~14,500 levels, within 7 MB's), and a regex of 10,000 nested
// groups (2201B "too complex" under 2 MB, compiled under 7 MB). The
// reviewer's own 4,400-level expression is refused by the pre-scan before
// it runs (TestStackDepthExceededIsANodeFault checks that too).
var stackStatements = []string{
	"INSERT INTO big (k, v) VALUES (1, ((lpad('', 100000, '[') || lpad('', 100000, ']'))::jsonb)::text)",
	"INSERT INTO big (k, v) VALUES (2, ((lpad('', 20000, '[') || lpad('', 20000, ']'))::jsonb)::text)",
	"INSERT INTO big (k, v) VALUES (3, ('x' ~ (lpad('', 10000, '(') || 'x' || lpad('', 10000, ')')))::text)",
}

// Issue 32, reproduction 3: where "stack depth limit exceeded" (54001)
// strikes depends on max_stack_depth (a superuser's setting) and on the
// build of PostgreSQL, not on the statement alone: it is a node fault,
// never a tx result that nodes could record differently. (A statement the
// gate's lexical bounds refuse first is fine too: it fails before it
// runs, identically everywhere.)
func TestStackDepthExceededIsANodeFault(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, "CREATE TABLE big (k int PRIMARY KEY, v text)")
	for _, st := range stackStatements {
		blk, err := b.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		_, err = blk.Exec(ctx(t), st, nil)
		be := backend.AsError(err)
		switch {
		case err == nil:
			t.Errorf("%.60s...: succeeded under the default max_stack_depth; want it to exceed it", st)
		case be != nil && be.Class == backend.ClassPermission:
			// The gate's bounds refused it before it ran.
		case be != nil:
			t.Errorf("%.60s...: a tx result %v (class %s, SQLSTATE %s); want a node fault", st, err, be.Class, be.SQLState)
		case !strings.Contains(err.Error(), "54001") && !strings.Contains(err.Error(), "too complex"):
			t.Errorf("%.60s...: node fault %v; want the server's stack depth failure", st, err)
		}
		if err := blk.Rollback(ctx(t)); err != nil {
			t.Fatalf("Rollback after %.60s...: %v", st, err)
		}
	}
	// The reviewer's statement is refused before it runs, by the
	// pre-scan's depth bound: the same failure on every node.
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = blk.Exec(ctx(t), "INSERT INTO big (k, v) VALUES (4, "+deepSum(4400)+")", nil)
	if be := backend.AsError(err); be == nil || !strings.Contains(be.Message, "exceeds relchain's limit of 128") {
		t.Errorf("the 4,400-term expression: %v; want the pre-scan's refusal as a tx result", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// The node goes on.
	block(t, b, 2, "INSERT INTO big (k, v) VALUES (9, 'x')")
}

// Issue 32, reproduction 3: max_stack_depth set for the writer's role
// (ALTER ROLE ... SET, a superuser's; relchain's non-superuser session
// cannot pin it) makes the server differ from the network's profile: the
// backend names the setting, its value and the value expected, and runs
// no block; a genesis that expects that value accepts it.
func TestWriterRoleMaxStackDepthIsRefused(t *testing.T) {
	dsn := pgtest.DSN(t)
	db, err := postgres.DatabaseName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	writer, _ := pgsetup.Roles(db)
	pgtest.Exec(t, fmt.Sprintf("ALTER ROLE %s SET max_stack_depth = '7MB'", pgx.Identifier{writer}.Sanitize()))
	b := mustOpen(t, dsn)
	defer b.Close()
	wantProfileError(t, b.CheckProfile(ctx(t), nil), "max_stack_depth", "7168", "2048")
	_, err = b.Begin(ctx(t))
	wantProfileError(t, err, "max_stack_depth", "7168", "2048")
	if backend.AsError(err) != nil {
		t.Fatalf("Begin's refusal is a statement failure: %v; want a node fault", err)
	}

	// A network whose genesis expects 7 MB runs on it; the reviewer's
	// statement then succeeds here, where a default server fails it:
	// the reason the value belongs to the network's contract.
	if err := b.CheckProfile(ctx(t), map[string]string{"max_stack_depth": "7168"}); err != nil {
		t.Fatalf("a genesis that expects 7168 kB: %v", err)
	}
	block(t, b, 1, "CREATE TABLE big (k int PRIMARY KEY, v text)")
	block(t, b, 2, stackStatements[1], stackStatements[2])

	// Changed back while the node runs (a new session of the role sees
	// it): refused before the next block.
	pgtest.Exec(t, fmt.Sprintf("ALTER ROLE %s RESET max_stack_depth", pgx.Identifier{writer}.Sanitize()))
	pgtest.Exec(t, fmt.Sprintf("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
		quoteLiteral(writer)))
	var pe *backend.ProfileError
	for i := 0; i < 3; i++ { // the first Begin may find the terminated connection
		if _, err = b.Begin(ctx(t)); errors.As(err, &pe) {
			break
		}
	}
	wantProfileError(t, err, "max_stack_depth", "2048", "7168")
	if err := b.CheckProfile(ctx(t), map[string]string{"max_stak_depth": "7168"}); err == nil ||
		!strings.Contains(err.Error(), `unknown setting "max_stak_depth"`) {
		t.Fatalf("an override of an unknown setting: %v; want it refused, naming it", err)
	}
}

// wantProfileError fails t unless err wraps a *backend.ProfileError for
// setting with those values, and says so in its text.
func wantProfileError(t *testing.T, err error, setting, have, want string) {
	t.Helper()
	var pe *backend.ProfileError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v; want a profile error naming %s", err, setting)
	}
	if pe.Setting != setting || pe.Have != have || pe.Want != want {
		t.Fatalf("profile error for %s = %q, want %q; want %s = %q, want %q", pe.Setting, pe.Have, pe.Want, setting, have, want)
	}
	for _, s := range []string{setting, have, want, "Fix:"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not say %q", err, s)
		}
	}
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
