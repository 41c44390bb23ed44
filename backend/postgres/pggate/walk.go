package pggate

import (
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// stmtContext says where a statement being checked stands.
type stmtContext int

const (
	stmtTop  stmtContext = iota // a statement text of a tx
	stmtBody                    // a statement of a SQL function body
	stmtPL                      // an SQL statement or expression of a PL/pgSQL body
)

// checkStatement checks one statement (top, a function body statement or
// an embedded PL/pgSQL statement): its kind against the allowlist, then
// every node of its tree. sql is the statement's whole text, needed to
// parse a PL/pgSQL body.
func checkStatement(top *pg_query.Node, sql string, ctx stmtContext) (*walker, error) {
	if err := checkTopLevel(top); err != nil {
		return nil, err
	}
	if ctx != stmtTop && top.GetConstraintsSetStmt() != nil {
		// The backend would not know the body changed the tx's check mode
		// (backend/postgres/deferred.go). The words are the ones every
		// protocol version gave: a refusal's reason is part of a tx's
		// result, which replays reproduce.
		return nil, errors.New(setConstraintsInBody)
	}
	w := &walker{sql: sql, ctx: ctx, series: 1, growth: 1}
	switch {
	case ctx != stmtTop:
		w.noEnv = "in a function or procedure body it would be evaluated at each call, outside the rewritten statement, with the node's own clock and generator; pass the value as an argument"
	case isDDL(top):
		w.noEnv = "in DDL (DEFAULT, CHECK, generated columns, index expressions, views, CREATE TABLE AS, trigger conditions) it would be evaluated outside a rewritten statement, with the node's own clock and generator; it is allowed, rewritten to the block's values, in SELECT, INSERT, UPDATE, DELETE, MERGE and CALL"
	}
	if err := w.walk(top.ProtoReflect(), nil); err != nil {
		return nil, err
	}
	if err := w.checkSynthesized(); err != nil {
		return nil, err
	}
	if err := w.checkSequenceCalls(top); err != nil {
		return nil, err
	}
	if len(w.aggs) > 0 {
		applyAggFixes(w.aggs)
		w.rewritten = true
	}
	if len(w.session) > 0 {
		w.replaceSession()
		w.rewritten = true
	}
	if _, index := top.GetNode().(*pg_query.Node_IndexStmt); len(w.clockCasts) > 0 && !index {
		guardClockCasts(w.clockCasts) // clockcast.go
		w.guarded = ctx == stmtTop
		w.rewritten = w.rewritten || ctx != stmtTop // a SQL function body's text is rewritten
	}
	if ctx != stmtTop && isDDL(top) {
		// relchain attaches change capture to the tables a block's DDL
		// statement creates, right after it (backend/postgres: no event
		// trigger, which would need a superuser): it must see every DDL.
		return nil, errors.New("DDL (CREATE, ALTER, DROP) is not allowed in a function or procedure body: run it as a statement of its own")
	}
	if w.randoms > 0 && w.perRow != "" {
		return nil, fmt.Errorf("random() is not allowed in a statement with %s: it could be evaluated once per row, in a scan order that can differ between nodes; random() is rewritten to block-seeded values only in statements that read no table (such as SELECT random() or INSERT ... VALUES (random()))", w.perRow)
	}
	return w, nil
}

// checkTopLevel allows only the statement kinds of the allowlist.
func checkTopLevel(n *pg_query.Node) error {
	if n == nil || n.GetNode() == nil {
		return errors.New("empty statement")
	}
	switch n.GetNode().(type) {
	case *pg_query.Node_SelectStmt, *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt,
		*pg_query.Node_DeleteStmt, *pg_query.Node_MergeStmt, *pg_query.Node_CallStmt,
		*pg_query.Node_CreateStmt, *pg_query.Node_CreateTableAsStmt, *pg_query.Node_AlterTableStmt,
		*pg_query.Node_DropStmt, *pg_query.Node_IndexStmt, *pg_query.Node_ViewStmt,
		*pg_query.Node_CreateFunctionStmt, *pg_query.Node_CreateTrigStmt, *pg_query.Node_TruncateStmt,
		*pg_query.Node_CreateSeqStmt, *pg_query.Node_AlterSeqStmt, *pg_query.Node_ConstraintsSetStmt:
		return nil
	}
	kind := nodeName(n.ProtoReflect())
	if why, ok := stmtReasons[kind]; ok {
		return errors.New(why)
	}
	return fmt.Errorf("statement kind %s is not allowed: only SELECT, INSERT, UPDATE, DELETE, MERGE, CALL and CREATE/ALTER/DROP of tables, indexes, views, functions, procedures and triggers are", kind)
}

// nodeName is the message name of the node a Node wrapper holds.
func nodeName(m protoreflect.Message) string {
	md := m.Descriptor()
	if md.Name() == "Node" {
		if fd := m.WhichOneof(md.Oneofs().Get(0)); fd != nil {
			return string(fd.Message().Name())
		}
	}
	return string(md.Name())
}

// walker checks one statement's tree and gathers what Analysis and Rewrite
// need.
type walker struct {
	sql       string
	ctx       stmtContext
	policy    policy   // which refusals apply (see policy and nondeterministic)
	modifying int      // INSERT/UPDATE/DELETE/MERGE statements seen in the whole tree
	writes    []string // the tables they write (relName)

	// Clock and random functions.
	noEnv     string   // non-empty: they are not allowed here, for this reason
	sites     []site   // their call sites, in walk order
	renames   []rename // output columns to name explicitly in the rewrite
	randoms   int      // how many of the sites are random()
	perRow    string   // the first construct that may evaluate an expression per row
	returning int      // >0 while inside a RETURNING list

	series float64 // product of the generate_series spans so far

	// Work bounds (see bounds.go).
	crossJoins int           // unconnected FROM items so far
	growth     float64       // product of the size factors of the calls so far
	padded     int64         // sum of the lengths of the lpad/rpad calls so far
	aggs       []aggFix      // aggregate calls whose input order the rewrite fixes
	rewritten  bool          // the tree was changed (aggs, a function body's text)
	keyOrder   bool          // a LIMIT without ORDER BY the block orders by a key (limit.go)
	session    []sessionSite // session calls replaced by network-wide values (session.go)

	// For the IMMUTABLE check of routine bodies.
	readsRel, callsUser bool

	// Catalog relations the read path replaces by their rows that are not
	// relchain's (see readRelation).
	catalogs []catalogUse
	// Calls the read path guards (see readGuarded).
	guards []guardedCall

	seqWrites    int  // nextval and setval calls (see checkSequenceCalls)
	seqRewritten bool // sequence functions or identity columns were rewritten

	clockCasts []*pg_query.TypeCast // casts to guard against clock words (clockcast.go)
	guarded    bool                 // the statement's casts were guarded

	retType *pg_query.TypeName // a function's return type: pseudo-types allowed
	callee  *pg_query.FuncCall // the procedure of a CALL
}

// walk visits m and every message below it, depth first, in field
// declaration order (protoreflect's Range has no defined order, and the
// first offence found, and the numbering of random() call sites, must be
// the same on every node). wrapper is the Node holding m, if any.
func (w *walker) walk(m protoreflect.Message, wrapper *pg_query.Node) error {
	md := m.Descriptor()
	if md.Name() == "Node" {
		fd := m.WhichOneof(md.Oneofs().Get(0))
		if fd == nil {
			return nil // an empty Node (e.g. the marker of plain DISTINCT)
		}
		return w.walk(m.Get(fd).Message(), m.Interface().(*pg_query.Node))
	}
	name := string(md.Name())
	if !allowedNodes[name] && !(w.policy == readPolicy && readNodes[name]) {
		if why, ok := nodeReasons[name]; ok {
			return errors.New(why)
		}
		if why, ok := stmtReasons[name]; ok {
			return errors.New(why)
		}
		return fmt.Errorf("%s is not allowed: the gate does not know this construct to be deterministic and harmless", name)
	}
	if err := w.visit(m.Interface(), wrapper); err != nil {
		return err
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) {
			continue
		}
		switch fd.Name() {
		case "sql_body":
			continue // a function's body: checked statement by statement (checkRoutine)
		case "returning_list":
			w.returning++
		}
		v := m.Get(fd)
		var err error
		if fd.IsList() {
			output := fd.Name() == "target_list" || fd.Name() == "returning_list"
			l := v.List()
			for j := 0; j < l.Len() && err == nil; j++ {
				e := l.Get(j).Message()
				if output {
					err = w.outputColumn(e.Interface().(*pg_query.Node))
				} else {
					err = w.walk(e, nil)
				}
			}
		} else {
			err = w.walk(v.Message(), nil)
		}
		if fd.Name() == "returning_list" {
			w.returning--
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// outputColumn walks one entry of a target or RETURNING list. An output
// column without AS whose expression holds a call to rewrite gets the name
// PostgreSQL would give it (see colName), so the rewrite keeps its name.
func (w *walker) outputColumn(n *pg_query.Node) error {
	before, beforeSession := len(w.sites), len(w.session)
	if err := w.walk(n.ProtoReflect(), nil); err != nil {
		return err
	}
	rt := n.GetResTarget()
	if (len(w.sites) == before && len(w.session) == beforeSession) || rt == nil || rt.GetName() != "" {
		return nil
	}
	name, ok := colName(rt.GetVal())
	if !ok {
		return errors.New("this output column reads the clock or random numbers and its name cannot be kept by the rewrite: name it with AS")
	}
	w.renames = append(w.renames, rename{rt, name})
	return nil
}

// modifies records an INSERT/UPDATE/DELETE/MERGE of rel.
func (w *walker) modifies(rel *pg_query.RangeVar) error {
	w.modifying++
	if w.modifying > 1 {
		return errors.New("more than one data-modifying statement (INSERT/UPDATE/DELETE/MERGE in a WITH clause) is not allowed: PostgreSQL leaves their order unspecified")
	}
	if rel != nil {
		w.writes = append(w.writes, relName(rel))
	}
	return nil
}

// rowSource records the first construct that may evaluate expressions once
// per row (see the random() rule in checkStatement).
func (w *walker) rowSource(what string) {
	if w.perRow == "" {
		w.perRow = what
	}
}

// visit applies the checks specific to one node type.
func (w *walker) visit(n any, wrapper *pg_query.Node) error {
	if err := w.nondeterministic(w.checkJoins(n)); err != nil {
		return err
	}
	switch n := n.(type) {
	case *pg_query.SelectStmt:
		if len(n.GetFromClause()) > 0 {
			w.rowSource("a FROM clause")
		}
		return w.checkSelect(n)
	case *pg_query.InsertStmt:
		if oc := n.GetOnConflictClause(); oc != nil && oc.GetAction() == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
			w.rowSource("ON CONFLICT DO UPDATE")
		}
		return w.modifies(n.GetRelation())
	case *pg_query.UpdateStmt:
		w.rowSource("UPDATE")
		return w.modifies(n.GetRelation())
	case *pg_query.DeleteStmt:
		w.rowSource("DELETE")
		return w.modifies(n.GetRelation())
	case *pg_query.MergeStmt:
		w.rowSource("MERGE")
		return w.modifies(n.GetRelation())
	case *pg_query.WithClause:
		if n.GetRecursive() {
			return w.nondeterministic(errors.New("WITH RECURSIVE is not allowed: unbounded recursion cannot be bounded deterministically on PostgreSQL (it has no deterministic instruction counter, and a timeout would decide differently on each node); use generate_series with constant bounds"))
		}
	case *pg_query.RangeFunction:
		for _, f := range n.GetFunctions() {
			if items := f.GetList().GetItems(); len(items) > 0 && isEnvCall(items[0]) {
				return w.nondeterministic(errors.New("a clock function or random() as a FROM item cannot be rewritten (its name would change): select it, as in (SELECT now() AS t) AS s"))
			}
		}
	case *pg_query.SubLink:
		switch n.GetSubLinkType() {
		case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK, pg_query.SubLinkType_ROWCOMPARE_SUBLINK:
			w.rowSource("IN/ANY/ALL (subquery)")
		}
	default:
		return w.visitExprOrDDL(n, wrapper)
	}
	return nil
}

// visitExprOrDDL applies the checks specific to expressions, names and
// DDL nodes.
func (w *walker) visitExprOrDDL(n any, wrapper *pg_query.Node) error {
	switch n := n.(type) {
	case *pg_query.FuncCall:
		return w.funcCall(n, wrapper)
	case *pg_query.SQLValueFunction:
		if handled, err := w.sessionSQLValue(n, wrapper); handled {
			return err
		}
		if w.policy == readPolicy {
			return nil // clock values, decided by no block on the read path
		}
		return w.sqlValueFunction(n, wrapper)
	case *pg_query.A_Const:
		return w.nondeterministic(checkConst(n))
	case *pg_query.TypeCast:
		w.clockCast(n)
		return w.nondeterministic(checkTypeCast(n))
	case *pg_query.TypeName:
		if w.policy == readPolicy {
			return readTypeName(n)
		}
		if n == w.retType {
			return checkReturnType(n)
		}
		return checkTypeName(n)
	case *pg_query.ColumnRef:
		return w.columnRef(n)
	case *pg_query.RangeVar:
		w.readsRel = true
		if w.policy == readPolicy {
			return w.readRelation(n, wrapper)
		}
		return checkRangeVar(n)
	case *pg_query.CollateClause:
		return w.nondeterministic(checkCollation(n.GetCollname()))
	case *pg_query.IndexElem:
		return w.nondeterministic(checkCollation(n.GetCollation()))
	}
	return w.visitDDL(n)
}

// visitDDL applies the checks specific to DDL nodes.
func (w *walker) visitDDL(n any) error {
	switch n := n.(type) {
	case *pg_query.CreateStmt:
		return checkCreate(n)
	case *pg_query.CreateTableAsStmt:
		return checkCreateTableAs(n)
	case *pg_query.IntoClause:
		return checkInto(n)
	case *pg_query.ColumnDef:
		if err := w.identityColumn(n); err != nil {
			return err
		}
		return checkColumnDef(n)
	case *pg_query.CreateSeqStmt, *pg_query.AlterSeqStmt:
		return checkSequenceStmt(n)
	case *pg_query.Constraint:
		return checkConstraint(n)
	case *pg_query.AlterTableStmt:
		if n.GetObjtype() != pg_query.ObjectType_OBJECT_TABLE {
			return fmt.Errorf("ALTER %s is not allowed: only ALTER TABLE is", objectName(n.GetObjtype()))
		}
	case *pg_query.AlterTableCmd:
		if err := checkAddColumnSequence(n); err != nil {
			return err
		}
		return checkAlterCmd(n)
	case *pg_query.DropStmt:
		return checkDrop(n)
	case *pg_query.TruncateStmt:
		return w.checkTruncate(n)
	case *pg_query.IndexStmt:
		return checkIndex(n)
	case *pg_query.ViewStmt:
		if p := n.GetView().GetRelpersistence(); p == "t" {
			return errors.New("temporary views are not allowed: they exist on one node's session only")
		}
	case *pg_query.CreateFunctionStmt:
		w.retType = n.GetReturnType()
		return w.checkRoutine(n)
	case *pg_query.CreateTrigStmt:
		return checkTrigger(n)
	case *pg_query.CallStmt:
		w.callee = n.GetFunccall()
		return checkCall(n)
	}
	return nil
}

// checkSelect refuses SELECT INTO and locking clauses (safety: they write
// or lock) and, on the block path, LIMIT and DISTINCT ON that keep rows
// depending on their physical order (determinism).
func (w *walker) checkSelect(s *pg_query.SelectStmt) error {
	if s.GetIntoClause() != nil {
		return errors.New("SELECT INTO is not allowed: use CREATE TABLE ... AS or INSERT ... SELECT")
	}
	if len(s.GetLockingClause()) > 0 {
		return errors.New("locking clauses (FOR UPDATE/SHARE) are not allowed: relchain executes serially")
	}
	ordered := len(s.GetSortClause()) > 0
	if !ordered && (s.GetLimitCount() != nil || s.GetLimitOffset() != nil) {
		if w.ctx != stmtTop {
			return w.nondeterministic(errLimitInBody)
		}
		// Ordered by its table's key, or refused (limit.go).
		w.keyOrder = w.policy == blockPolicy
	}
	if !ordered {
		for _, d := range s.GetDistinctClause() {
			if d.GetNode() != nil {
				return w.nondeterministic(errors.New("DISTINCT ON without ORDER BY is not allowed: the row it keeps per group differs between nodes"))
			}
		}
	}
	return nil
}

// specialDateWords are the date/time input strings PostgreSQL resolves
// against the clock.
var specialDateWords = map[string]bool{"now": true, "today": true, "tomorrow": true, "yesterday": true}

// dateWords are words that may stand next to a special word in a date/time
// input string.
var dateWords = map[string]bool{"at": true, "am": true, "pm": true, "allballs": true, "z": true,
	"utc": true, "gmt": true, "zulu": true, "bc": true, "ad": true, "t": true, "epoch": true}

// clockWord reports the first special date word of a string constant, if
// the constant could be date/time input that reads the clock: strict says
// it is cast to a date/time type; otherwise the string must look like
// date/time input (at most one word besides special words, date words and
// numbers; a time zone name or abbreviation), as a string PostgreSQL
// coerces implicitly to a date/time column or argument would.
func clockWord(s string, strict bool) string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == ','
	})
	found, others := "", 0
	for _, f := range fields {
		f := strings.Trim(f, ".;:'\"()")
		if specialDateWords[f] {
			if found == "" {
				found = f
			}
			continue
		}
		if dateWords[f] || strings.IndexFunc(f, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0 {
			continue
		}
		others++
	}
	if found == "" || (!strict && others > 1) {
		return ""
	}
	return found
}

