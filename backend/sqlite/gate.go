package sqlite

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// The determinism and safety gate, SQLite dialect.
//
// SQLite's own parser and code generator decide what a statement does: the
// authorizer callback is invoked for every table read and written, every
// function resolved, every pragma, attach, transaction and DDL action, while
// the exact text that will run is compiled (also for view bodies when a view
// is used and trigger bodies when a statement that fires them is compiled,
// with the view or trigger name as the innermost context). The gate is that
// callback (check), which applies a table of policies with one entry per
// action code (policies), fail-closed: an action code it does not know is
// denied. Its verdict is taken on the writer when a block's statement is
// prepared (and again whenever SQLite re-prepares it after a schema change),
// and on a read connection by Analyze at CheckTx. What the authorizer never
// sees (DEFAULT expressions, view and trigger bodies at CREATE time) is
// checked by vetSchema after the DDL ran, inside the tx's savepoint. See
// DESIGN.md here ("The gate").

// gate is the per-connection state of the authorizer for the statement being
// compiled. A connection is used by one goroutine at a time.
type gate struct {
	kind     sqlite3.AuthorizerActionCode // first DDL action of the statement, 0 if none
	rewrites bool                         // kind's policy has rewritesSchema
	actions  int                          // authorizer calls for the statement
	reason   string                       // first refusal, names the construct
	inner    string                       // trigger or view whose body is being compiled
	// schemaWrite: the statement writes the schema table (only DDL may)
	schemaWrite bool
	altered     string          // the table an ALTER TABLE changes
	query       bool            // the statement has a SELECT (CREATE TABLE ... AS SELECT)
	rewritten   string          // the first rewritten function the statement calls
	target      string          // the table the statement itself writes (lower case)
	modules     map[string]bool // eponymous virtual tables (lower case)
	// runtime are the functions of the postgres dialect's runtime
	// (pgruntime.Register) on a connection that runs translated
	// statements; nil otherwise (lower case).
	runtime map[string]bool
	// off (withoutGate, benchmarks only): refuse only what would break the
	// block or reach relchain's own tables (refusedAlways), allow the rest.
	off bool
}

func (g *gate) reset() {
	g.kind, g.rewrites, g.actions, g.reason, g.inner = 0, false, 0, "", ""
	g.schemaWrite, g.altered, g.query, g.rewritten, g.target = false, "", false, "", ""
}

// analysis is what the statement just compiled under g does. A SQLite
// statement writes at most one table itself (no data-modifying CTEs), and
// SQLite authorizes it before anything the schema adds: trigger bodies
// (named as the inner context) and foreign-key actions (which come with no
// inner context at all, hence "the first write" rather than "every write
// outside a trigger"). DDL lists no writes. UsesEnv: the statement, or a
// view or trigger body compiled into it, calls a rewritten function (a
// DEFAULT evaluated by an INSERT is never authorized, so it does not show;
// the SQLite backend installs the env at every Savepoint regardless).
func (g *gate) analysis() sqlcheck.Analysis {
	a := sqlcheck.Analysis{DDL: g.kind != 0, UsesEnv: g.rewritten != ""}
	if !a.DDL && g.target != "" {
		a.Writes = []string{g.target}
	}
	return a
}

// allowedFunctions are the built-ins a statement may call: deterministic
// given their arguments (the SQLite build, math library included, is the
// wasm module bundled in every node's binary) and without side effects.
// Aggregates and window functions whose result depends on row order
// (group_concat, string_agg, json_group_array, first_value...) are allowed
// only with an ORDER BY (order.go); sum, total and avg are replaced by exact
// versions (aggregates.go).
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
	"changes":                    "depends on connection state",
	"total_changes":              "depends on connection state",
	"last_insert_rowid":          "depends on connection state",
	"sqlite_version":             "depends on the node's SQLite build",
	"sqlite_source_id":           "depends on the node's SQLite build",
	"sqlite_compileoption_get":   "depends on the node's SQLite build",
	"sqlite_compileoption_used":  "depends on the node's SQLite build",
	"sqlite_log":                 "writes to the node's log",
	"load_extension":             "loads code into the node",
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

