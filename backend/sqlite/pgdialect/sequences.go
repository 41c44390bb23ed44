package pgdialect

import (
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Sequence functions. pggate rewrites nextval, currval, setval and
// lastval into relchain's (relchain.nextval ...) and allows nextval and
// setval only where they run once: in a SELECT that reads no table, or
// one that aggregates without GROUP BY (SELECT setval('s', max(id)) FROM
// t, as Django's sqlsequencereset and loaddata write it). The dialect
// takes such a SELECT when the call is its only output column and names a
// serial column's sequence (serial.go: its state is the table of that
// name): an UPDATE of the state, then a SELECT of the value. currval and
// lastval, whose value lives in the transaction, are refused.
// pg_get_serial_sequence(table, column) is a constant of the schema.

// Sequences is an optional interface of a Catalog: the integer type of
// the serial column that owns a sequence.
type Sequences interface {
	SequenceType(seq string) (Type, bool)
}

// sequenceSelect translates a SELECT whose only output column is a call
// of relchain.nextval or relchain.setval; ok is false for any other
// SELECT.
func (t *translator) sequenceSelect(s *pg_query.SelectStmt) (bool, error) {
	if len(s.GetTargetList()) != 1 || s.GetWithClause() != nil || s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return false, nil
	}
	rt := s.GetTargetList()[0].GetResTarget()
	f := rt.GetVal().GetFuncCall()
	if f == nil || len(f.GetFuncname()) != 2 || strNode(f.GetFuncname()[0]) != "relchain" {
		return false, nil
	}
	name := strNode(f.GetFuncname()[1])
	if name != "nextval" && name != "setval" {
		return false, nil
	}
	args := f.GetArgs()
	if (name == "nextval" && len(args) != 1) || (name == "setval" && len(args) != 2 && len(args) != 3) {
		return true, pgError("42883", "function %s with %d arguments does not exist", name, len(args))
	}
	if name == "nextval" && len(s.GetFromClause()) > 0 {
		return true, refuse("nextval in a SELECT that reads a table")
	}
	seq, found, err := t.sequenceArg(args[0])
	if err != nil {
		return true, err
	}
	out := rt.GetName()
	if out == "" {
		out = name
	}
	t.out.Columns = []ResultColumn{{Name: out, Type: tInt8}}
	if !found { // as relchain.nextval and setval on PostgreSQL storage
		return true, pgError("42809", `"<NULL>" is not a sequence`)
	}
	if name == "setval" && (isNullLiteral(args[1]) || (len(args) == 3 && isNullLiteral(args[2]))) {
		t.out.Statements = []string{"SELECT NULL AS " + quoteIdent(out)} // strict: NULL, nothing done
		return true, nil
	}
	seqs, ok := t.cat.(Sequences)
	if !ok {
		return true, refuse("sequence functions on a catalog that cannot tell a sequence's type")
	}
	typ, ok := seqs.SequenceType(seq)
	if !ok {
		return true, pgError("42P01", "relation %q does not exist", seq)
	}
	max := int64(1)<<(intBits(typ)-1) - 1
	if name == "nextval" {
		t.out.Statements = []string{
			fmt.Sprintf(`UPDATE %s SET "last_value" = pg_seq_next("last_value", "is_called", 1, %d, %s), "is_called" = 1`, quoteIdent(seq), max, quoteString(seq)),
			`SELECT "last_value" AS ` + quoteIdent(out) + " FROM " + quoteIdent(seq),
		}
		return true, nil
	}
	return true, t.setval(s, seq, max, out)
}

// setval writes setval(seq, v [, is_called]): the value and flag are
// computed by the SELECT (its FROM, WHERE and aggregates) with the call's
// arguments as its output, PostgreSQL's 22003 when v is outside 1..max,
// nothing done when either is NULL (setval is strict).
func (t *translator) setval(s *pg_query.SelectStmt, seq string, max int64, out string) error {
	args := s.GetTargetList()[0].GetResTarget().GetVal().GetFuncCall().GetArgs()
	called := &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: true}}}}}
	if len(args) == 3 {
		called = args[2]
	}
	vs := proto.Clone(s).(*pg_query.SelectStmt)
	vs.TargetList = []*pg_query.Node{pg_query.MakeResTargetNodeWithNameAndVal("c1", args[1], 0), pg_query.MakeResTargetNodeWithNameAndVal("c2", called, 0)}
	q, err := t.selectQuery(vs, nil)
	if err != nil {
		return err
	}
	// The new state from scalar subqueries of the one-row SELECT (SQLite's
	// gate refuses UPDATE ... FROM a subquery), the result from the SELECT.
	v, c, err := t.setvalArgs(q, "(SELECT \"c1\" FROM ("+q.sql+"))", "(SELECT \"c2\" FROM ("+q.sql+"))")
	if err != nil {
		return err
	}
	msg := fmt.Sprintf(`'setval: value ' || %s || ' is out of bounds for sequence "%s" (1..%d)'`, v, strings.ReplaceAll(seq, "'", "''"), max)
	update := fmt.Sprintf(`UPDATE %s SET "last_value" = CASE WHEN %s BETWEEN 1 AND %d THEN %s ELSE pg_raise('22003', %s, %s) END, "is_called" = %s WHERE %s IS NOT NULL AND %s IS NOT NULL`,
		quoteIdent(seq), v, max, v, msg, v, c, v, c)
	rv, _, err := t.setvalArgs(q, `x."c1"`, `x."c2"`)
	if err != nil {
		return err
	}
	t.out.Statements = []string{update, "SELECT " + rv + " AS " + quoteIdent(out) + " FROM (" + q.sql + ") AS x"}
	return nil
}