func checkConst(c *pg_query.A_Const) error {
	if sv := c.GetSval(); sv != nil {
		if w := clockWord(sv.GetSval(), false); w != "" {
			return fmt.Errorf("the date/time literal '%s' is not allowed: PostgreSQL resolves it with the node's clock; use now() or current_date, which are rewritten to the block's time", w)
		}
	}
	return nil
}

func checkTypeCast(tc *pg_query.TypeCast) error {
	sv := tc.GetArg().GetAConst().GetSval()
	if sv == nil || !isDateTimeType(tc.GetTypeName()) {
		return nil
	}
	if w := clockWord(sv.GetSval(), true); w != "" {
		return fmt.Errorf("the date/time literal '%s' is not allowed: PostgreSQL resolves it with the node's clock; use now() or current_date, which are rewritten to the block's time", w)
	}
	return nil
}

// typeName is the unqualified name of a type (pg_catalog. dropped), or ""
// if it is qualified by any other schema.
func typeName(t *pg_query.TypeName) string {
	names := stringsOf(t.GetNames())
	switch {
	case len(names) == 1:
		return names[0]
	case len(names) == 2 && names[0] == "pg_catalog":
		return names[1]
	}
	return ""
}

func isDateTimeType(t *pg_query.TypeName) bool {
	switch typeName(t) {
	case "date", "time", "timetz", "timestamp", "timestamptz", "abstime", "reltime":
		return true
	}
	return false
}

