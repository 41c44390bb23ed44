package mysqlgate

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// maxDepth bounds how deeply nested a statement's parse tree may be (the
// walk is recursive).
const maxDepth = 1000

// parserPkg is the package path of the parse-tree types.
var parserPkg = reflect.TypeOf(sqlparser.Select{}).PkgPath()

// walkedFields is knownTypes as sets.
var walkedFields = func() map[string]map[string]bool {
	m := make(map[string]map[string]bool, len(knownTypes))
	for t, fields := range knownTypes {
		m[t] = setOf(fields...)
	}
	return m
}()

// walker checks one statement's tree and gathers what Analysis needs.
type walker struct {
	ddl    bool
	writes []string // tables written, lower case
	depth  int
	subDDL map[*sqlparser.DDL]bool // the pieces of an ALTER TABLE (or CREATE/DROP INDEX)
	// amplifier is the size-multiplying function whose arguments the walk
	// is in (see bounds.go); aggregates counts the SUM and AVG calls it is
	// in.
	amplifier  string
	aggregates int
	// crossJoins and constRows are the statement's cross joins and the
	// product of its constant derived tables' rows (see checkJoins).
	crossJoins int
	constRows  uint64
}

// checkStatement checks one parsed statement: its kind against the
// allowlist, then every node of its tree.
func checkStatement(stmt sqlparser.Statement) (*walker, error) {
	w := &walker{constRows: 1}
	if err := w.checkTopLevel(stmt); err != nil {
		return nil, err
	}
	if err := w.walk(reflect.ValueOf(stmt)); err != nil {
		return nil, err
	}
	return w, nil
}

// checkTopLevel allows only the statement kinds of the allowlist.
func (w *walker) checkTopLevel(stmt sqlparser.Statement) error {
	switch stmt.(type) {
	case *sqlparser.Select, *sqlparser.SetOp, *sqlparser.ParenSelect,
		*sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		return nil
	case *sqlparser.DDL, *sqlparser.AlterTable:
		w.ddl = true
		return nil
	}
	kind := typeName(reflect.TypeOf(stmt))
	if set, ok := stmt.(*sqlparser.Set); ok {
		for _, e := range set.Exprs {
			switch strings.ToLower(string(e.Scope)) {
			case "global", "persist", "persist_only":
				return errors.New("SET GLOBAL (and SET PERSIST) is not allowed: it changes the configuration of one node's server")
			}
		}
	}
	if why, ok := stmtReasons[kind]; ok {
		return errors.New(why)
	}
	return fmt.Errorf("statement kind %s is not allowed: only SELECT, INSERT, REPLACE, UPDATE, DELETE, TRUNCATE and CREATE/ALTER/DROP of tables, indexes and views are", kind)
}

