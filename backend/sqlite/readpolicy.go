package sqlite

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// The read path's policy (abci_query, no key needed): an allowlist, like
// PostgreSQL's (backend/postgres/pggate/read.go). A client's query on a
// read connection runs under readPolicy's authorizer, which allows:
//
//   - SELECT and recursive CTEs (the connection is query_only, and Query
//     refuses a statement that is not read-only);
//   - reads of the client's own tables and views, of the schema table
//     sqlite_schema (alias sqlite_master: the definitions of this
//     database's tables, views, indexes and triggers, relchain's
//     bookkeeping tables and capture triggers among them; the gateway
//     points SQLite networks' users to it to list tables), and of the
//     eponymous virtual tables of readVirtual;
//   - the pragma table-valued functions of readPragmas, which describe one
//     table or index of the client's (never one of relchain's);
//   - the functions of allowedFunctions (a block's allowlist),
//     rewrittenFunctions (SQLite's own clock and random functions on a
//     read: node-local values that decide nothing) and nothing else.
//
// Everything else is refused, named, as "not on relchain's read
// allowlist": SQLite's other internal tables (sqlite_sequence,
// sqlite_stat*, the temp schema), every other pragma and virtual table,
// the functions that report the SQLite build or connection state.
// relchain's own tables stay unreadable (their definitions in
// sqlite_schema are no secret: an authorizer cannot filter rows, and
// PostgreSQL's read path names them through object identifiers too). A node's SQLite database is its own file,
// so no other database or account can be reached; see DESIGN.md ("The
// read allowlist").

// readVirtual are the eponymous virtual tables a query may read: pure
// functions of their arguments (generate_series' rows are bounded by the
// read work limit).
var readVirtual = setOf("json_each", "json_tree", "generate_series")

// readPragmas are the pragmas a query may call as table-valued functions
// (pragma_table_info('t')): each describes the columns, indexes or
// foreign keys of the one table or index it names.
var readPragmas = setOf("table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list")

// readPolicy is one read connection's authorizer state: whether a
// client's query is being compiled or run on it, and the first refusal of
// that query. A read connection is used by one goroutine at a time.
type readPolicy struct {
	on      atomic.Bool
	reason  string
	modules map[string]bool // eponymous virtual tables (lower case)
	runtime map[string]bool // the postgres dialect's runtime functions (gate.runtime)
}

func newReadPolicy(modules map[string]bool) *readPolicy {
	return &readPolicy{modules: modules}
}

// Store marks the start (true) or end of a client's query; the start
// forgets the previous query's refusal.
func (p *readPolicy) Store(on bool) {
	if on {
		p.reason = ""
	}
	p.on.Store(on)
}

// Load reports whether a client's query is being compiled or run.
func (p *readPolicy) Load() bool { return p.on.Load() }

// authorizeRead is a read connection's authorizer: while Analyze prepares
// a statement, the connection's gate decides; while a client's query is
// compiled or run, the read policy; otherwise (Query's own statements)
// everything is allowed.
func authorizeRead(p *readPolicy, rg *readGate) func(sqlite3.AuthorizerActionCode, string, string, string, string) sqlite3.AuthorizerReturnCode {
	return func(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
		if rg.on.Load() {
			return rg.g.check(action, name3rd, name4th, schema, inner)
		}
		if !p.Load() {
			return sqlite3.AUTH_OK
		}
		why := p.judge(action, name3rd, name4th)
		if why == "" {
			return sqlite3.AUTH_OK
		}
		if p.reason == "" {
			p.reason = why
			if inner != "" {
				p.reason += " (in the body of " + inner + ")"
			}
		}
		return sqlite3.AUTH_DENY
	}
}