func checkTypeName(t *pg_query.TypeName) error {
	if t.GetPctType() {
		return errors.New("%TYPE is not allowed")
	}
	name := typeName(t)
	names := stringsOf(t.GetNames())
	full := strings.Join(names, ".")
	if len(names) == 2 && names[0] == "public" {
		// A table's row type: CREATE TYPE and CREATE DOMAIN are not
		// allowed, so nothing else can live there.
		return checkRelName("", names[1])
	}
	switch {
	case serialTypes[name]:
		return nil // a column's type only (PostgreSQL refuses it elsewhere); see sequence.go
	case strings.HasPrefix(name, "reg"):
		return fmt.Errorf("type %s is not allowed: object identifiers differ between nodes", full)
	case name == "" || !allowedTypes[name]:
		return fmt.Errorf("type %s is not allowed: it is not on the gate's allowlist of types (a table's row type is named public.<table>)", full)
	}
	return nil
}

// checkReturnType checks a function's return type: the pseudo-types
// trigger, void and record are allowed besides the types of checkTypeName.
func checkReturnType(t *pg_query.TypeName) error {
	switch typeName(t) {
	case "trigger", "void", "record":
		if !t.GetPctType() && len(t.GetArrayBounds()) == 0 {
			return nil
		}
	}
	return checkTypeName(t)
}

