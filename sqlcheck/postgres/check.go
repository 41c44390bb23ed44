// Package postgres is the PostgreSQL dialect of relchain's determinism and
// safety gate (see package sqlcheck for the policy). Check parses a statement
// with PostgreSQL's own parser (libpg_query, through pg_query_go), walks
// every node of the parse tree in a fixed order and rejects anything that
// is not known to be deterministic and harmless.
package postgres

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"github.com/relchain/relchain/sqlcheck"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Bounds of the verdict cache. Texts longer than maxCachedText are checked
// every time; when the cache is full it is emptied (verdicts are cheap to
// recompute, and the hot statements of a workload come back at once).
const (
	maxCachedEntries = 4096
	maxCachedText    = 16 << 10
)

var cache = struct {
	sync.Mutex
	m map[string]error
}{m: make(map[string]error)}

// Check reports whether one statement text may run on a relchain
// PostgreSQL node: nil to allow it, or an error naming the offending
// construct. It is a pure function of the text (verdicts are cached by
// text), safe for concurrent use.
func Check(sql string) error {
	cache.Lock()
	err, ok := cache.m[sql]
	cache.Unlock()
	if ok {
		return err
	}
	err = check(sql)
	if len(sql) <= maxCachedText {
		cache.Lock()
		if len(cache.m) >= maxCachedEntries {
			clear(cache.m)
		}
		cache.m[sql] = err
		cache.Unlock()
	}
	return err
}

// check is Check without the cache.
func check(sql string) error {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		var pe *parser.Error
		msg := err.Error()
		if errors.As(err, &pe) && pe.Cursorpos > 0 {
			msg = fmt.Sprintf("%s (at character %d)", pe.Message, pe.Cursorpos)
		}
		return fmt.Errorf("%w: %s", sqlcheck.ErrUnparseable, msg)
	}
	stmts := tree.GetStmts()
	switch len(stmts) {
	case 0:
		return errors.New("empty statement: the text holds no SQL statement")
	case 1:
	default:
		return fmt.Errorf("the text holds %d statements; exactly one is allowed per statement text", len(stmts))
	}
	top := stmts[0].GetStmt()
	if err := checkTopLevel(top); err != nil {
		return err
	}
	w := walker{}
	return w.walk(top.ProtoReflect())
}

// checkTopLevel allows only the statement kinds of the allowlist.
func checkTopLevel(n *pg_query.Node) error {
	if n == nil || n.GetNode() == nil {
		return errors.New("empty statement")
	}
	switch n.GetNode().(type) {
	case *pg_query.Node_SelectStmt, *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt,
		*pg_query.Node_DeleteStmt, *pg_query.Node_CreateStmt, *pg_query.Node_AlterTableStmt,
		*pg_query.Node_DropStmt, *pg_query.Node_IndexStmt, *pg_query.Node_ViewStmt:
		return nil
	}
	kind := nodeName(n.ProtoReflect())
	if why, ok := stmtReasons[kind]; ok {
		return errors.New(why)
	}
	return fmt.Errorf("statement kind %s is not allowed: only SELECT, INSERT, UPDATE, DELETE and CREATE/ALTER/DROP of tables, indexes and views are", kind)
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

type walker struct {
	modifying int // INSERT/UPDATE/DELETE statements seen in the whole tree
}

// walk visits m and every message below it, depth first, in field
// declaration order (protoreflect's Range has no defined order, and the
// first offence found must be the same on every node).
func (w *walker) walk(m protoreflect.Message) error {
	md := m.Descriptor()
	if md.Name() == "Node" {
		fd := m.WhichOneof(md.Oneofs().Get(0))
		if fd == nil {
			return nil // an empty Node (e.g. the marker of plain DISTINCT)
		}
		return w.walk(m.Get(fd).Message())
	}
	name := string(md.Name())
	if !allowedNodes[name] {
		if why, ok := nodeReasons[name]; ok {
			return errors.New(why)
		}
		if why, ok := stmtReasons[name]; ok {
			return errors.New(why)
		}
		return fmt.Errorf("%s is not allowed: the gate does not know this construct to be deterministic and harmless", name)
	}
	if err := w.visit(m.Interface()); err != nil {
		return err
	}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		if fd.IsList() {
			l := v.List()
			for j := 0; j < l.Len(); j++ {
				if err := w.walk(l.Get(j).Message()); err != nil {
					return err
				}
			}
			continue
		}
		if err := w.walk(v.Message()); err != nil {
			return err
		}
	}
	return nil
}

