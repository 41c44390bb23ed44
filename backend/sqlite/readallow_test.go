package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
)

// readRefused requires Query to refuse q as the read policy does: a
// permission error (42501) whose message names want and says why.
func readRefused(t *testing.T, b backend.Backend, q, want, why string) {
	t.Helper()
	rows, _, err := b.Query(context.Background(), q, nil)
	e := backend.AsError(err)
	if e == nil || e.Class != backend.ClassPermission || e.SQLState != "42501" {
		t.Errorf("Query(%q) = %v, %v; want the read policy's refusal (42501)", q, rows, err)
		return
	}
	if msg := strings.ToLower(e.Message); !strings.Contains(msg, strings.ToLower(want)) || !strings.Contains(msg, why) {
		t.Errorf("Query(%q) = %v; want a refusal naming %s and %q", q, err, want, why)
	}
}

// The read path (abci_query, no key) is an allowlist on SQLite too:
// SQLite's internal tables but the schema table, the pragmas and virtual
// tables not on the list and the functions that report the SQLite build or
// connection state are refused, named; the client's tables and views,
// sqlite_schema (the gateway's hint for listing tables), json_each,
// json_tree, generate_series and the pragmas that describe one of the
// client's tables answer.
func TestReadAllowlistOnSQLite(t *testing.T) {
	b := openGateDB(t)
	defer b.Close()
	const allowlist = "not on relchain's read allowlist"
	for _, c := range []struct{ sql, names, why string }{
		{`SELECT name FROM sqlite_temp_schema`, "sqlite_temp_master", allowlist},
		{`SELECT * FROM sqlite_sequence`, "sqlite_sequence", allowlist},
		{`SELECT ai.v FROM ai JOIN sqlite_sequence s ON s.name = 'ai'`, "sqlite_sequence", allowlist},
		{`SELECT * FROM pragma_database_list`, "pragma_database_list", allowlist},
		{`SELECT * FROM pragma_compile_options`, "pragma_compile_options", allowlist},
		{`SELECT * FROM pragma_function_list`, "pragma_function_list", allowlist},
		{`SELECT * FROM pragma_table_list`, "pragma_table_list", allowlist},
		{`SELECT sqlite_version()`, "sqlite_version", allowlist},
		{`SELECT sqlite_source_id()`, "sqlite_source_id", allowlist},
		{`SELECT sqlite_compileoption_get(0)`, "sqlite_compileoption_get", allowlist},
		{`SELECT sqlite_compileoption_used('THREADSAFE')`, "sqlite_compileoption_used", allowlist},
		{`SELECT changes(), total_changes()`, "changes", allowlist},
		{`SELECT last_insert_rowid()`, "last_insert_rowid", allowlist},
		{`SELECT * FROM relchain_meta`, "relchain_meta", "relchain's own"},
		{`SELECT count(*) FROM RELCHAIN_SYSTEM`, "relchain_system", "relchain's own"},
		{`INSERT INTO t (id, v) VALUES (99, 'x')`, "t", "read-only"},
		{`ATTACH ':memory:' AS x`, "attach", "read path"},
	} {
		readRefused(t, b, c.sql, c.names, c.why)
	}
	for _, q := range []string{
		`SELECT id, v FROM t ORDER BY id`, `SELECT * FROM ok_v`, `SELECT value FROM json_each('[1,2]')`,
		`SELECT key FROM json_tree('{"a":1}')`, `SELECT value FROM generate_series(1, 3)`,
		`SELECT name, type FROM pragma_table_info('t')`, `SELECT name FROM pragma_table_xinfo('acct')`,
		`SELECT name FROM pragma_index_list('t')`, `SELECT name FROM pragma_index_info('t_n')`,
		`SELECT * FROM pragma_foreign_key_list('t')`, `SELECT random(), datetime('now'), abs(-1), json_array(1)`,
		`SELECT name, sql FROM sqlite_schema WHERE type = 'table'`, `SELECT name FROM main.sqlite_master`,
		`WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r`,
	} {
		if _, _, err := b.Query(context.Background(), q, nil); err != nil {
			t.Errorf("Query(%q) = %v", q, err)
		}
	}
	// The pragmas on the list describe no table of relchain's.
	for _, q := range []string{`SELECT name FROM pragma_table_info('relchain_meta')`, `SELECT name FROM pragma_index_list('RELCHAIN_system')`,
		`SELECT name FROM pragma_table_info((SELECT 'relchain' || '_meta'))`, `SELECT p.name FROM t, pragma_table_xinfo('relchain_' || t.v) p`} {
		for i := 0; i < 2; i++ { // compiled, then from the read cache
			readRefused(t, b, q, "relchain_", "relchain's own")
		}
	}
}