// systemColumns are PostgreSQL's system columns: physical row addresses and
// transaction ids that differ between nodes. oid has not been a system
// column since PostgreSQL 12, but is rejected too (fail closed).
var systemColumns = map[string]bool{"ctid": true, "xmin": true, "xmax": true, "cmin": true,
	"cmax": true, "tableoid": true, "oid": true}

func (w *walker) columnRef(c *pg_query.ColumnRef) error {
	fields := c.GetFields()
	if len(fields) == 0 {
		return nil
	}
	if w.ctx == stmtPL {
		if first := fields[0].GetString_(); first != nil && strings.EqualFold(first.GetSval(), "tg_relid") {
			return errors.New("TG_RELID is not allowed: object identifiers differ between nodes; use TG_TABLE_SCHEMA and TG_TABLE_NAME")
		}
	}
	if last := fields[len(fields)-1].GetString_(); last != nil && systemColumns[last.GetSval()] {
		if err := w.nondeterministic(fmt.Errorf("system column %s is not allowed: its values differ between nodes", last.GetSval())); err != nil {
			return err
		}
	}
	if len(fields) >= 3 {
		names := stringsOf(fields)
		if len(fields) >= 4 {
			return errors.New("cross-database references are not allowed")
		}
		if w.policy == readPolicy {
			return readSchema(names[0])
		}
		return checkSchema(names[0])
	}
	return nil
}