// visit applies the checks specific to one node type.
func (w *walker) visit(n any) error {
	switch n := n.(type) {
	case *pg_query.SelectStmt:
		return checkSelect(n)
	case *pg_query.InsertStmt, *pg_query.UpdateStmt, *pg_query.DeleteStmt:
		w.modifying++
		if w.modifying > 1 {
			return errors.New("more than one data-modifying statement (INSERT/UPDATE/DELETE in a WITH clause) is not allowed: PostgreSQL leaves their order unspecified")
		}
	case *pg_query.FuncCall:
		return checkFuncCall(n)
	case *pg_query.SQLValueFunction:
		return checkSQLValueFunction(n)
	case *pg_query.A_Const:
		return checkConst(n)
	case *pg_query.TypeCast:
		return checkTypeCast(n)
	case *pg_query.TypeName:
		return checkTypeName(n)
	case *pg_query.ColumnRef:
		return checkColumnRef(n)
	case *pg_query.RangeVar:
		return checkRangeVar(n)
	case *pg_query.CollateClause:
		return checkCollation(n.GetCollname())
	case *pg_query.IndexElem:
		return checkCollation(n.GetCollation())
	case *pg_query.CreateStmt:
		return checkCreate(n)
	case *pg_query.ColumnDef:
		return checkColumnDef(n)
	case *pg_query.Constraint:
		return checkConstraint(n)
	case *pg_query.AlterTableStmt:
		if n.GetObjtype() != pg_query.ObjectType_OBJECT_TABLE {
			return fmt.Errorf("ALTER %s is not allowed: only ALTER TABLE is", objectName(n.GetObjtype()))
		}
	case *pg_query.AlterTableCmd:
		return checkAlterCmd(n)
	case *pg_query.DropStmt:
		return checkDrop(n)
	case *pg_query.IndexStmt:
		return checkIndex(n)
	case *pg_query.ViewStmt:
		if p := n.GetView().GetRelpersistence(); p == "t" {
			return errors.New("temporary views are not allowed: they exist on one node's session only")
		}
	}
	return nil
}

func checkSelect(s *pg_query.SelectStmt) error {
	if s.GetIntoClause() != nil {
		return errors.New("SELECT INTO is not allowed: use CREATE TABLE and INSERT ... SELECT")
	}
	if len(s.GetLockingClause()) > 0 {
		return errors.New("locking clauses (FOR UPDATE/SHARE) are not allowed: relchain executes serially")
	}
	ordered := len(s.GetSortClause()) > 0
	if !ordered && (s.GetLimitCount() != nil || s.GetLimitOffset() != nil) {
		return errors.New("LIMIT/OFFSET/FETCH FIRST without ORDER BY is not allowed: the rows it keeps differ between nodes")
	}
	if !ordered {
		for _, d := range s.GetDistinctClause() {
			if d.GetNode() != nil {
				return errors.New("DISTINCT ON without ORDER BY is not allowed: the row it keeps per group differs between nodes")
			}
		}
	}
	return nil
}

func checkSQLValueFunction(f *pg_query.SQLValueFunction) error {
	name := strings.ToLower(strings.TrimPrefix(f.GetOp().String(), "SVFOP_"))
	name = strings.TrimSuffix(name, "_n")
	switch f.GetOp() {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME,
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP,
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME,
		pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP,
		pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return fmt.Errorf("%s is not allowed: it reads the node's clock (rewriting to block time is future work)", name)
	}
	return fmt.Errorf("%s is not allowed: it is a node-local session value", name)
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
			return fmt.Errorf("the date/time literal '%s' is not allowed: PostgreSQL resolves it with the node's clock", w)
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
		return fmt.Errorf("the date/time literal '%s' is not allowed: PostgreSQL resolves it with the node's clock", w)
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
	full := strings.Join(stringsOf(t.GetNames()), ".")
	switch {
	case serialTypes[name]:
		return fmt.Errorf("type %s is not allowed: %s", name, sequenceReason)
	case strings.HasPrefix(name, "reg"):
		return fmt.Errorf("type %s is not allowed: object identifiers differ between nodes", full)
	case name == "" || !allowedTypes[name]:
		return fmt.Errorf("type %s is not allowed: it is not on the gate's allowlist of types", full)
	}
	return nil
}

// systemColumns are PostgreSQL's system columns: physical row addresses and
// transaction ids that differ between nodes. oid has not been a system
// column since PostgreSQL 12, but is rejected too (fail closed).
var systemColumns = map[string]bool{"ctid": true, "xmin": true, "xmax": true, "cmin": true,
	"cmax": true, "tableoid": true, "oid": true}

func checkColumnRef(c *pg_query.ColumnRef) error {
	fields := c.GetFields()
	if len(fields) == 0 {
		return nil
	}
	if last := fields[len(fields)-1].GetString_(); last != nil && systemColumns[last.GetSval()] {
		return fmt.Errorf("system column %s is not allowed: its values differ between nodes", last.GetSval())
	}
	if len(fields) >= 3 {
		names := stringsOf(fields)
		if len(fields) >= 4 {
			return errors.New("cross-database references are not allowed")
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
	if len(c.GetOptions()) > 0 {
		return errors.New("storage parameters (WITH (...)) are not allowed")
	}
	return nil
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
	switch d.GetRemoveType() {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_INDEX, pg_query.ObjectType_OBJECT_VIEW:
	default:
		return fmt.Errorf("DROP %s is not allowed: only DROP TABLE, INDEX and VIEW are", objectName(d.GetRemoveType()))
	}
	if d.GetConcurrent() {
		return errors.New("DROP INDEX CONCURRENTLY is not allowed")
	}
	for _, o := range d.GetObjects() {
		names := stringsOf(o.GetList().GetItems())
		switch len(names) {
		case 1:
			if err := checkRelName("", names[0]); err != nil {
				return err
			}
		case 2:
			if err := checkRelName(names[0], names[1]); err != nil {
				return err
			}
		default:
			return errors.New("DROP of a cross-database or unnamed object is not allowed")
		}
	}
	return nil
}

func checkIndex(x *pg_query.IndexStmt) error {
	if x.GetConcurrent() {
		return errors.New("CREATE INDEX CONCURRENTLY is not allowed")
	}
	if x.GetTableSpace() != "" {
		return errors.New("tablespaces are not allowed")
	}
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