// Every pragma, eponymous virtual table and function of the SQLite build
// relchain carries is either on the read allowlist or refused: one a later
// SQLite release adds is refused until someone decides it is safe.
func TestReadAllowlistCoversEveryPragmaModuleAndFunction(t *testing.T) {
	b := openGateDB(t)
	defer b.Close()
	raw, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	list := func(q string) []string {
		st, _, err := raw.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var out []string
		for st.Step() {
			out = append(out, st.ColumnText(0))
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	allowedPragmas := map[string]bool{"table_info": true, "table_xinfo": true, "index_list": true, "index_info": true, "index_xinfo": true, "foreign_key_list": true}
	pragmas := list(`SELECT name FROM pragma_pragma_list ORDER BY name`)
	for _, p := range pragmas {
		q := fmt.Sprintf(`SELECT * FROM pragma_%s('t')`, p)
		_, _, err := b.Query(context.Background(), q, nil)
		e := backend.AsError(err)
		switch {
		case allowedPragmas[p] && e != nil && e.Class == backend.ClassPermission:
			t.Errorf("Query(%q) = %v; it is on the read allowlist", q, err)
		case !allowedPragmas[p] && (e == nil || (e.Class != backend.ClassPermission && e.Class != backend.ClassUndefined)):
			// Undefined: SQLite has no table-valued function for it.
			t.Errorf("Query(%q) = %v; want a permission refusal (not on the read allowlist)", q, err)
		}
	}
	allowedModules := map[string]bool{"json_each": true, "json_tree": true, "generate_series": true}
	modules := list(`SELECT name FROM pragma_module_list WHERE name NOT LIKE 'pragma_%' ORDER BY name`)
	// With the modules relchain's build or a later one may add.
	modules = append(modules, "json_each", "json_tree", "generate_series", "series", "dbstat", "sqlite_dbpage",
		"sqlite_stmt", "bytecode", "tables_used", "carray", "completion", "fts3", "fts4", "fts5", "rtree", "csv")
	for _, m := range modules {
		q := fmt.Sprintf(`SELECT * FROM %s`, m)
		_, _, err := b.Query(context.Background(), q, nil)
		e := backend.AsError(err)
		switch {
		case allowedModules[m] && e != nil && e.Class == backend.ClassPermission:
			t.Errorf("Query(%q) = %v; it is on the read allowlist", q, err)
		case !allowedModules[m] && e == nil:
			t.Errorf("Query(%q) answers; %s is not on the read allowlist", q, m)
		case !allowedModules[m] && e.Class == backend.ClassPermission && !strings.Contains(e.Message, m):
			t.Errorf("Query(%q) = %v; want a refusal naming %s", q, err, m)
		case !allowedModules[m] && e.Class != backend.ClassPermission && e.Class != backend.ClassUndefined:
			t.Errorf("Query(%q) = %v; want a permission refusal (or no such table)", q, err)
		}
	}
	refused, answered := 0, 0
	for _, f := range list(`SELECT DISTINCT name FROM pragma_function_list WHERE narg >= 0 ORDER BY name`) {
		if strings.HasPrefix(f, "->") || strings.ContainsAny(f, " ") {
			continue
		}
		// With as many NULL arguments as its first form takes.
		n := list(fmt.Sprintf(`SELECT min(narg) FROM pragma_function_list WHERE name = '%s' AND narg >= 0`, f))[0]
		var args []string
		for i := 0; i < atoi(n); i++ {
			args = append(args, "NULL")
		}
		q := fmt.Sprintf(`SELECT "%s"(%s)`, f, strings.Join(args, ", "))
		_, _, err := b.Query(context.Background(), q, nil)
		e := backend.AsError(err)
		if e != nil && e.SQLState == "42501" {
			refused++
			if !strings.Contains(e.Message, "read allowlist") || !strings.Contains(strings.ToLower(e.Message), strings.ToLower(f)) {
				t.Errorf("Query(%q) = %v; want a refusal naming %s and relchain's read allowlist", q, err, f)
			}
			continue
		}
		answered++
		if !sqlite.ReadFunctionAllowed(f) {
			t.Errorf("Query(%q) = %v; function %s is not on the read allowlist", q, err, f)
		}
	}
	t.Logf("%d pragmas, %d virtual tables; functions: %d refused, %d not refused", len(pragmas), len(modules), refused, answered)
	if refused == 0 || answered == 0 {
		t.Fatalf("functions: %d refused, %d not refused", refused, answered)
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