// The rewritten functions (random, randomblob and the date/time functions,
// see rewrite.go) are accepted in statements, DEFAULTs, view and trigger
// bodies, which run inside a tx with its env, and refused in CHECK
// constraints, generated columns and indexes (see prepareGated).

// allowedVirtual are the eponymous virtual tables a statement may read.
var allowedVirtual = setOf("json_each", "json_tree")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// The gate's policy is a table with one entry per SQLite authorizer action
// code (policies). check looks the action up and applies its entry in
// order: judge says whether the action is allowed or refused, with which
// reason, and whether the refusal stands with the gate off; an allowed
// action is then recorded (what it tells about the statement: its analysis,
// and what prepareGated and the block need after compiling); an allowed DDL
// action is refused in the temp schema, and the statement's first one is
// its kind. An action code without an entry is refused (fail closed).

// call is one authorizer call. What name3rd and name4th name depends on
// the action (see the comments on sqlite3.AUTH_*); schema is the database
// ("main", "temp"); inner is the trigger or view whose body is being
// compiled, "" for the statement's own text.
type call struct {
	action           sqlite3.AuthorizerActionCode
	name3rd, name4th string
	schema, inner    string
}

// decision is a policy's verdict on one call: allowed when reason is "".
type decision struct {
	reason string // names the refused construct
	// always: refused even with the gate off (withoutGate), because it
	// would break the block's transaction or reach relchain's own tables.
	always bool
}

// allowed lets an action through.
var allowed decision

// refused refuses a construct for determinism or safety; with the gate off
// (withoutGate) it is allowed.
func refused(format string, a ...any) decision {
	return decision{reason: fmt.Sprintf(format, a...)}
}

// refusedAlways refuses what would break the block's transaction or reach
// relchain's own tables, even with the gate off.
func refusedAlways(format string, a ...any) decision {
	return decision{reason: fmt.Sprintf(format, a...), always: true}
}

// policy is the gate's rule for one authorizer action code.
type policy struct {
	// judge decides the action (nil only for codes the gate does not know).
	judge func(g *gate, c call) decision
	// record notes what an allowed action tells about the statement; nil:
	// nothing.
	record func(g *gate, c call)
	// ddl: the action creates, alters or drops a schema object. Allowed, it
	// is refused in the temp schema, and the statement's first one is its
	// kind (Analysis.DDL).
	ddl bool
	// rewritesSchema: as a statement's kind, SQLite generates its code with
	// nested statements that read sqlite_schema and sqlite_sequence and
	// call its internal sqlite_rename_* functions. None of these kinds can
	// carry a query of the client.
	rewritesSchema bool
}

