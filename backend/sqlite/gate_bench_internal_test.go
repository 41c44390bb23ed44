package sqlite

import (
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// BenchmarkGateCheck measures the authorizer callback alone, on the calls
// SQLite makes while compiling a Smallbank UPDATE, a TPC-C NewOrder UPDATE
// ... RETURNING, a query calling an allowed and a rewritten function, and a
// CREATE TABLE (per statement: reset, then every call).
func BenchmarkGateCheck(b *testing.B) {
	type authCall struct {
		action                        sqlite3.AuthorizerActionCode
		name3rd, name4th, schema, inr string
	}
	stmts := map[string][]authCall{
		"smallbank": {
			{sqlite3.AUTH_UPDATE, "checking", "balance", "main", ""},
			{sqlite3.AUTH_READ, "checking", "balance", "main", ""},
			{sqlite3.AUTH_READ, "checking", "customer_id", "main", ""},
		},
		"tpcc-neworder": {
			{sqlite3.AUTH_UPDATE, "district", "d_next_o_id", "main", ""},
			{sqlite3.AUTH_READ, "district", "d_next_o_id", "main", ""},
			{sqlite3.AUTH_READ, "district", "d_w_id", "main", ""},
			{sqlite3.AUTH_READ, "district", "d_id", "main", ""},
			{sqlite3.AUTH_READ, "district", "d_next_o_id", "main", ""},
			{sqlite3.AUTH_READ, "district", "d_tax", "main", ""},
		},
		"select-functions": {
			{sqlite3.AUTH_SELECT, "", "", "", ""},
			{sqlite3.AUTH_READ, "accounts", "name", "main", ""},
			{sqlite3.AUTH_READ, "accounts", "custid", "main", ""},
			{sqlite3.AUTH_FUNCTION, "", "upper", "", ""},
			{sqlite3.AUTH_FUNCTION, "", "datetime", "", ""},
		},
		"create-table": {
			{sqlite3.AUTH_INSERT, "sqlite_master", "", "main", ""},
			{sqlite3.AUTH_CREATE_TABLE, "t", "", "main", ""},
			{sqlite3.AUTH_UPDATE, "sqlite_master", "type", "main", ""},
			{sqlite3.AUTH_UPDATE, "sqlite_master", "name", "main", ""},
			{sqlite3.AUTH_READ, "sqlite_master", "ROWID", "main", ""},
		},
	}
	for _, name := range []string{"smallbank", "tpcc-neworder", "select-functions", "create-table"} {
		calls := stmts[name]
		b.Run(name, func(b *testing.B) {
			g := &gate{modules: map[string]bool{"json_each": true, "generate_series": true}}
			for b.Loop() {
				g.reset()
				for _, c := range calls {
					if g.check(c.action, c.name3rd, c.name4th, c.schema, c.inr) != sqlite3.AUTH_OK {
						b.Fatalf("%s refused: %s", name, g.reason)
					}
				}
			}
		})
	}
}
