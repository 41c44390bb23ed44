package sqlite

import (
	"context"
	"fmt"
	"sort"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// The determinism and safety gate, SQLite dialect.
//
// SQLite's own parser and code generator decide what a statement does: the
// authorizer callback is invoked for every table read and written, every
// function resolved, every pragma, attach, transaction and DDL action, while
// the exact text that will run is compiled (also for view bodies when a view
// is used and trigger bodies when a statement that fires them is compiled,
// with the view or trigger name as the innermost context). The gate is that
// callback, fail-closed: an action code it does not know is denied. Its
// verdict is taken on the writer when a block's statement is prepared (and
// again whenever SQLite re-prepares it after a schema change), and on a read
// connection by CheckSyntax at CheckTx. What the authorizer never sees (DEFAULT
// expressions, view and trigger bodies at CREATE time) is checked by
// vetSchema after the DDL ran, inside the tx's savepoint. See
// ../DESIGN.md ("SQLite: determinism and safety gate").

// gate is the per-connection state of the authorizer for the statement being
// compiled. A connection is used by one goroutine at a time.
type gate struct {
	kind    sqlite3.AuthorizerActionCode // first DDL action of the statement, 0 if none
	actions int                          // authorizer calls for the statement
	reason  string                       // first refusal, names the construct
	inner   string                       // trigger or view whose body is being compiled
	// schemaWrite: the statement writes the schema table (only DDL may)
	schemaWrite bool
	altered     string          // the table an ALTER TABLE changes
	query       bool            // the statement has a SELECT (CREATE TABLE ... AS SELECT)
	modules     map[string]bool // eponymous virtual tables (lower case)
}

func (g *gate) reset() {
	g.kind, g.actions, g.reason, g.inner, g.schemaWrite, g.altered, g.query = 0, 0, "", "", false, "", false
}

func (g *gate) deny(format string, a ...any) sqlite3.AuthorizerReturnCode {
	if g.reason == "" {
		g.reason = fmt.Sprintf(format, a...)
		if g.inner != "" {
			g.reason += " (in the body of " + g.inner + ")"
		}
	}
	return sqlite3.AUTH_DENY
}

// allowedFunctions are the built-ins a statement may call: deterministic
// given their arguments (the SQLite build, math library included, is the
// wasm module bundled in every node's binary) and without side effects.
// Aggregates and window functions whose result depends on row order
// (group_concat, string_agg, json_group_array, first_value...) are allowed
// because SQLite's row order is itself a deterministic function of the
// replicated state (see DESIGN.md).
var allowedFunctions = setOf(
	// core scalar
	"abs", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "if", "ifnull", "iif",
	"instr", "length", "like", "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif",
	"octet_length", "printf", "quote", "replace", "round", "rtrim", "sign", "soundex", "substr",
	"substring", "trim", "typeof", "unhex", "unicode", "unistr", "unistr_quote", "unlikely", "upper",
	"zeroblob",
	// aggregate
	"avg", "count", "group_concat", "string_agg", "sum", "total",
	// window
	"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
	"first_value", "last_value", "nth_value",
	// math
	"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh",
	"degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians",
	"sin", "sinh", "sqrt", "tan", "tanh", "trunc",
	// JSON
	"->", "->>", "json", "jsonb", "json_array", "jsonb_array", "json_array_length", "json_array_insert",
	"jsonb_array_insert", "json_error_position", "json_extract", "jsonb_extract", "json_insert",
	"jsonb_insert", "json_object", "jsonb_object", "json_patch", "jsonb_patch", "json_pretty",
	"json_quote", "json_remove", "jsonb_remove", "json_replace", "jsonb_replace", "json_set",
	"jsonb_set", "json_type", "json_valid", "json_group_array", "jsonb_group_array",
	"json_group_object", "jsonb_group_object",
)

// deniedFunctions give the reason for the refusals clients are most likely
// to meet; any other function not in allowedFunctions is refused too.
var deniedFunctions = map[string]string{
	"random":                     "is not deterministic",
	"randomblob":                 "is not deterministic",
	"changes":                    "depends on connection state",
	"total_changes":              "depends on connection state",
	"last_insert_rowid":          "depends on connection state",
	"sqlite_version":             "depends on the node's SQLite build",
	"sqlite_source_id":           "depends on the node's SQLite build",
	"sqlite_compileoption_get":   "depends on the node's SQLite build",
	"sqlite_compileoption_used":  "depends on the node's SQLite build",
	"sqlite_log":                 "writes to the node's log",
	"load_extension":             "loads code into the node",
	"date":                       "is a date/time function: it can read the node's clock or time zone",
	"time":                       "is a date/time function: it can read the node's clock or time zone",
	"datetime":                   "is a date/time function: it can read the node's clock or time zone",
	"julianday":                  "is a date/time function: it can read the node's clock or time zone",
	"unixepoch":                  "is a date/time function: it can read the node's clock or time zone",
	"strftime":                   "is a date/time function: it can read the node's clock or time zone",
	"timediff":                   "is a date/time function: it can read the node's clock or time zone",
	"current_date":               "reads the node's clock",
	"current_time":               "reads the node's clock",
	"current_timestamp":          "reads the node's clock",
	"subtype":                    "is not on the allowlist",
	"sqlite_offset":              "depends on the physical layout of the database file",
	"fts3_tokenizer":             "is not on the allowlist",
	"sqlite_dbpage":              "reads database pages",
	"sqlite_rename_table":        "is internal to SQLite",
	"sqlite_rename_column":       "is internal to SQLite",
	"sqlite_drop_column":         "is internal to SQLite",
	"sqlite_rename_test":         "is internal to SQLite",
	"sqlite_rename_quotefix":     "is internal to SQLite",
	"sqlite_fts3_tokenizer_name": "is not on the allowlist",
}

// allowedVirtual are the eponymous virtual tables a statement may read.
var allowedVirtual = setOf("json_each", "json_tree")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func isDDL(a sqlite3.AuthorizerActionCode) bool {
	switch a {
	case sqlite3.AUTH_CREATE_TABLE, sqlite3.AUTH_CREATE_VIEW, sqlite3.AUTH_CREATE_INDEX, sqlite3.AUTH_CREATE_TRIGGER,
		sqlite3.AUTH_DROP_TABLE, sqlite3.AUTH_DROP_VIEW, sqlite3.AUTH_DROP_INDEX, sqlite3.AUTH_DROP_TRIGGER,
		sqlite3.AUTH_ALTER_TABLE:
		return true
	}
	return false
}

// rewritesSchema reports statement kinds whose code SQLite generates with
// nested statements that read sqlite_schema and call its internal
// sqlite_rename_* functions. None of them can carry a query of the client.
func rewritesSchema(a sqlite3.AuthorizerActionCode) bool {
	switch a {
	case sqlite3.AUTH_ALTER_TABLE, sqlite3.AUTH_DROP_TABLE, sqlite3.AUTH_DROP_VIEW, sqlite3.AUTH_DROP_INDEX, sqlite3.AUTH_DROP_TRIGGER:
		return true
	}
	return false
}

func isSchemaTable(name string) bool {
	for _, n := range []string{"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"} {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// check is the authorizer of a client's statement.
func (g *gate) check(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
	g.actions++
	g.inner = inner
	capture := hasPrefixFold(inner, triggerPfx)
	switch action {
	case sqlite3.AUTH_SELECT, sqlite3.AUTH_RECURSIVE:
		g.query = true
		return sqlite3.AUTH_OK

	case sqlite3.AUTH_READ:
		switch {
		case isSchemaTable(name3rd):
			// SQLite's own DDL code reads the schema table; a client may not.
			if rewritesSchema(g.kind) || (isDDL(g.kind) && strings.EqualFold(name4th, "rowid")) {
				return sqlite3.AUTH_OK
			}
			return g.deny("reading the schema table %s", name3rd)
		case strings.EqualFold(name3rd, "sqlite_sequence") && rewritesSchema(g.kind):
			return sqlite3.AUTH_OK // DROP TABLE, ALTER TABLE RENAME of an AUTOINCREMENT table
		case hasPrefixFold(name3rd, "sqlite_"):
			return g.deny("reading SQLite's internal table %s", name3rd)
		case hasPrefixFold(name3rd, "pragma_"):
			return g.deny("pragma table-valued function %s", name3rd)
		case isRelchainName(name3rd):
			return g.deny("reading relchain's table %s", name3rd)
		case g.modules[strings.ToLower(name3rd)] && !allowedVirtual[strings.ToLower(name3rd)]:
			return g.deny("table-valued function %s", name3rd)
		}
		return sqlite3.AUTH_OK

	case sqlite3.AUTH_INSERT, sqlite3.AUTH_UPDATE, sqlite3.AUTH_DELETE:
		switch {
		case isSchemaTable(name3rd):
			// DDL writes here; SQLite itself refuses a client's write to the
			// schema table ("may not be modified"), and prepareGated refuses
			// a statement that writes it without being DDL.
			g.schemaWrite = true
			return sqlite3.AUTH_OK
		case strings.EqualFold(name3rd, "sqlite_sequence") && rewritesSchema(g.kind):
			return sqlite3.AUTH_OK // DROP TABLE, ALTER TABLE RENAME of an AUTOINCREMENT table
		case hasPrefixFold(name3rd, "sqlite_"):
			return g.deny("writing SQLite's internal table %s", name3rd)
		case isRelchainName(name3rd):
			if strings.EqualFold(name3rd, changesTable) && action == sqlite3.AUTH_INSERT && capture {
				return sqlite3.AUTH_OK
			}
			return g.deny("writing relchain's table %s", name3rd)
		}
		return sqlite3.AUTH_OK

	case sqlite3.AUTH_FUNCTION:
		fn := strings.ToLower(name4th)
		if allowedFunctions[fn] {
			return sqlite3.AUTH_OK
		}
		if rewritesSchema(g.kind) && (strings.HasPrefix(fn, "sqlite_rename_") || fn == "sqlite_drop_column") {
			return sqlite3.AUTH_OK // SQLite's own, in ALTER/DROP code (not callable by clients)
		}
		if why, ok := deniedFunctions[fn]; ok {
			return g.deny("function %s() %s", fn, why)
		}
		return g.deny("function %s() is not on the allowlist of deterministic functions", fn)

	case sqlite3.AUTH_CREATE_TABLE, sqlite3.AUTH_CREATE_VIEW, sqlite3.AUTH_DROP_TABLE, sqlite3.AUTH_DROP_VIEW:
		if isRelchainName(name3rd) {
			return g.deny("DDL on relchain's table %s", name3rd)
		}
		if hasPrefixFold(name3rd, "sqlite_") && !(action == sqlite3.AUTH_CREATE_TABLE && g.kind == sqlite3.AUTH_CREATE_TABLE && strings.EqualFold(name3rd, "sqlite_sequence")) {
			return g.deny("DDL on SQLite's internal table %s", name3rd)
		}
	case sqlite3.AUTH_CREATE_INDEX, sqlite3.AUTH_DROP_INDEX:
		if isRelchainName(name3rd) || isRelchainName(name4th) {
			return g.deny("index on relchain's table %s", name4th)
		}
	case sqlite3.AUTH_ALTER_TABLE:
		if isRelchainName(name4th) {
			return g.deny("ALTER TABLE of relchain's table %s", name4th)
		}
		if g.altered == "" {
			g.altered = name4th
		}
	case sqlite3.AUTH_CREATE_TRIGGER:
		if isRelchainName(name3rd) || isRelchainName(name4th) {
			return g.deny("trigger %s on %s", name3rd, name4th)
		}
	case sqlite3.AUTH_DROP_TRIGGER:
		// DROP TABLE drops the table's capture triggers with it.
		if isRelchainName(name4th) || (isRelchainName(name3rd) && !(g.kind == sqlite3.AUTH_DROP_TABLE && hasPrefixFold(name3rd, triggerPfx))) {
			return g.deny("dropping relchain's trigger %s", name3rd)
		}

	case sqlite3.AUTH_REINDEX:
		if g.kind == sqlite3.AUTH_CREATE_INDEX {
			return sqlite3.AUTH_OK // CREATE INDEX fills the new index
		}
		return g.deny("REINDEX")
	case sqlite3.AUTH_PRAGMA:
		return g.deny("PRAGMA %s", name3rd)
	case sqlite3.AUTH_TRANSACTION:
		return g.deny("transaction control (%s): every tx runs inside the block's db-transaction", name3rd)
	case sqlite3.AUTH_SAVEPOINT:
		return g.deny("savepoint control (%s %s): every tx runs inside the block's db-transaction", name3rd, name4th)
	case sqlite3.AUTH_ATTACH:
		return g.deny("ATTACH")
	case sqlite3.AUTH_DETACH:
		return g.deny("DETACH")
	case sqlite3.AUTH_ANALYZE:
		return g.deny("ANALYZE: planner statistics would change query plans")
	case sqlite3.AUTH_CREATE_VTABLE, sqlite3.AUTH_DROP_VTABLE:
		return g.deny("virtual table %s (module %s)", name3rd, name4th)
	case sqlite3.AUTH_CREATE_TEMP_TABLE, sqlite3.AUTH_CREATE_TEMP_VIEW, sqlite3.AUTH_CREATE_TEMP_INDEX, sqlite3.AUTH_CREATE_TEMP_TRIGGER,
		sqlite3.AUTH_DROP_TEMP_TABLE, sqlite3.AUTH_DROP_TEMP_VIEW, sqlite3.AUTH_DROP_TEMP_INDEX, sqlite3.AUTH_DROP_TEMP_TRIGGER:
		return g.deny("temporary object %s: it would live on one connection of one node", name3rd)
	default:
		return g.deny("authorizer action %d", int(action))
	}
	// An allowed DDL action.
	if schema == "temp" {
		return g.deny("temporary object %s", name3rd)
	}
	if g.kind == 0 {
		g.kind = action
	}
	return sqlite3.AUTH_OK
}

// refusal is the error of a statement the gate refused.
func refusal(reason string) error {
	return &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: "refused by relchain's determinism and safety gate: " + reason}
}

// gateError turns err, from compiling or running a statement under g, into
// the gate's refusal when the authorizer denied it.
func (g *gate) gateError(err error) error {
	if g.reason == "" {
		return err
	}
	if e := backend.AsError(err); e != nil && e.Class == backend.ClassPermission {
		return refusal(g.reason)
	}
	return err
}

// prepareGated prepares exactly one statement of a client under the gate
// (the connection's authorizer must consult g). A statement during whose
// compilation the authorizer was never called (VACUUM, REINDEX without a
// target) is refused: every statement kind the gate allows calls it.
func prepareGated(c *sqlite3.Conn, g *gate, sql string) (*sqlite3.Stmt, error) {
	g.reset()
	stmt, err := prepareOne(c, sql)
	if g.schemaWrite && g.kind == 0 && g.reason == "" {
		if stmt != nil {
			stmt.Close()
		}
		return nil, refusal("writing the schema table sqlite_schema")
	}
	if err != nil {
		return nil, g.gateError(err)
	}
	if g.actions == 0 {
		stmt.Close()
		return nil, refusal("statement kind not allowed (VACUUM, REINDEX and similar maintenance statements are refused)")
	}
	return stmt, nil
}

// loadModules records the connection's virtual table modules: every one a
// client can reach is eponymous (CREATE VIRTUAL TABLE is refused).
func loadModules(c *sqlite3.Conn) (map[string]bool, error) {
	st, _, err := c.Prepare("SELECT name FROM pragma_module_list")
	if err != nil {
		return nil, fmt.Errorf("list modules: %w", err)
	}
	defer st.Close()
	m := map[string]bool{"generate_series": true, "dbstat": true, "sqlite_dbpage": true, "sqlite_stmt": true, "bytecode": true, "tables_used": true, "carray": true, "completion": true}
	for st.Step() {
		m[strings.ToLower(st.ColumnText(0))] = true
	}
	return m, st.Err()
}

// ddlConn is a connection on which clients' DDL runs under the gate: the
// writer, or the scratch copy of the schema CheckSyntax dry-runs DDL on.
type ddlConn struct {
	c        *sqlite3.Conn
	g        *gate
	internal *bool // set: the authorizer lets relchain's own statements through
	vetted   map[string]string
}

func (b *Backend) ddl() ddlConn {
	return ddlConn{c: b.w, g: &b.wgate, internal: &b.internal, vetted: b.vetted}
}

// dropCapture drops table's capture triggers and rowid guard.
func (d ddlConn) dropCapture(table string) error {
	*d.internal = true
	defer func() { *d.internal = false }()
	for _, op := range []string{"i", "u", "d", "g"} {
		if err := d.c.Exec("DROP TRIGGER IF EXISTS " + quoteIdent(triggerPfx+op+"_"+table)); err != nil {
			return fmt.Errorf("drop capture triggers of %s: %w", table, err)
		}
	}
	return nil
}

// schemaObjects returns the client's schema objects (type, name) -> sql,
// relchain's and SQLite's own excluded. Run with the authorizer bypassed.
func (d ddlConn) schemaObjects() (map[string]string, error) {
	st, _, err := d.c.Prepare(`SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL
		AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND name NOT LIKE 'relchain\_%' ESCAPE '\'`)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	defer st.Close()
	m := make(map[string]string)
	for st.Step() {
		m[st.ColumnText(0)+"\x00"+st.ColumnText(1)] = st.ColumnText(2)
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	return m, nil
}

// vetSchema checks, after a client's DDL ran (inside its tx's savepoint),
// what the authorizer did not see at CREATE time: DEFAULT expressions (SQLite
// never authorizes them, not even when an INSERT evaluates them), view
// bodies and trigger bodies (authorized only when a statement using the view
// or firing the trigger is compiled: that statement would be refused, but
// the object would stay as a trap). Objects that are new or whose text
// changed since they were last vetted are checked; objects present when the
// node opened the database are trusted (they were vetted when created). A
// refusal is a *backend.Error: the tx fails and its savepoint rolls back.
// *d.internal must be false; it is set around relchain's own reads.
func (d ddlConn) vetSchema() error {
	*d.internal = true
	objs, err := d.schemaObjects()
	*d.internal = false
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(objs))
	for k := range objs {
		if d.vetted[k] != objs[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys) // a deterministic first refusal
	for _, k := range keys {
		typ, name, _ := strings.Cut(k, "\x00")
		var err error
		switch typ {
		case "table":
			err = d.vetDefaults(name)
		case "view":
			err = d.probe("view "+name, "SELECT * FROM "+quoteIdent(name))
		case "trigger":
			err = d.vetTrigger(name)
		}
		if err != nil {
			return err
		}
	}
	for _, k := range keys {
		d.vetted[k] = objs[k]
	}
	return nil
}

// columns returns name and default expression of table's columns that a
// statement can assign (generated columns excluded).
func (d ddlConn) columns(table string) (names, defaults []string, err error) {
	*d.internal = true
	defer func() { *d.internal = false }()
	st, _, err := d.c.Prepare("SELECT name, dflt_value FROM pragma_table_xinfo(?) WHERE hidden = 0 ORDER BY cid")
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	if err := st.BindText(1, table); err != nil {
		return nil, nil, err
	}
	for st.Step() {
		names = append(names, st.ColumnText(0))
		if st.ColumnType(1) == sqlite3.NULL {
			defaults = append(defaults, "")
		} else {
			defaults = append(defaults, st.ColumnText(1))
		}
	}
	return names, defaults, st.Err()
}

func (d ddlConn) vetDefaults(table string) error {
	names, defaults, err := d.columns(table)
	if err != nil {
		return err
	}
	for i, def := range defaults {
		if def == "" {
			continue
		}
		// The default's own text, compiled as an expression under the gate.
		stmt, err := prepareGated(d.c, d.g, "SELECT ("+def+"\n)")
		if stmt != nil {
			stmt.Close()
		}
		if err != nil {
			if e := backend.AsError(err); e != nil && e.Class == backend.ClassPermission && d.g.reason != "" {
				return refusal(fmt.Sprintf("DEFAULT of column %s.%s: %s", table, names[i], d.g.reason))
			}
			if backend.AsError(err) == nil {
				return err
			}
			return refusal(fmt.Sprintf("DEFAULT of column %s.%s cannot be checked", table, names[i]))
		}
	}
	return nil
}

// vetTrigger compiles (never runs) an INSERT, an UPDATE of every column and
// a DELETE on the trigger's table or view, which compiles the trigger's body
// under the gate. Errors other than a gate refusal (a DELETE on a view
// without an INSTEAD OF DELETE trigger, say) say nothing about the body.
func (d ddlConn) vetTrigger(trigger string) error {
	*d.internal = true
	var table string
	st, _, err := d.c.Prepare("SELECT tbl_name FROM sqlite_schema WHERE type = 'trigger' AND name = ?")
	if err == nil {
		err = st.BindText(1, trigger)
		if err == nil && st.Step() {
			table = st.ColumnText(0)
		}
		if err == nil {
			err = st.Err()
		}
		st.Close()
	}
	*d.internal = false
	if err != nil {
		return err
	}
	names, _, err := d.columns(table)
	if err != nil {
		return err
	}
	sets := make([]string, len(names))
	for i, n := range names {
		sets[i] = quoteIdent(n) + " = " + quoteIdent(n)
	}
	t := quoteIdent(table)
	probes := []string{"INSERT INTO " + t + " DEFAULT VALUES", "DELETE FROM " + t}
	if len(sets) > 0 {
		probes = append(probes, "UPDATE "+t+" SET "+strings.Join(sets, ", "))
	}
	for _, p := range probes {
		if err := d.probe("trigger "+trigger, p); err != nil {
			return err
		}
	}
	return nil
}

// probe compiles sql under the gate and reports only a gate refusal.
func (d ddlConn) probe(what, sql string) error {
	stmt, err := prepareGated(d.c, d.g, sql)
	if stmt != nil {
		stmt.Close()
	}
	if err == nil {
		return nil
	}
	if backend.AsError(err) == nil {
		return err
	}
	if e := backend.AsError(err); e.Class == backend.ClassPermission && d.g.reason != "" {
		return refusal(what + ": " + d.g.reason)
	}
	return nil
}

// workLimit bounds the work of one read-only client statement, in units of the
// driver's progress callback (every 1,000 SQLite virtual machine
// instructions, plus one per row stepped): 100,000 units, about 10^8
// instructions. The count is a function of the statement, the data and the
// SQLite build, never of time or load, so a statement over the limit fails
// identically on every node (ClassResource) instead of running forever (a
// recursive CTE without a bound) and stalling the chain. Changing it
// changes tx outcomes: it is consensus-relevant. Writing statements are not
// bounded yet: SQLite rolls back the whole transaction (the block's) when
// it interrupts one.
const workLimit = 100_000

var errWorkLimit = &backend.Error{Class: backend.ClassResource, SQLState: "54000",
	Message: "statement exceeded relchain's deterministic work limit (about 10^8 SQLite instructions); bound recursive CTEs and joins"}

// fuel is the writer's interrupt context while a client statement runs:
// go-sqlite3 consults Err from SQLite's progress handler, every 1,000
// virtual machine instructions, and once per step. It never looks at the
// clock.
type fuel struct {
	context.Context
	left int64
	out  bool
}

func (f *fuel) Err() error {
	if f.left <= 0 {
		f.out = true
		return errWorkLimit
	}
	f.left--
	return nil
}