// policies is the gate's policy, indexed by authorizer action code.
var policies = [...]policy{
	// Queries.
	sqlite3.AUTH_SELECT:    {judge: allowAll, record: (*gate).recordQuery},
	sqlite3.AUTH_RECURSIVE: {judge: allowAll, record: (*gate).recordQuery},
	sqlite3.AUTH_READ:      {judge: (*gate).judgeRead},
	sqlite3.AUTH_FUNCTION:  {judge: (*gate).judgeFunction, record: (*gate).recordFunction},

	// Writes.
	sqlite3.AUTH_INSERT: {judge: (*gate).judgeWrite, record: (*gate).recordWrite},
	sqlite3.AUTH_UPDATE: {judge: (*gate).judgeWrite, record: (*gate).recordWrite},
	sqlite3.AUTH_DELETE: {judge: (*gate).judgeWrite, record: (*gate).recordWrite},

	// DDL (every TEMP object is refused below).
	sqlite3.AUTH_CREATE_TABLE:   {judge: (*gate).judgeTableDDL, ddl: true},
	sqlite3.AUTH_CREATE_VIEW:    {judge: (*gate).judgeTableDDL, ddl: true},
	sqlite3.AUTH_DROP_TABLE:     {judge: (*gate).judgeTableDDL, ddl: true, rewritesSchema: true},
	sqlite3.AUTH_DROP_VIEW:      {judge: (*gate).judgeTableDDL, ddl: true, rewritesSchema: true},
	sqlite3.AUTH_CREATE_INDEX:   {judge: (*gate).judgeIndexDDL, ddl: true},
	sqlite3.AUTH_DROP_INDEX:     {judge: (*gate).judgeIndexDDL, ddl: true, rewritesSchema: true},
	sqlite3.AUTH_CREATE_TRIGGER: {judge: (*gate).judgeCreateTrigger, ddl: true},
	sqlite3.AUTH_DROP_TRIGGER:   {judge: (*gate).judgeDropTrigger, ddl: true, rewritesSchema: true},
	sqlite3.AUTH_ALTER_TABLE:    {judge: (*gate).judgeAlterTable, record: (*gate).recordAlter, ddl: true, rewritesSchema: true},

	// Allowed only as steps of SQLite's own code for an allowed statement.
	sqlite3.AUTH_REINDEX: {judge: (*gate).judgeReindex},
	sqlite3.AUTH_PRAGMA:  {judge: (*gate).judgePragma},

	// Refused outright.
	sqlite3.AUTH_TRANSACTION: {judge: func(_ *gate, c call) decision {
		return refusedAlways("transaction control (%s): every tx runs inside the block's db-transaction", c.name3rd)
	}},
	sqlite3.AUTH_SAVEPOINT: {judge: func(_ *gate, c call) decision {
		return refusedAlways("savepoint control (%s %s): every tx runs inside the block's db-transaction", c.name3rd, c.name4th)
	}},
	sqlite3.AUTH_ATTACH: {judge: func(*gate, call) decision { return refusedAlways("ATTACH") }},
	sqlite3.AUTH_DETACH: {judge: func(*gate, call) decision { return refusedAlways("DETACH") }},
	sqlite3.AUTH_ANALYZE: {judge: func(*gate, call) decision {
		return refused("ANALYZE: planner statistics would change query plans")
	}},
	sqlite3.AUTH_CREATE_VTABLE: {judge: refuseVirtualTable},
	sqlite3.AUTH_DROP_VTABLE:   {judge: refuseVirtualTable},

	sqlite3.AUTH_CREATE_TEMP_TABLE:   {judge: refuseTemp},
	sqlite3.AUTH_CREATE_TEMP_VIEW:    {judge: refuseTemp},
	sqlite3.AUTH_CREATE_TEMP_INDEX:   {judge: refuseTemp},
	sqlite3.AUTH_CREATE_TEMP_TRIGGER: {judge: refuseTemp},
	sqlite3.AUTH_DROP_TEMP_TABLE:     {judge: refuseTemp},
	sqlite3.AUTH_DROP_TEMP_VIEW:      {judge: refuseTemp},
	sqlite3.AUTH_DROP_TEMP_INDEX:     {judge: refuseTemp},
	sqlite3.AUTH_DROP_TEMP_TRIGGER:   {judge: refuseTemp},
}

// unknownAction is the policy of every action code without an entry.
var unknownAction = policy{judge: func(_ *gate, c call) decision {
	return refused("authorizer action %d", int(c.action))
}}

// check is the authorizer of a client's statement: it applies the action's
// policy.
func (g *gate) check(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
	g.actions++
	g.inner = inner
	c := call{action: action, name3rd: name3rd, name4th: name4th, schema: schema, inner: inner}
	p := &unknownAction
	if uint(action) < uint(len(policies)) && policies[action].judge != nil {
		p = &policies[action]
	}
	if v := p.judge(g, c); v.reason != "" {
		return g.refuse(v)
	}
	if p.record != nil {
		p.record(g, c)
	}
	if !p.ddl {
		return sqlite3.AUTH_OK
	}
	if schema == "temp" && !g.off {
		return g.refuse(refused("temporary object %s", name3rd))
	}
	if g.kind == 0 {
		g.kind, g.rewrites = action, p.rewritesSchema
	}
	return sqlite3.AUTH_OK
}

