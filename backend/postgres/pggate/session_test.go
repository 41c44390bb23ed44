package pggate

import (
	"testing"
	"time"

	"github.com/relchain/relchain/sqlcheck"
)

// The session functions drivers call are answered with the network's
// values, the same text in a block (Rewrite) and on the read path
// (CheckRead), each output column keeping PostgreSQL's name for it.
func TestSessionFunctionsAnswerNetworkValues(t *testing.T) {
	env := sqlcheck.Env{Time: time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)}
	for _, c := range []struct{ sql, want string }{
		{"select current_schema()", `SELECT 'public'::pg_catalog.name AS "current_schema"`},
		{"select pg_catalog.version()", `SELECT '` + Version + `'::pg_catalog.text AS version`},
		{"SELECT version() AS v", `SELECT '` + Version + `'::pg_catalog.text AS v`},
		{"SELECT current_schemas(false), current_schemas(true)",
			`SELECT '{public}'::pg_catalog.name[] AS current_schemas, '{pg_catalog,public}'::pg_catalog.name[] AS current_schemas`},
		{"SELECT pg_backend_pid(), inet_server_addr(), inet_server_port(), pg_is_in_recovery()",
			`SELECT '0'::int AS pg_backend_pid, NULL::pg_catalog.inet AS inet_server_addr, NULL::int AS inet_server_port, 'false'::boolean AS pg_is_in_recovery`},
		{"SELECT 1 AS one WHERE current_schema() = 'public'", `SELECT 1 AS one WHERE 'public'::pg_catalog.name = 'public'`},
	} {
		a, err := Analyze(c.sql)
		if err != nil || !a.UsesEnv {
			t.Fatalf("Analyze(%q) = %+v, %v; want accepted, rewritten", c.sql, a, err)
		}
		got, err := Rewrite(c.sql, env)
		if err != nil || got != c.want {
			t.Errorf("Rewrite(%q) = %q, %v\nwant %q", c.sql, got, err, c.want)
		}
		r, err := CheckRead(c.sql)
		if err != nil || r.Text != c.want {
			t.Errorf("CheckRead(%q) = %q, %v\nwant %q", c.sql, r.Text, err, c.want)
		}
	}
	// The names of the database and the role: the network's in blocks, the
	// node's own on reads (as the catalogs show them).
	for _, c := range []struct{ sql, want string }{
		{"select current_database()", `SELECT 'relchain'::pg_catalog.name AS current_database`},
		{"SELECT current_catalog, current_user, session_user, user",
			`SELECT 'relchain'::pg_catalog.name AS "current_catalog", 'relchain'::pg_catalog.name AS "current_user", 'relchain'::pg_catalog.name AS "session_user", 'relchain'::pg_catalog.name AS "user"`},
	} {
		if got, err := Rewrite(c.sql, env); err != nil || got != c.want {
			t.Errorf("Rewrite(%q) = %q, %v\nwant %q", c.sql, got, err, c.want)
		}
		if r, err := CheckRead(c.sql); err != nil || r.Text != c.sql {
			t.Errorf("CheckRead(%q) = %q, %v; want the text as it is", c.sql, r.Text, err)
		}
	}
	// In DDL the value is written into the definition.
	if got, err := Rewrite("CREATE TABLE u (a text DEFAULT current_user)", env); err != nil || got != `CREATE TABLE u (a text DEFAULT ('relchain'::pg_catalog.name))` {
		t.Errorf("Rewrite(DEFAULT current_user) = %q, %v", got, err)
	}
}