// checkSchema rejects references to system schemas and relchain's own.
func checkSchema(schema string) error {
	switch {
	case schema == "relchain":
		return errors.New("schema relchain is relchain's own: it is not accessible to statements")
	case schema == "pg_catalog", schema == "information_schema", strings.HasPrefix(schema, "pg_"):
		return fmt.Errorf("system schema %s is not accessible to statements", schema)
	}
	return nil
}

// checkRelName rejects a (schema, relation) name of the system or relchain.
func checkRelName(schema, rel string) error {
	if schema != "" {
		if err := checkSchema(schema); err != nil {
			return err
		}
	}
	if strings.HasPrefix(rel, "pg_") {
		return fmt.Errorf("relation %s is not accessible to statements: names starting with pg_ belong to the system", rel)
	}
	return nil
}

func checkRangeVar(r *pg_query.RangeVar) error {
	if r.GetCatalogname() != "" {
		return errors.New("cross-database references are not allowed")
	}
	switch r.GetRelpersistence() {
	case "t":
		return errors.New("temporary tables are not allowed: they exist on one node's session only")
	case "u":
		return errors.New("unlogged tables are not allowed: a crash empties them on that node only")
	}
	return checkRelName(r.GetSchemaname(), r.GetRelname())
}

// checkCollation allows only the locale-independent collations: the others
// depend on each node's ICU or C library.
func checkCollation(name []*pg_query.Node) error {
	if len(name) == 0 {
		return nil
	}
	names := stringsOf(name)
	n := names[len(names)-1]
	if len(names) > 2 || (len(names) == 2 && names[0] != "pg_catalog") {
		return fmt.Errorf("collation %s is not allowed", strings.Join(names, "."))
	}
	switch n {
	case "C", "POSIX", "ucs_basic", "default":
		return nil
	}
	return fmt.Errorf("collation %q is not allowed: it depends on each node's locale library; use \"C\"", n)
}