// judge is the read policy's verdict on one authorizer call: "" allows it,
// anything else is the reason of its refusal.
func (p *readPolicy) judge(action sqlite3.AuthorizerActionCode, name3rd, name4th string) string {
	switch action {
	case sqlite3.AUTH_SELECT, sqlite3.AUTH_RECURSIVE:
		return ""
	case sqlite3.AUTH_READ:
		return p.readTable(name3rd)
	case sqlite3.AUTH_FUNCTION:
		if p.runtime[strings.ToLower(name4th)] {
			return ""
		}
		return readFunction(name4th)
	case sqlite3.AUTH_PRAGMA:
		return readPragma(name3rd, name4th)
	case sqlite3.AUTH_INSERT, sqlite3.AUTH_UPDATE, sqlite3.AUTH_DELETE:
		return fmt.Sprintf("writing table %s is not allowed: the query path is read-only (submit writes as transactions, relchain exec)", name3rd)
	case sqlite3.AUTH_TRANSACTION, sqlite3.AUTH_SAVEPOINT:
		return "transaction control is not allowed on the read path"
	case sqlite3.AUTH_ATTACH, sqlite3.AUTH_DETACH:
		return "ATTACH and DETACH are not allowed on the read path"
	}
	return fmt.Sprintf("authorizer action %d is not allowed on the read path: a query reads tables and calls functions, nothing else (submit writes as transactions)", int(action))
}

// readTable judges a read of table (or view, or virtual table) name.
func (p *readPolicy) readTable(name string) string {
	lower := strings.ToLower(name)
	switch {
	case isRelchainName(name):
		return fmt.Sprintf("table %s is relchain's own: its state is not client-visible", name)
	case strings.HasPrefix(lower, "pragma_"):
		if readPragmas[strings.TrimPrefix(lower, "pragma_")] {
			return "" // its PRAGMA is judged with its argument (readPragma)
		}
		return fmt.Sprintf("pragma function %s is not on relchain's read allowlist: only %s are", lower, pragmaList())
	case lower == "sqlite_master":
		return "" // sqlite_schema: this database's schema (readSchemaTable)
	case strings.HasPrefix(lower, "sqlite_"):
		return fmt.Sprintf("relation %s is not on relchain's read allowlist: SQLite's internal tables are not readable", lower)
	case p.modules[lower] && !readVirtual[lower]:
		return fmt.Sprintf("virtual table %s is not on relchain's read allowlist: only json_each, json_tree and generate_series are", lower)
	}
	return ""
}

// readFunction judges a call of function name.
func readFunction(name string) string {
	fn := strings.ToLower(name)
	if allowedFunctions[fn] || rewrittenFunctions[fn] {
		return ""
	}
	if why, ok := deniedFunctions[fn]; ok {
		return fmt.Sprintf("function %s() is not on relchain's read allowlist: it %s", fn, why)
	}
	return fmt.Sprintf("function %s() is not on relchain's read allowlist", fn)
}

// readPragma judges the PRAGMA a pragma table-valued function runs: one of
// readPragmas, about a table or index that is not relchain's.
func readPragma(pragma, arg string) string {
	p := strings.ToLower(pragma)
	switch {
	case !readPragmas[p]:
		return fmt.Sprintf("PRAGMA %s is not on relchain's read allowlist: only %s are", p, pragmaList())
	case strings.Contains(strings.ToLower(arg), "relchain_"):
		return fmt.Sprintf("pragma_%s(%q) is not allowed: %s is relchain's own", p, arg, arg)
	}
	return ""
}

// pragmaList names readPragmas as their functions, in a fixed order.
func pragmaList() string {
	return "pragma_table_info, pragma_table_xinfo, pragma_index_list, pragma_index_info, pragma_index_xinfo and pragma_foreign_key_list"
}

// explain turns the authorizer's denial of the query p last judged into
// the read policy's refusal, naming what it refused; other errors pass.
func (p *readPolicy) explain(err error) error {
	var e *backend.Error
	if p.reason == "" || !errors.As(err, &e) || e.SQLState != "42501" {
		return err
	}
	return &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: "refused by relchain's read policy: " + p.reason}
}