// typeName is a type's name, pointers dereferenced.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// walk visits v and everything below it, depth first, in field
// declaration order (the first offence found, and thus the message, must
// be the same on every node).
func (w *walker) walk(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		e := v.Elem()
		if name := typeName(e.Type()); !isKnown(e.Type()) {
			return unknownNode(name)
		}
		return w.walk(e)
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return w.walk(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if err := w.walk(v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		return w.walkStruct(v)
	case reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return fmt.Errorf("%s is not allowed: the gate does not know this construct to be deterministic and harmless", v.Type())
	}
	return nil // a leaf: string, number, bool
}

// isKnown reports whether t (pointers dereferenced) is a parse-tree type
// the gate knows.
func isKnown(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	_, ok := knownTypes[t.Name()]
	return ok && t.PkgPath() == parserPkg
}

func unknownNode(name string) error {
	if why, ok := nodeReasons[name]; ok {
		return errors.New(why)
	}
	if why, ok := stmtReasons[name]; ok {
		return errors.New(why)
	}
	return fmt.Errorf("%s is not allowed: the gate does not know this construct to be deterministic and harmless", name)
}

func (w *walker) walkStruct(v reflect.Value) error {
	t := v.Type()
	name := t.Name()
	walked, ok := walkedFields[name]
	if !ok || t.PkgPath() != parserPkg {
		return unknownNode(name)
	}
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > maxDepth {
		return fmt.Errorf("the statement is nested more than %d levels deep", maxDepth)
	}
	p := v
	if v.CanAddr() {
		p = v.Addr()
	} else {
		p = reflect.New(t)
		p.Elem().Set(v)
	}
	if err := w.visit(p.Interface()); err != nil {
		return err
	}
	if f, ok := p.Interface().(*sqlparser.FuncExpr); ok {
		leave, err := w.enterFunc(f)
		if err != nil {
			return err
		}
		defer leave()
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := name + "." + f.Name
		if !f.IsExported() || ignoredFields[key] {
			continue
		}
		fv := v.Field(i)
		if !walked[f.Name] {
			if isEmpty(fv) {
				continue
			}
			if why, ok := fieldReasons[key]; ok {
				return errors.New(why)
			}
			return fmt.Errorf("%s is not allowed: the gate does not know this construct to be deterministic and harmless", key)
		}
		if err := w.walk(fv); err != nil {
			return err
		}
	}
	return nil
}

// isEmpty reports whether a field holds nothing: its zero value or an
// empty list.
func isEmpty(v reflect.Value) bool {
	if v.Kind() == reflect.Slice {
		return v.Len() == 0
	}
	return v.IsZero()
}

// visit applies the checks specific to one node type (n is a pointer).
func (w *walker) visit(n any) error {
	switch n := n.(type) {
	case *sqlparser.Select:
		if err := checkLimit(n.Limit, n.OrderBy); err != nil {
			return err
		}
		return w.checkJoins(n.From, n.Where)
	case *sqlparser.SetOp:
		return checkLimit(n.Limit, n.OrderBy)
	case *sqlparser.With:
		if n.Recursive {
			return errors.New("WITH RECURSIVE is not allowed: unbounded recursion cannot be bounded deterministically (MySQL's recursion and time limits are each node's settings)")
		}
	case *sqlparser.SQLVal:
		return checkLiteral(n)
	case *sqlparser.ComparisonExpr:
		return w.checkJSONOperator(n.Operator)
	case *sqlparser.BinaryExpr:
		return w.checkJSONOperator(n.Operator)
	case *sqlparser.Insert:
		return w.insert(n)
	case *sqlparser.Update:
		return w.update(n)
	case *sqlparser.Delete:
		return w.delete(n)
	case *sqlparser.TableName:
		return checkTableName(n)
	case *sqlparser.AliasedTableExpr:
		if tn, ok := n.Expr.(sqlparser.TableName); ok && tn.Name.IsEmpty() {
			return errors.New("empty identifiers (``) are not allowed")
		}
	case *sqlparser.ColName:
		return checkColName(n)
	default:
		if err := checkCall(n); err != nil {
			return err
		}
		return w.visitDDL(n)
	}
	return nil
}

// visitDDL applies the checks specific to the nodes of DDL statements.
func (w *walker) visitDDL(n any) error {
	switch n := n.(type) {
	case *sqlparser.DDL:
		return w.checkDDL(n)
	case *sqlparser.AlterTable:
		if w.subDDL == nil {
			w.subDDL = map[*sqlparser.DDL]bool{}
		}
		for _, d := range n.Statements {
			w.subDDL[d] = true
		}
	case *sqlparser.ColumnType:
		if t := strings.ToLower(n.Type); floatTypes[t] {
			return fmt.Errorf("column type %s is not allowed: %s", t, floatReason)
		} else if !allowedTypes[t] {
			return fmt.Errorf("column type %s is not allowed: it is not on the gate's allowlist of types", t)
		}
	case *sqlparser.ForeignKeyDefinition:
		return checkForeignKey(n)
	case *sqlparser.TableOption:
		return checkTableOption(n)
	case *sqlparser.IndexSpec:
		return checkIndexSpec(n)
	case *sqlparser.IndexInfo:
		switch strings.ToLower(n.Type) {
		case "fulltext", "fulltext key", "fulltext index", "spatial", "spatial key", "spatial index", "vector", "vector key", "vector index":
			return fmt.Errorf("%s indexes are not allowed", strings.ToUpper(n.Type))
		}
	}
	return nil
}

// checkLimit rejects a LIMIT without ORDER BY.
func checkLimit(limit *sqlparser.Limit, orderBy sqlparser.OrderBy) error {
	if limit != nil && len(orderBy) == 0 {
		return errors.New("LIMIT without ORDER BY is not allowed: the rows it keeps differ between nodes; add ORDER BY a primary or unique key (relchain orders such a LIMIT by the key itself only on PostgreSQL so far)")
	}
	return nil
}

// checkColName rejects empty names, variables and the bare names of
// functions that read node-local values.
func checkColName(n *sqlparser.ColName) error {
	name := n.Name.String()
	switch {
	case name == "":
		return errors.New("empty identifiers (``) are not allowed")
	case strings.HasPrefix(name, "@@"):
		return fmt.Errorf("system variable %s is not allowed: variables are node or session state", name)
	case strings.HasPrefix(name, "@"):
		return fmt.Errorf("user variable %s is not allowed: variables are session state", name)
	case n.Qualifier.IsEmpty() && bareFuncs[strings.ToLower(name)]:
		return fmt.Errorf("%s is not allowed: it reads a node-local value (a column of that name must be qualified, as t.%s)", name, name)
	}
	return nil
}

// checkCall applies the checks of function calls and conversions.
func checkCall(n any) error {
	switch n := n.(type) {
	case *sqlparser.FuncExpr:
		return checkFunc(n)
	case *sqlparser.GroupConcatExpr:
		if len(n.OrderBy) == 0 {
			return errors.New("GROUP_CONCAT without ORDER BY inside the call is not allowed: its result depends on row order, which differs between nodes")
		}
	case *sqlparser.TimestampFuncExpr:
		switch strings.ToLower(n.Name) {
		case "timestampadd", "timestampdiff":
		default:
			return fmt.Errorf("function %s is not allowed: it is not on the gate's allowlist of deterministic functions", strings.ToLower(n.Name))
		}
	case *sqlparser.ExtractFuncExpr:
		if !strings.EqualFold(n.Name, "extract") {
			return fmt.Errorf("function %s is not allowed: it is not on the gate's allowlist of deterministic functions", strings.ToLower(n.Name))
		}
	case *sqlparser.ConvertType:
		if t := strings.ToLower(n.Type); floatTypes[t] {
			return fmt.Errorf("conversion to type %s is not allowed: %s", t, floatReason)
		} else if !allowedCasts[t] {
			return fmt.Errorf("conversion to type %s is not allowed: it is not on the gate's allowlist of CAST/CONVERT types", t)
		}
	}
	return nil
}

// checkForeignKey allows only the referential actions that change no
// rows.
func checkForeignKey(n *sqlparser.ForeignKeyDefinition) error {
	for _, a := range []sqlparser.ReferenceAction{n.OnDelete, n.OnUpdate} {
		switch a {
		case sqlparser.DefaultAction, sqlparser.Restrict, sqlparser.NoAction:
		default:
			// MySQL and MariaDB fire no triggers for rows a foreign key
			// action changes: relchain's row capture would miss them and
			// the state digest would no longer match the rows.
			return fmt.Errorf("foreign key action ON DELETE/UPDATE %s is not allowed on MySQL: the rows it changes fire no triggers, so relchain cannot capture them; use RESTRICT or NO ACTION and change the child rows explicitly", strings.ToUpper(sqlparser.String(a)))
		}
	}
	return nil
}

// checkTableName rejects schema-qualified names and the tables of the
// system and of relchain.
func checkTableName(n *sqlparser.TableName) error {
	for _, q := range []sqlparser.TableIdent{n.DbQualifier, n.SchemaQualifier} {
		if s := strings.ToLower(q.String()); systemSchemas[s] {
			return &systemRelationError{schema: s, table: n.Name.String()}
		}
	}
	if name := strings.ToLower(n.Name.String()); strings.HasPrefix(name, "relchain_") {
		return fmt.Errorf("table %s is relchain's own: names starting with relchain_ are not accessible to statements", name)
	}
	return checkSeqTable(n.Name.String()) // qualifiers are rejected by fieldReasons
}

// checkFunc checks a function call against the allowlist.
func checkFunc(f *sqlparser.FuncExpr) error {
	name := f.Name.Lowered()
	if !f.Qualifier.IsEmpty() {
		return fmt.Errorf("function %s.%s is not allowed: stored functions are not", f.Qualifier.String(), name)
	}
	if clockFuncs[name] {
		return nil
	}
	if !allowedFuncs[name] {
		if why, ok := funcReasons[name]; ok {
			return fmt.Errorf("function %s is not allowed: %s", name, why)
		}
		return fmt.Errorf("function %s is not allowed: it is not on the gate's allowlist of deterministic functions", name)
	}
	if name == "from_unixtime" && len(f.Exprs) == 0 {
		return errors.New("function from_unixtime is allowed only with an argument")
	}
	return nil
}

func checkTableOption(o *sqlparser.TableOption) error {
	name := strings.ToLower(strings.TrimSpace(o.Name))
	switch {
	case name == "engine":
		if !strings.EqualFold(strings.Trim(o.Value, "`'\" "), "innodb") {
			return fmt.Errorf("ENGINE %s is not allowed: only InnoDB is transactional and crash-safe", o.Value)
		}
	case name == "auto_increment":
		return errors.New(autoIncrementReason)
	case !allowedTableOptions[name]:
		return fmt.Errorf("table option %s is not allowed", strings.ToUpper(name))
	}
	return nil
}

func checkIndexSpec(s *sqlparser.IndexSpec) error {
	switch strings.ToLower(s.Action) {
	case "create", "drop":
	default:
		return fmt.Errorf("index action %s is not allowed: only adding and dropping indexes are", strings.ToUpper(s.Action))
	}
	switch t := strings.ToLower(s.Type); t {
	case "", "unique", "primary":
	default:
		return fmt.Errorf("%s indexes are not allowed", strings.ToUpper(t))
	}
	return nil
}

// checkDDL checks a DDL statement (top level) or a piece of ALTER TABLE.
func (w *walker) checkDDL(d *sqlparser.DDL) error {
	action := strings.ToLower(d.Action)
	special := d.TriggerSpec != nil || d.ProcedureSpec != nil || d.EventSpec != nil
	switch {
	case special:
		return nil // fieldReasons explain
	case w.subDDL[d]:
		if action != "alter" {
			return fmt.Errorf("ALTER TABLE ... %s is not allowed", strings.ToUpper(action))
		}
		if emptyAlter(d) {
			return errors.New("this ALTER TABLE clause (a table option, ALTER INDEX ... VISIBLE, a tablespace clause ...) is not allowed: the parser does not record it, so the gate cannot check it")
		}
		switch strings.ToLower(d.ColumnAction) {
		case "", "add", "drop", "modify", "change":
		default:
			return fmt.Errorf("ALTER TABLE ... %s COLUMN is not allowed", strings.ToUpper(d.ColumnAction))
		}
		switch strings.ToLower(d.ConstraintAction) {
		case "", "add", "drop":
		default:
			return fmt.Errorf("ALTER TABLE ... %s CONSTRAINT is not allowed", strings.ToUpper(d.ConstraintAction))
		}
		return nil
	}
	switch action {
	case "create":
		if d.ViewSpec == nil && d.TableSpec == nil && d.OptLike == nil && d.OptSelect == nil {
			return errors.New("this CREATE statement is not allowed: only CREATE TABLE, INDEX and VIEW are")
		}
	case "drop":
		if len(d.FromTables) == 0 && len(d.FromViews) == 0 {
			return errors.New("this DROP statement is not allowed: only DROP TABLE, INDEX and VIEW are")
		}
		if len(d.FromTables)+len(d.FromViews) > 1 {
			// MariaDB drops the names it finds and then fails on a missing
			// one: a DDL that fails after changing the schema, which the
			// backend's crash recovery cannot tell from one that succeeded.
			return errors.New("DROP of several tables or views in one statement is not allowed: MySQL may drop some and fail on the next; drop one per statement")
		}
	case "truncate":
		w.writes = append(w.writes, strings.ToLower(d.Table.Name.String()))
	case "alter":
		if d.ViewSpec != nil {
			return errors.New("ALTER VIEW is not allowed: use CREATE OR REPLACE VIEW")
		}
		return errors.New("this ALTER statement is not allowed: only ALTER TABLE is")
	case "rename":
		return errors.New("RENAME TABLE is not allowed: not supported by the gate")
	default:
		return fmt.Errorf("DDL statement %s is not allowed", strings.ToUpper(action))
	}
	return nil
}

// insert records the table an INSERT or REPLACE writes. INSERT IGNORE,
// REPLACE and ON DUPLICATE KEY UPDATE from a SELECT keep or change rows in
// the order the SELECT returns them, so that SELECT needs ORDER BY.
func (w *walker) insert(n *sqlparser.Insert) error {
	w.writes = append(w.writes, strings.ToLower(n.Table.Name.String()))
	ordered := true
	switch r := n.Rows.(type) {
	case *sqlparser.Select:
		ordered = len(r.OrderBy) > 0
	case *sqlparser.SetOp:
		ordered = len(r.OrderBy) > 0
	case *sqlparser.ParenSelect:
		if s, ok := r.Select.(*sqlparser.Select); ok {
			ordered = len(s.OrderBy) > 0
		} else {
			ordered = false
		}
	}
	if !ordered {
		switch {
		case strings.EqualFold(n.Action, sqlparser.ReplaceStr):
			return errors.New("REPLACE ... SELECT without ORDER BY is not allowed: which rows it replaces depends on the order the SELECT returns them, which differs between nodes")
		case n.Ignore != "":
			return errors.New("INSERT IGNORE ... SELECT without ORDER BY is not allowed: which rows it keeps depends on the order the SELECT returns them, which differs between nodes")
		case len(n.OnDup) > 0:
			return errors.New("INSERT ... SELECT ... ON DUPLICATE KEY UPDATE without ORDER BY is not allowed: the updates depend on the order the SELECT returns rows, which differs between nodes")
		}
	}
	return nil
}

func (w *walker) update(n *sqlparser.Update) error {
	if n.Limit != nil && len(n.OrderBy) == 0 {
		return errors.New("UPDATE with LIMIT but no ORDER BY is not allowed: the rows it changes differ between nodes")
	}
	if err := w.checkJoins(n.TableExprs, n.Where); err != nil {
		return err
	}
	aliases, all, derived := targets(n.TableExprs)
	if len(all) == 0 {
		return errors.New("an UPDATE must name a table: derived tables are not updatable through the gate")
	}
	for _, a := range n.Exprs {
		q, col := "", ""
		if a.Name != nil {
			q, col = strings.ToLower(a.Name.Qualifier.Name.String()), a.Name.Name.String()
		}
		t, ok := aliases[q]
		switch {
		case q != "" && ok:
			w.writes = append(w.writes, t)
		case q != "":
			return fmt.Errorf("UPDATE ... SET %s.%s is not allowed: %s is not a table of this UPDATE (derived tables are not updatable through the gate)", q, col, q)
		case derived:
			return fmt.Errorf("UPDATE ... SET %s is not allowed: in an UPDATE that joins a derived table, qualify the columns it sets with their table", col)
		case len(all) == 1:
			w.writes = append(w.writes, all[0])
		default: // cannot tell which: all of them
			w.writes = append(w.writes, all...)
		}
	}
	return nil
}

func (w *walker) delete(n *sqlparser.Delete) error {
	if n.Limit != nil && len(n.OrderBy) == 0 {
		return errors.New("DELETE with LIMIT but no ORDER BY is not allowed: the rows it deletes differ between nodes")
	}
	if err := w.checkJoins(n.TableExprs, n.Where); err != nil {
		return err
	}
	aliases, all, _ := targets(n.TableExprs)
	if len(n.Targets) == 0 {
		w.writes = append(w.writes, all...)
		return nil
	}
	for _, t := range n.Targets {
		name := strings.ToLower(t.Name.String())
		real, ok := aliases[name]
		if !ok {
			// MySQL refuses such a DELETE too; the parser may also have
			// read a modifier as a target (DELETE QUICK FROM t).
			return fmt.Errorf("DELETE target %s is not a table or alias of its FROM clause", name)
		}
		w.writes = append(w.writes, real)
	}
	return nil
}

// targets lists the tables named in the FROM part of an UPDATE or DELETE:
// by alias (or name, if it has none), and all of them, lower case; derived
// says whether it also joins a derived table.
func targets(exprs sqlparser.TableExprs) (aliases map[string]string, all []string, derived bool) {
	aliases = map[string]string{}
	var add func(e sqlparser.TableExpr)
	add = func(e sqlparser.TableExpr) {
		switch e := e.(type) {
		case *sqlparser.AliasedTableExpr:
			tn, ok := e.Expr.(sqlparser.TableName)
			if !ok {
				derived = true
				return
			}
			name := strings.ToLower(tn.Name.String())
			alias := name
			if !e.As.IsEmpty() {
				alias = strings.ToLower(e.As.String())
			}
			aliases[alias] = name
			all = append(all, name)
		case *sqlparser.JoinTableExpr:
			add(e.LeftExpr)
			add(e.RightExpr)
		case *sqlparser.ParenTableExpr:
			for _, x := range e.Exprs {
				add(x)
			}
		default:
			derived = true
		}
	}
	for _, e := range exprs {
		add(e)
	}
	return aliases, all, derived
}

// emptyAlter reports whether a piece of ALTER TABLE records nothing but
// its action and table: the parser accepts some clauses (most table
// options among them) without recording them.
func emptyAlter(d *sqlparser.DDL) bool {
	return d.ColumnAction == "" && d.ConstraintAction == "" && d.IndexSpec == nil && d.DefaultSpec == nil &&
		d.NotNullSpec == nil && d.ColumnTypeSpec == nil && d.AutoIncSpec == nil && d.AlterCollationSpec == nil &&
		d.PartitionSpec == nil && d.TableSpec == nil && d.OptLike == nil && d.OptSelect == nil && d.ViewSpec == nil &&
		d.Column.IsEmpty() && d.ToColumn.IsEmpty() && len(d.FromTables) == 0 && len(d.ToTables) == 0
}