func checkCreate(c *pg_query.CreateStmt) error {
	if c.GetTablespacename() != "" {
		return errors.New("tablespaces are not allowed")
	}
	if am := c.GetAccessMethod(); am != "" && am != "heap" {
		return fmt.Errorf("table access method %s is not allowed", am)
	}
	return checkTableParams(c.GetOptions())
}

func checkColumnDef(c *pg_query.ColumnDef) error {
	if c.GetIdentity() != "" {
		return fmt.Errorf("identity column %s is not allowed: %s", c.GetColname(), sequenceReason)
	}
	if c.GetCompression() != "" {
		return errors.New("column compression methods are not allowed: their availability depends on each node's build")
	}
	return nil
}

func checkConstraint(c *pg_query.Constraint) error {
	if c.GetContype() == pg_query.ConstrType_CONSTR_IDENTITY {
		return fmt.Errorf("GENERATED ... AS IDENTITY is not allowed: %s", sequenceReason)
	}
	if c.GetIndexspace() != "" {
		return errors.New("tablespaces are not allowed")
	}
	return nil
}

var allowedAlterCmds = map[pg_query.AlterTableType]bool{
	pg_query.AlterTableType_AT_AddColumn:          true,
	pg_query.AlterTableType_AT_ColumnDefault:      true,
	pg_query.AlterTableType_AT_DropNotNull:        true,
	pg_query.AlterTableType_AT_SetNotNull:         true,
	pg_query.AlterTableType_AT_DropExpression:     true,
	pg_query.AlterTableType_AT_DropColumn:         true,
	pg_query.AlterTableType_AT_AddConstraint:      true,
	pg_query.AlterTableType_AT_AlterConstraint:    true,
	pg_query.AlterTableType_AT_ValidateConstraint: true,
	pg_query.AlterTableType_AT_DropConstraint:     true,
	pg_query.AlterTableType_AT_AlterColumnType:    true,
}