// refuse applies a refusal: the statement's first one is its reason, named
// with the trigger or view whose body was being compiled. With the gate off
// it lets through what is refused for determinism only.
func (g *gate) refuse(v decision) sqlite3.AuthorizerReturnCode {
	if g.off && !v.always {
		return sqlite3.AUTH_OK
	}
	if g.reason == "" {
		g.reason = v.reason
		if g.inner != "" {
			g.reason += " (in the body of " + g.inner + ")"
		}
	}
	return sqlite3.AUTH_DENY
}

func allowAll(*gate, call) decision { return allowed }

func refuseVirtualTable(_ *gate, c call) decision {
	return refused("virtual table %s (module %s)", c.name3rd, c.name4th)
}

func refuseTemp(_ *gate, c call) decision {
	return refused("temporary object %s: it would live on one connection of one node", c.name3rd)
}

// recordQuery notes that the statement has a SELECT (CREATE TABLE ... AS
// SELECT, see contextRefusal).
func (g *gate) recordQuery(call) { g.query = true }

// judgeRead judges a read of column name4th of table name3rd.
func (g *gate) judgeRead(c call) decision {
	table, column := c.name3rd, c.name4th
	switch {
	case isSchemaTable(table):
		// SQLite's own DDL code reads the schema table; a client may not.
		if g.rewrites || (g.kind != 0 && strings.EqualFold(column, "rowid")) {
			return allowed
		}
		return refused("reading the schema table %s", table)
	case strings.EqualFold(table, "sqlite_sequence") && g.rewrites:
		return allowed // DROP TABLE, ALTER TABLE RENAME of an AUTOINCREMENT table
	case hasPrefixFold(table, "sqlite_"):
		return refused("reading SQLite's internal table %s", table)
	case strings.EqualFold(table, "pragma_quick_check") && g.kind == sqlite3.AUTH_ALTER_TABLE:
		// ALTER TABLE ... ADD COLUMN with a CHECK constraint checks the
		// table's rows with it (SQLite's own nested statement; the
		// constraint itself is vetted by vetTable).
		return allowed
	case hasPrefixFold(table, "pragma_"):
		return refused("pragma table-valued function %s", table)
	case isRelchainName(table):
		return refusedAlways("reading relchain's table %s", table)
	case g.modules[strings.ToLower(table)] && !allowedVirtual[strings.ToLower(table)]:
		return refused("table-valued function %s", table)
	case column == "ROWID" && !hasPrefixFold(c.inner, triggerPfx) && !g.rewrites:
		// SQLite names the rowid "ROWID" only when no INTEGER PRIMARY
		// KEY aliases it (else the alias column is named): then it is
		// no part of the replicated state (VACUUM may renumber it). The
		// change-capture triggers read it.
		return refused("the rowid of table %s: without an INTEGER PRIMARY KEY its values are not replicated state (VACUUM may renumber them); declare an INTEGER PRIMARY KEY and use that column", table)
	}
	return allowed
}

// judgeFunction judges a call of function name4th.
func (g *gate) judgeFunction(c call) decision {
	fn := strings.ToLower(c.name4th)
	switch {
	case allowedFunctions[fn], g.runtime[fn]:
		return allowed
	case rewrittenFunctions[fn]:
		return allowed // judged with the statement's kind in prepareGated (contextRefusal)
	case g.rewrites && (strings.HasPrefix(fn, "sqlite_rename_") || fn == "sqlite_drop_column"):
		return allowed // SQLite's own, in ALTER/DROP code (not callable by clients)
	}
	if why, ok := deniedFunctions[fn]; ok {
		return refused("function %s() %s", fn, why)
	}
	return refused("function %s() is not on the allowlist of deterministic functions", fn)
}

