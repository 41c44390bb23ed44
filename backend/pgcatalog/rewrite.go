package pgcatalog

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

// The rewriting: one PostgreSQL SELECT over the catalog, parsed with
// PostgreSQL's parser, becomes one SQLite SELECT over the catalog
// database (doc.go's representation), with PostgreSQL's result types and
// names. Every query the rewriting emits names its result columns c1, c2
// …: the names PostgreSQL shows are in rewritten.Columns, and every
// reference to a FROM item's column is resolved here (a column that does
// not exist is 42703 before SQLite sees the text). Anything it does not
// support is 0A000, never a different answer.

// pgErr is an *Error with PostgreSQL's SQLSTATE.
func pgErr(code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// rewrite parses sql (one SELECT) and rewrites it; a panic in the walk is
// a refusal.
func rewrite(sql string) (rw *rewritten, err error) {
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(*Error) // a literal that does not read as its type (coerce)
			if !ok {
				e = refuse("this query text (its rewriting failed)").(*Error)
			}
			rw, err = nil, e
		}
	}()
	sel, err := parseSelect(sql)
	if err != nil {
		return nil, err
	}
	r := &rewriter{params: map[int32]string{}, srfVals: map[*pg_query.FuncCall]val{}}
	q, err := r.query(sel, nil)
	if err != nil {
		return nil, err
	}
	return r.finish(q), nil
}

// parseSelect parses a text that must hold one SELECT; the text passes
// sqlcheck/prescan first (no cgo parser sees an unbounded text).
func parseSelect(sql string) (*pg_query.SelectStmt, error) {
	if err := prescan.Check(sql, prescan.PostgreSQL); err != nil {
		return nil, pgErr("54001", "%v", err)
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, pgErr("42601", "%v", err)
	}
	if n := len(tree.GetStmts()); n != 1 {
		return nil, pgErr("42601", "the text holds %d statements; a catalog query is one SELECT", n)
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil {
		return nil, refuse("statements other than SELECT")
	}
	return sel, nil
}

// rewriter holds one query's rewriting state.
type rewriter struct {
	params  map[int32]string           // parameter number → type (unknown until the context gives one)
	srfVals map[*pg_query.FuncCall]val // a select list's set-returning calls, read from a FROM item (targetSRFs)
	nparam  int32
	alias   int // generated alias counter
}

// col is a column of a query's result or a FROM item: its PostgreSQL
// name and type, and (of a FROM item) the SQLite expression reading it.
type col struct {
	name, typ, sql string
	fields         []col // a composite's fields, each read by its sql
	mod            int32 // the type modifier (0 none): information_schema's yes_or_no is varchar(3)
	lb0, lbMixed   bool  // an array's lower bound 0 (val)
}

// selectOut is a rewritten query: its SQLite text, whose columns are named
// c1 … (colName), and its PostgreSQL columns.
type selectOut struct {
	sql  string
	cols []col
}

// colName is the SQLite name of a rewritten query's i-th column (0-based).
func colName(i int) string { return "c" + strconv.Itoa(i+1) }

// finish wraps the top query so that reg* columns show names, and fills
// the result's columns and parameters.
func (r *rewriter) finish(q *selectOut) *rewritten {
	rw := &rewritten{SQL: q.sql}
	outer := make([]string, len(q.cols))
	wrap := false
	for i, c := range q.cols {
		t := outType(c.typ)
		mod := int32(-1)
		if c.mod > 0 {
			mod = c.mod
		}
		rw.Columns = append(rw.Columns, ResultColumn{Name: c.name, Type: t, Typmod: mod})
		outer[i] = colName(i)
		switch {
		case isReg(t):
			outer[i] = "pgcat_" + regTypes[t] + "_out(" + colName(i) + ")"
			wrap = true
		case isArray(t) && isReg(elemType(t)):
			outer[i] = "CASE WHEN " + colName(i) + " IS NOT NULL THEN (SELECT json_group_array(pgcat_" +
				regTypes[elemType(t)] + "_out(_e.value)) FROM json_each(" + colName(i) + ") AS _e) END"
			wrap = true
		}
		if isArray(t) && c.lb0 {
			// Shown with its bounds ('[0:1]={a,b}', jsonToArray).
			outer[i] = "CASE WHEN " + colName(i) + " IS NOT NULL THEN json_object('lb', 0, 'a', json(" + outer[i] + ")) END"
			wrap = true
		}
	}
	if wrap {
		rw.SQL = "SELECT " + strings.Join(outer, ", ") + " FROM (" + q.sql + ")"
	}
	for i := int32(1); i <= r.nparam; i++ {
		t := r.params[i]
		if t == "" || t == unknownType {
			t = "text"
		}
		rw.Params = append(rw.Params, t)
	}
	return rw
}

// newAlias is a fresh alias for a FROM item the query left unnamed.
func (r *rewriter) newAlias() string {
	r.alias++
	return "_r" + strconv.Itoa(r.alias)
}

// ident quotes an SQLite identifier.
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quote is an SQLite string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