func checkAlterCmd(c *pg_query.AlterTableCmd) error {
	t := c.GetSubtype()
	if allowedAlterCmds[t] {
		return nil
	}
	if t == pg_query.AlterTableType_AT_SetRelOptions || t == pg_query.AlterTableType_AT_ResetRelOptions {
		return checkTableParams(c.GetDef().GetList().GetItems())
	}
	what := strings.TrimPrefix(t.String(), "AT_")
	switch t {
	case pg_query.AlterTableType_AT_EnableTrig, pg_query.AlterTableType_AT_EnableAlwaysTrig,
		pg_query.AlterTableType_AT_EnableReplicaTrig, pg_query.AlterTableType_AT_DisableTrig,
		pg_query.AlterTableType_AT_EnableTrigAll, pg_query.AlterTableType_AT_DisableTrigAll,
		pg_query.AlterTableType_AT_EnableTrigUser, pg_query.AlterTableType_AT_DisableTrigUser:
		what = "ENABLE/DISABLE TRIGGER (relchain's change capture depends on its triggers)"
	case pg_query.AlterTableType_AT_AddIdentity, pg_query.AlterTableType_AT_SetIdentity:
		return fmt.Errorf("ALTER TABLE ... IDENTITY is not allowed: %s", sequenceReason)
	case pg_query.AlterTableType_AT_SetUnLogged:
		what = "SET UNLOGGED (a crash empties unlogged tables on that node only)"
	case pg_query.AlterTableType_AT_SetTableSpace:
		what = "SET TABLESPACE"
	case pg_query.AlterTableType_AT_ChangeOwner:
		what = "OWNER TO"
	}
	return fmt.Errorf("ALTER TABLE subcommand %s is not allowed", what)
}