// recordFunction notes the first rewritten function the statement calls
// (Analysis.UsesEnv, contextRefusal). allowedFunctions and
// rewrittenFunctions are disjoint.
func (g *gate) recordFunction(c call) {
	if g.rewritten != "" {
		return
	}
	if fn := strings.ToLower(c.name4th); rewrittenFunctions[fn] {
		g.rewritten = fn
	}
}

// judgeWrite judges an INSERT into, UPDATE or DELETE of table name3rd.
func (g *gate) judgeWrite(c call) decision {
	table := c.name3rd
	switch {
	case isSchemaTable(table):
		// DDL writes here; SQLite itself refuses a client's write to the
		// schema table ("may not be modified"), and prepareGated refuses a
		// statement that writes it without being DDL (recordWrite).
		return allowed
	case strings.EqualFold(table, "sqlite_sequence") && g.rewrites:
		return allowed // DROP TABLE, ALTER TABLE RENAME of an AUTOINCREMENT table
	case hasPrefixFold(table, "sqlite_"):
		return refused("writing SQLite's internal table %s", table)
	case isRelchainName(table):
		if strings.EqualFold(table, changesTable) && c.action == sqlite3.AUTH_INSERT && hasPrefixFold(c.inner, triggerPfx) {
			return allowed // a change-capture trigger
		}
		return refusedAlways("writing relchain's table %s", table)
	}
	return allowed
}

// recordWrite notes a write of the schema table, and the table the
// statement itself writes (Analysis.Writes): its first write outside a
// trigger body, of a client's table (SQLite names are ASCII
// case-insensitive; the authorizer passes the schema's spelling).
func (g *gate) recordWrite(c call) {
	if g.target == "" && c.inner == "" && !hasPrefixFold(c.name3rd, "sqlite_") && !isRelchainName(c.name3rd) {
		g.target = asciiLower([]byte(c.name3rd))
	}
	if !g.schemaWrite && isSchemaTable(c.name3rd) {
		g.schemaWrite = true
	}
}

// judgeTableDDL judges CREATE or DROP of table or view name3rd.
func (g *gate) judgeTableDDL(c call) decision {
	switch {
	case isRelchainName(c.name3rd):
		return refusedAlways("DDL on relchain's table %s", c.name3rd)
	case hasPrefixFold(c.name3rd, "sqlite_") &&
		// CREATE TABLE of an AUTOINCREMENT table creates sqlite_sequence.
		!(c.action == sqlite3.AUTH_CREATE_TABLE && g.kind == sqlite3.AUTH_CREATE_TABLE && strings.EqualFold(c.name3rd, "sqlite_sequence")):
		return refused("DDL on SQLite's internal table %s", c.name3rd)
	}
	return allowed
}

// judgeIndexDDL judges CREATE or DROP of index name3rd on table name4th.
func (g *gate) judgeIndexDDL(c call) decision {
	if isRelchainName(c.name3rd) || isRelchainName(c.name4th) {
		return refusedAlways("index on relchain's table %s", c.name4th)
	}
	return allowed
}

// judgeCreateTrigger judges CREATE TRIGGER name3rd on table name4th.
func (g *gate) judgeCreateTrigger(c call) decision {
	if isRelchainName(c.name3rd) || isRelchainName(c.name4th) {
		return refusedAlways("trigger %s on %s", c.name3rd, c.name4th)
	}
	return allowed
}

// judgeDropTrigger judges DROP TRIGGER name3rd of table name4th.
func (g *gate) judgeDropTrigger(c call) decision {
	// DROP TABLE drops the table's capture triggers with it.
	if isRelchainName(c.name4th) || (isRelchainName(c.name3rd) && !(g.kind == sqlite3.AUTH_DROP_TABLE && hasPrefixFold(c.name3rd, triggerPfx))) {
		return refusedAlways("dropping relchain's trigger %s", c.name3rd)
	}
	return allowed
}