// setvalArgs converts setval's value and flag (the SQL of the query's
// two columns) to bigint and boolean, as the call's argument types.
func (t *translator) setvalArgs(q query, vSQL, cSQL string) (string, string, error) {
	v, err := t.coerce(value{sql: vSQL, typ: q.cols[0].Type}, tInt8, ctxImplicit)
	if err != nil {
		return "", "", pgError("42883", "function setval(regclass, %s) does not exist", label(q.cols[0].Type))
	}
	c, err := t.coerce(value{sql: cSQL, typ: q.cols[1].Type}, tBool, ctxImplicit)
	if err != nil {
		return "", "", pgError("42883", "function setval(regclass, bigint, %s) does not exist", label(q.cols[1].Type))
	}
	return v, c, nil
}

// sequenceArg is the sequence a sequence function names: a string
// constant ('s', 'public.s', '"S"', or cast to regclass) or
// pg_get_serial_sequence(table, column). found is false when
// pg_get_serial_sequence gives NULL (the column is no serial).
func (t *translator) sequenceArg(n *pg_query.Node) (string, bool, error) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.GetArg()
	}
	if f := n.GetFuncCall(); f != nil && funcName(f) == "pg_get_serial_sequence" {
		seq, err := t.serialSequence(f)
		return seq, seq != "", err
	}
	s, ok := stringConst(n)
	if !ok {
		return "", false, refuse("a sequence function whose sequence is not a constant name")
	}
	name, err := relationName(s)
	return name, true, err
}

// serialSequence is pg_get_serial_sequence(table, column) with constant
// arguments: the serial column's sequence, "" when the column is no
// serial (PostgreSQL's NULL).
func (t *translator) serialSequence(f *pg_query.FuncCall) (string, error) {
	args := f.GetArgs()
	if len(args) != 2 {
		return "", pgError("42883", "function pg_get_serial_sequence with %d arguments does not exist", len(args))
	}
	tbl, ok1 := stringConst(args[0])
	col, ok2 := stringConst(args[1])
	if !ok1 || !ok2 {
		return "", refuse("pg_get_serial_sequence of arguments that are not constants")
	}
	table, err := relationName(tbl)
	if err != nil {
		return "", err
	}
	cols, ok := t.cat.Columns(table)
	if !ok {
		return "", pgError("42P01", "relation %q does not exist", table)
	}
	if _, ok := findColumn(cols, col); !ok {
		return "", pgError("42703", "column %q of relation %q does not exist", col, table)
	}
	serials, ok := t.cat.(Serials)
	if !ok {
		return "", nil
	}
	seq, _ := serials.Serial(table, col)
	return seq, nil
}

// isNullLiteral reports the NULL literal.
func isNullLiteral(n *pg_query.Node) bool {
	c := n.GetAConst()
	return c != nil && c.GetIsnull()
}

// stringConst is a string literal's text.
func stringConst(n *pg_query.Node) (string, bool) {
	if c := n.GetAConst(); c != nil && c.GetSval() != nil {
		return c.GetSval().GetSval(), true
	}
	return "", false
}

// relationName reads a relation name as regclass input does: an optional
// public. qualifier, each part folded to lower case unless double-quoted.
func relationName(s string) (string, error) {
	parts, err := splitQualified(s)
	if err != nil {
		return "", err
	}
	switch {
	case len(parts) == 2 && parts[0] == "public":
		return parts[1], nil
	case len(parts) == 1:
		return parts[0], nil
	case len(parts) == 2:
		return "", pgError("3F000", "schema %q does not exist", parts[0])
	}
	return "", pgError("42601", "improper relation name (too many dotted names): %s", s)
}

// splitQualified splits a dotted name, unquoting "..." parts and folding
// the others to lower case.
func splitQualified(s string) ([]string, error) {
	var parts []string
	for len(s) > 0 {
		var part string
		if s[0] == '"' {
			end := 1
			for {
				i := strings.IndexByte(s[end:], '"')
				if i < 0 {
					return nil, pgError("42601", "invalid name syntax")
				}
				end += i + 1
				if end < len(s) && s[end] == '"' {
					end++
					continue
				}
				break
			}
			part, s = strings.ReplaceAll(s[1:end-1], `""`, `"`), s[end:]
		} else {
			i := strings.IndexByte(s, '.')
			if i < 0 {
				i = len(s)
			}
			part, s = strings.ToLower(strings.TrimSpace(s[:i])), s[i:]
		}
		if part == "" {
			return nil, pgError("42601", "invalid name syntax")
		}
		parts = append(parts, part)
		if len(s) > 0 {
			if s[0] != '.' || len(s) == 1 {
				return nil, pgError("42601", "invalid name syntax")
			}
			s = s[1:]
		}
	}
	if len(parts) == 0 {
		return nil, pgError("42601", "invalid name syntax")
	}
	return parts, nil
}

// serialSequenceValue is pg_get_serial_sequence(table, column) as a value:
// the sequence's name qualified as PostgreSQL prints it, or NULL.
func (t *translator) serialSequenceValue(f *pg_query.FuncCall) (value, error) {
	seq, err := t.serialSequence(f)
	if err != nil || seq == "" {
		return value{sql: "NULL", typ: tText, name: "pg_get_serial_sequence", null: true}, err
	}
	name := seq
	if !simpleName.MatchString(seq) {
		name = `"` + strings.ReplaceAll(seq, `"`, `""`) + `"`
	}
	return constOf("public."+name, tText, "pg_get_serial_sequence"), nil
}