func checkDrop(d *pg_query.DropStmt) error {
	if d.GetConcurrent() {
		return errors.New("DROP INDEX CONCURRENTLY is not allowed")
	}
	switch t := d.GetRemoveType(); t {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_INDEX, pg_query.ObjectType_OBJECT_VIEW, pg_query.ObjectType_OBJECT_SEQUENCE:
		for _, o := range d.GetObjects() {
			if err := checkQualifiedRel(stringsOf(o.GetList().GetItems())); err != nil {
				return err
			}
		}
	case pg_query.ObjectType_OBJECT_FUNCTION, pg_query.ObjectType_OBJECT_PROCEDURE, pg_query.ObjectType_OBJECT_ROUTINE:
		for _, o := range d.GetObjects() {
			if err := checkRoutineName(stringsOf(o.GetObjectWithArgs().GetObjname()), "DROP "+objectName(t)); err != nil {
				return err
			}
		}
	case pg_query.ObjectType_OBJECT_TRIGGER:
		for _, o := range d.GetObjects() {
			names := stringsOf(o.GetList().GetItems())
			if len(names) < 2 {
				return errors.New("DROP TRIGGER needs ON table")
			}
			if err := checkTriggerName(names[len(names)-1]); err != nil {
				return err
			}
			if err := checkQualifiedRel(names[:len(names)-1]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("DROP %s is not allowed: only DROP TABLE, INDEX, VIEW, SEQUENCE, FUNCTION, PROCEDURE, ROUTINE and TRIGGER are", objectName(t))
	}
	return nil
}

// checkQualifiedRel checks a relation name given as [schema.]name.
func checkQualifiedRel(names []string) error {
	switch len(names) {
	case 1:
		return checkRelName("", names[0])
	case 2:
		return checkRelName(names[0], names[1])
	}
	return errors.New("cross-database or unnamed objects are not allowed")
}

func checkCreateTableAs(c *pg_query.CreateTableAsStmt) error {
	if c.GetObjtype() != pg_query.ObjectType_OBJECT_TABLE {
		return errors.New("CREATE MATERIALIZED VIEW is not allowed: refreshing it is a maintenance command; use a view or a table")
	}
	if c.GetIsSelectInto() {
		return errors.New("SELECT INTO is not allowed: use CREATE TABLE ... AS or INSERT ... SELECT")
	}
	return nil
}

func checkInto(c *pg_query.IntoClause) error {
	switch {
	case c.GetTableSpaceName() != "":
		return errors.New("tablespaces are not allowed")
	case c.GetAccessMethod() != "" && c.GetAccessMethod() != "heap":
		return fmt.Errorf("table access method %s is not allowed", c.GetAccessMethod())
	case c.GetOnCommit() != pg_query.OnCommitAction_ONCOMMIT_NOOP && c.GetOnCommit() != pg_query.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED:
		return errors.New("ON COMMIT is not allowed: it is for temporary tables")
	case c.GetViewQuery() != nil:
		return errors.New("materialized views are not allowed")
	}
	return checkTableParams(c.GetOptions())
}

func checkIndex(x *pg_query.IndexStmt) error {
	if x.GetConcurrent() {
		return errors.New("CREATE INDEX CONCURRENTLY is not allowed")
	}
	if x.GetTableSpace() != "" {
		return errors.New("tablespaces are not allowed")
	}
	plainParamValues(x.GetOptions())
	switch x.GetAccessMethod() {
	case "", "btree", "hash", "gist", "gin", "spgist", "brin":
	default:
		return fmt.Errorf("index access method %s is not allowed", x.GetAccessMethod())
	}
	return checkRelName("", x.GetIdxname())
}

func objectName(t pg_query.ObjectType) string {
	return strings.ReplaceAll(strings.TrimPrefix(t.String(), "OBJECT_"), "_", " ")
}

// stringsOf returns the String values of a name list (other nodes, such
// as A_Star, are skipped).
func stringsOf(nodes []*pg_query.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.GetSval())
		}
	}
	return out
}