// judgeAlterTable judges ALTER TABLE of table name4th.
func (g *gate) judgeAlterTable(c call) decision {
	if isRelchainName(c.name4th) {
		return refusedAlways("ALTER TABLE of relchain's table %s", c.name4th)
	}
	return allowed
}

// recordAlter notes the table an ALTER TABLE changes (its capture
// triggers are rebuilt after it ran).
func (g *gate) recordAlter(c call) {
	if g.altered == "" {
		g.altered = c.name4th
	}
}

// judgeReindex allows REINDEX only as the step CREATE INDEX takes to fill
// the new index.
func (g *gate) judgeReindex(call) decision {
	if g.kind == sqlite3.AUTH_CREATE_INDEX {
		return allowed
	}
	return refused("REINDEX")
}

// judgePragma allows a PRAGMA only as the quick_check ALTER TABLE ... ADD
// COLUMN runs (see judgeRead, pragma_quick_check).
func (g *gate) judgePragma(c call) decision {
	if strings.EqualFold(c.name3rd, "quick_check") && g.kind == sqlite3.AUTH_ALTER_TABLE {
		return allowed
	}
	return refused("PRAGMA %s", c.name3rd)
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

// gateMessage starts the message of every refusal.
const gateMessage = "refused by relchain's determinism and safety gate"

// refusal is the error of a statement the gate refused.
func refusal(reason string) error {
	return &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: gateMessage + ": " + reason}
}

// gateError turns err, from compiling or running a statement under g, into
// the gate's refusal when the authorizer denied something: SQLite may report
// another error first (a generated column's "non-deterministic functions
// prohibited", say), but the verdict is the gate's, always ClassPermission.
func (g *gate) gateError(err error) error {
	if g.reason == "" || err == nil {
		return err
	}
	if e := backend.AsError(err); e == nil && !isAuthError(err) {
		return err // infrastructure trouble stays what it is
	}
	return refusal(g.reason)
}

func isAuthError(err error) bool {
	var se *sqlite3.Error
	return errors.As(err, &se) && se.Code() == sqlite3.AUTH
}

// contextRefusal refuses a rewritten function where its value would be
// evaluated outside a tx's env or must stay stable: CREATE TABLE without AS
// SELECT calls functions only in CHECK constraints and generated columns
// (DEFAULTs are not authorized), CREATE INDEX only in index expressions and
// the partial-index WHERE. (The order of the authorizer's calls does not tell
// a CHECK from CREATE TABLE ... AS SELECT, so this is judged after the
// statement compiled.)
func (g *gate) contextRefusal() {
	if g.off || g.reason != "" || g.rewritten == "" {
		return
	}
	if g.kind == sqlite3.AUTH_CREATE_INDEX || (g.kind == sqlite3.AUTH_CREATE_TABLE && !g.query) {
		g.reason = fmt.Sprintf("function %s() in a CHECK constraint, generated column or index: its value depends on the tx that evaluates it (allowed in statements, DEFAULTs, views and triggers)", g.rewritten)
	}
}

// prepareGated prepares exactly one statement of a client under the gate
// (the connection's authorizer must consult g). A statement during whose
// compilation the authorizer was never called (VACUUM, REINDEX without a
// target) is refused: every statement kind the gate allows calls it.
func prepareGated(c *sqlite3.Conn, g *gate, sql string) (*sqlite3.Stmt, error) {
	g.reset()
	stmt, err := prepareOne(c, sql)
	if e := backend.AsError(err); e != nil && e.Class == backend.ClassInvalid {
		return nil, err // empty, or a second statement (whose compilation the gate also saw)
	}
	g.contextRefusal()
	if g.reason != "" {
		if stmt != nil {
			stmt.Close()
		}
		if err == nil || backend.AsError(err) != nil || isAuthError(err) {
			return nil, refusal(g.reason)
		}
		return nil, err
	}
	if g.schemaWrite && g.kind == 0 {
		if stmt != nil {
			stmt.Close()
		}
		return nil, refusal("writing the schema table sqlite_schema")
	}
	if err != nil {
		return nil, g.gateError(err)
	}
	if g.actions == 0 && !noOpDrop.MatchString(sql) {
		stmt.Close()
		return nil, refusal("statement kind not allowed (VACUUM, REINDEX and similar maintenance statements are refused)")
	}
	if g.off {
		return stmt, nil
	}
	toks := tokenize(sql) // once, for both token checks
	for _, check := range []func([]sqlToken) string{orderRefusalOf, replaceRefusal} {
		if why := check(toks); why != "" {
			stmt.Close()
			g.reason = why
			return nil, refusal(why)
		}
	}
	return stmt, nil
}

