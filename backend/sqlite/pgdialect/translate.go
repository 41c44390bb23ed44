package pgdialect

import (
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// translator holds one statement's translation state.
type translator struct {
	cat Catalog
	// keyNames are the schema's tables and constraints' index names
	// (relationTaken), read once per statement; nil until asked.
	keyNames map[string]bool
	params   []Type // by placeholder number - 1; Name "" while unknown
	out      *Translation

	// untypedUses are placeholders used where nothing types them
	// (concat's "any" arguments) while their type was unknown: typed
	// later, PostgreSQL finds that use still unknown (42P08).
	untypedUses []int32
	// inQual: the expression being translated is a node of a WHERE,
	// ON or HAVING condition's AND/OR tree (qualNode).
	inQual bool
	// inCond: the expression being translated is a WHERE, ON, HAVING,
	// CHECK, CASE WHEN or FILTER condition, or an AND/OR operand of one,
	// and an AND, OR or BETWEEN
	// (condNode): SQLite evaluates it as jumps, stopping where PostgreSQL
	// stops; elsewhere foldBoolValue makes it stop there.
	inCond bool

	aggDepth    int                    // > 0 inside an aggregate's arguments
	sawAgg      bool                   // the query being translated calls an aggregate
	arm         *armHints              // translating a set operation's arm
	inDDL       bool                   // a CHECK expression: no subqueries, no parameters
	inReturning bool                   // a RETURNING list: no subqueries
	checks      []*pg_query.Constraint // CREATE TABLE's CHECK constraints
	fill        []serialColumn         // an INSERT's serial columns numbered from their sequence
	deferred    error                  // the first error of constant folding (planTime)
	ctes        []cte                  // the WITH queries in scope, innermost last
	inserting   string                 // the table an INSERT writes
	values      valuesRows             // a multi-row INSERT's VALUES, for ON CONFLICT DO UPDATE's guard
	newTable    string                 // the table CREATE TABLE creates
	newColumns  []Column               // its columns, for a foreign key to itself
	creating    []serialColumn         // its serial columns
	noFold      int                    // > 0 in a CASE arm PostgreSQL drops: constants are not folded
	stableLeft  int                    // stable constructs over constants left to run time (volatility.go)
	pgConsts    int                    // values marked pgConst (volatility.go)
	win         windowState            // the query's window functions (windows.go)
}

// armHints are the types a set operation resolved for its columns; an
// arm's untyped targets (NULL, 'a') take them, or stay untyped (no hint)
// until the other arms are seen.
type armHints struct {
	types []Type
}

// refuse is the refusal of a construct the dialect does not support.
func refuse(construct string, args ...any) error {
	return &Error{Code: "0A000", Message: "the postgres dialect on SQLite does not support " + fmt.Sprintf(construct, args...)}
}

// pgError is an error PostgreSQL itself would report, with its SQLSTATE.
func pgError(code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Translate turns one PostgreSQL statement, already accepted and rewritten
// by PostgreSQL's gate, into SQLite statements with PostgreSQL's result.
func Translate(sql string, cat Catalog) (*Translation, error) {
	return TranslateTyped(sql, cat, nil)
}

// TranslateTyped is Translate with the types the client gave its
// parameters, as PostgreSQL's Parse message does: params[i] types $i+1
// (a zero Type or "unknown" leaves it to the context, as a string or NULL
// argument is). The PostgreSQL backend sends a Go int64 argument as int8,
// float64 as float8, bool as bool and []byte as bytea; a backend that
// does the same passes those types here, so `text_col = $1` with an int64
// is 42883 and `$1 + int4_col` is int8, as on PostgreSQL. The result's
// Params are the given types where given.
func TranslateTyped(sql string, cat Catalog, params []Type) (tr *Translation, err error) {
	defer func() {
		// A panic in the walk is a refusal (fail closed), with a fixed
		// message so the verdict is the same on every node: no client
		// text may crash a validator.
		if recover() != nil {
			tr, err = nil, &Error{Code: "0A000", Message: "the postgres dialect's translation failed on this statement text; it is refused"}
		}
	}()
	stmt, err := parse(sql)
	if err != nil {
		return nil, err
	}
	t := &translator{cat: cat, out: &Translation{}}
	t.out.Ordered = len(stmt.GetSelectStmt().GetSortClause()) > 0
	for i, p := range params {
		if p.Name != "" && p.Name != "unknown" {
			if _, ok := declared[p.Name]; !ok {
				return nil, refuse("parameters of type %s", p.Name)
			}
			if err := t.param(int32(i+1), p); err != nil {
				return nil, err
			}
		}
	}
	if err := t.statement(stmt); err != nil {
		return nil, err
	}
	for i, p := range t.params {
		if p.Name == "" {
			return nil, pgError("42P18", "could not determine data type of parameter $%d", i+1)
		}
	}
	if len(t.untypedUses) > 0 {
		return nil, pgError("42P08", "could not determine data type of parameter $%d", t.untypedUses[0])
	}
	if t.deferred != nil {
		return nil, t.deferred
	}
	t.out.Params = t.paramTypes()
	return t.out, nil
}

// parse parses a text that must hold exactly one statement; the text
// passes sqlcheck/prescan first (no cgo parser sees an unbounded text).
func parse(sql string) (*pg_query.Node, error) {
	if err := prescan.Check(sql, prescan.PostgreSQL); err != nil {
		// A statement's verdict, never a fault: 54001, as PostgreSQL's
		// "statement too complex" (pggate refuses the same text first).
		return nil, pgError("54001", "%v", err)
	}
	tree, err := pgparse.Parse(sql)
	if err != nil {
		return nil, pgError("42601", "%v", err)
	}
	if n := len(tree.GetStmts()); n != 1 {
		return nil, pgError("42601", "the text holds %d statements; the postgres dialect translates one at a time", n)
	}
	return tree.GetStmts()[0].GetStmt(), nil
}

// statement dispatches on the statement kind (fail closed).
func (t *translator) statement(n *pg_query.Node) error {
	switch s := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		return t.topSelect(s.SelectStmt)
	case *pg_query.Node_InsertStmt:
		return t.insert(s.InsertStmt)
	case *pg_query.Node_UpdateStmt:
		return t.update(s.UpdateStmt)
	case *pg_query.Node_DeleteStmt:
		return t.delete(s.DeleteStmt)
	case *pg_query.Node_CreateStmt:
		return t.createTable(s.CreateStmt)
	case *pg_query.Node_DropStmt:
		return t.drop(s.DropStmt)
	case *pg_query.Node_IndexStmt:
		return t.createIndex(s.IndexStmt)
	case *pg_query.Node_AlterTableStmt:
		return t.alterTable(s.AlterTableStmt)
	case *pg_query.Node_RenameStmt:
		return t.rename(s.RenameStmt)
	case *pg_query.Node_TruncateStmt:
		return t.truncate(s.TruncateStmt)
	}
	return refuse("the statement %s", nodeName(n))
}

// nodeName names a parse node for a refusal ("CreateSeqStmt").
func nodeName(n *pg_query.Node) string {
	if n == nil || n.GetNode() == nil {
		return "(empty)"
	}
	name := fmt.Sprintf("%T", n.GetNode())
	return strings.TrimPrefix(name, "*pg_query.Node_")
}

// quoteIdent quotes an identifier for SQLite.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteString is an SQLite string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// param records the type of placeholder n (1-based) learned from its
// context; the first context decides.
func (t *translator) param(n int32, typ Type) error {
	if n < 1 || n > 65535 {
		return pgError("42P02", "there is no parameter $%d", n)
	}
	for len(t.params) < int(n) {
		t.params = append(t.params, Type{})
	}
	if t.params[n-1].Name == "" && typ.Name != "unknown" {
		t.params[n-1] = typ
	}
	return nil
}

// paramTypes are the placeholders' types (Translate has refused a
// placeholder no context typed, 42P18, as PostgreSQL does; a placeholder
// returned as a column is text).
func (t *translator) paramTypes() []Type {
	if len(t.params) == 0 {
		return nil
	}
	out := make([]Type, len(t.params))
	for i, p := range t.params {
		if p.Name == "" {
			p = Type{Name: "text", Typmod: -1}
		}
		out[i] = p
	}
	return out
}

// strNode is the string of a String node ("" otherwise).
func strNode(n *pg_query.Node) string {
	return n.GetString_().GetSval()
}

// errIs reports whether err is an *Error with code.
func errIs(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