// noOpDrop matches DROP … IF EXISTS, which SQLite compiles without an
// authorizer call when the object does not exist: a no-op, whatever the
// node (the schema is consensus state), so it is not a maintenance
// statement.
var noOpDrop = regexp.MustCompile(`(?is)^\s*DROP\s+(TABLE|INDEX|VIEW|TRIGGER)\s+IF\s+EXISTS\s`)

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
// writer, or the copy of the committed schema Analyze dry-runs DDL on.
type ddlConn struct {
	c        *sqlite3.Conn
	g        *gate
	internal *bool // set: the authorizer lets relchain's own statements through
	vetted   map[string]string
	scratch  *scratch
}

func (b *Backend) ddl() ddlConn {
	return ddlConn{c: b.w, g: &b.wgate, internal: &b.internal, vetted: b.vetted, scratch: &b.scratch}
}

// scratch is an empty private database on which vetTable compiles (never
// runs) a table's CREATE statement under the gate. Shared by the writer and
// the dry run.
type scratch struct {
	mu sync.Mutex
	c  *sqlite3.Conn
	g  gate
	rw *rewriter
	// runtime: the postgres dialect's runtime functions, registered on
	// the scratch connection and allowed by its gate (nil: none).
	runtime map[string]bool
}

func (s *scratch) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		s.c.Close()
		s.c = nil
		s.rw.close()
	}
}

// compile compiles sql under the scratch database's gate and returns the
// gate's refusal reason, or why it could not be compiled.
func (s *scratch) compile(sql string, modules map[string]bool, off bool) (reason string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		c, err := sqlite3.OpenFlags(":memory:", sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_MEMORY|sqlite3.OPEN_NOMUTEX)
		if err != nil {
			return "", err
		}
		rw := newRewriter()
		err = initConn(c, rw, s.runtime != nil)
		if err == nil {
			err = c.SetAuthorizer(s.g.check)
		}
		if err != nil {
			c.Close()
			rw.close()
			return "", err
		}
		s.c, s.rw = c, rw
	}
	s.g.modules, s.g.off, s.g.runtime = modules, off, s.runtime
	stmt, err := prepareGated(s.c, &s.g, sql)
	if stmt != nil {
		stmt.Close()
	}
	if err != nil && s.g.reason != "" {
		return s.g.reason, nil
	}
	return "", err
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
			if err == nil {
				err = d.vetTable(name, objs[k])
			}
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

// vetTable compiles the table's CREATE statement (as SQLite stored it) on
// the scratch database under the gate: ALTER TABLE ... ADD COLUMN never
// authorizes the new column's CHECK constraint or generated expression, but
// CREATE TABLE does (and refuses rewritten functions there).
func (d ddlConn) vetTable(table, sql string) error {
	reason, err := d.scratch.compile(sql, d.g.modules, d.g.off)
	switch {
	case reason != "":
		return refusal(fmt.Sprintf("table %s: %s", table, reason))
	case err == nil:
		return nil
	case backend.AsError(err) == nil:
		return err // the scratch database is unavailable: a node fault
	}
	// SQLite accepted this table; the same text cannot fail to compile on
	// an empty database with the same build (no verdict to take here).
	return refusal(fmt.Sprintf("table %s cannot be checked: %v", table, err))
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
