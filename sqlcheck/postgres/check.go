// Package postgres is the PostgreSQL dialect of relchain's determinism and
// safety gate (see package sqlcheck for the policy). Check parses a statement
// with PostgreSQL's own parser (libpg_query, through pg_query_go), walks
// every node of the parse tree in a fixed order and rejects anything that
// is not known to be deterministic and harmless. Analyze adds what an
// accepted statement does; Rewrite replaces its clock and random-number
// calls by the values of the tx's deterministic environment.
package postgres

import (
	"errors"
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"github.com/relchain/relchain/sqlcheck"
)

// verdict is the gate's full answer for one text.
type verdict struct {
	a    sqlcheck.Analysis // Writes shared: copied before it leaves the package
	tmpl *template         // for a.UsesEnv: the text to execute, with holes
	err  error
}

var cache sqlcheck.VerdictCache[*verdict]

// Check reports whether one statement text may run on a relchain
// PostgreSQL node: nil to allow it, or an error naming the offending
// construct (wrapping sqlcheck.ErrUnparseable if the text does not parse).
// It is a pure function of the text (verdicts are cached by text), safe for
// concurrent use. It is Analyze without the analysis.
func Check(sql string) error {
	return lookup(sql).err
}

// Analyze is Check plus what an accepted statement does: whether it is DDL,
// the tables it writes, and whether it reads the clock or random numbers
// and must therefore be executed as Rewrite returns it (UsesEnv). The error
// is Check's. Verdicts are cached by text; the returned Writes slice is the
// caller's own.
func Analyze(sql string) (sqlcheck.Analysis, error) {
	v := lookup(sql)
	if v.err != nil {
		return sqlcheck.Analysis{}, v.err
	}
	a := v.a
	if a.Writes != nil {
		a.Writes = slices.Clone(a.Writes)
	}
	return a, nil
}

// Rewrite returns the text to execute for a statement the gate accepts. If
// its Analysis says UsesEnv, every call of a clock function is replaced by
// a literal of env.Time and every random() call by a literal drawn from
// env.Seed and the call's position (see the rewrite rules in env.go): the result
// is a pure function of sql and env. Any other statement is returned as it
// is. For a statement the gate rejects, Rewrite returns Check's error.
func Rewrite(sql string, env sqlcheck.Env) (string, error) {
	v := lookup(sql)
	switch {
	case v.err != nil:
		return "", v.err
	case !v.a.UsesEnv:
		return sql, nil
	}
	return v.tmpl.fill(env)
}

// lookup is the cached verdict.
func lookup(sql string) *verdict { return cache.Get(sql, analyze) }

// check is Check without the cache.
func check(sql string) error {
	return analyze(sql).err
}

// analyze is the uncached verdict.
func analyze(sql string) *verdict {
	tree, err := parse(sql)
	if err != nil {
		return &verdict{err: err}
	}
	top := tree.GetStmts()[0].GetStmt()
	w, err := checkStatement(top, sql, stmtTop)
	if err != nil {
		return &verdict{err: err}
	}
	v := &verdict{a: sqlcheck.Analysis{DDL: isDDL(top)}}
	if len(w.writes) > 0 {
		slices.Sort(w.writes)
		v.a.Writes = slices.Compact(w.writes)
	}
	if len(w.sites) > 0 || w.rewritten {
		v.a.UsesEnv = true
		if v.tmpl, err = buildTemplate(tree, w.sites, w.renames); err != nil {
			return &verdict{err: err}
		}
	}
	return v
}

// parse parses a text that must hold exactly one statement.
func parse(sql string) (*pg_query.ParseResult, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, unparseable("", err)
	}
	switch n := len(tree.GetStmts()); n {
	case 0:
		return nil, errors.New("empty statement: the text holds no SQL statement")
	case 1:
	default:
		return nil, fmt.Errorf("the text holds %d statements; exactly one is allowed per statement text", n)
	}
	return tree, nil
}

// unparseable wraps a parser error in sqlcheck.ErrUnparseable; what says
// which text it is about (a function body, say), if not the statement.
func unparseable(what string, err error) error {
	var pe *parser.Error
	msg := err.Error()
	if errors.As(err, &pe) && pe.Cursorpos > 0 {
		msg = fmt.Sprintf("%s (at character %d)", pe.Message, pe.Cursorpos)
	}
	if what != "" {
		msg = what + ": " + msg
	}
	return fmt.Errorf("%w: %s", sqlcheck.ErrUnparseable, msg)
}

// isDDL reports whether an (accepted) top-level statement changes the
// schema: everything but queries, DML and CALL.
func isDDL(n *pg_query.Node) bool {
	switch n.GetNode().(type) {
	case *pg_query.Node_SelectStmt, *pg_query.Node_InsertStmt, *pg_query.Node_UpdateStmt,
		*pg_query.Node_DeleteStmt, *pg_query.Node_MergeStmt, *pg_query.Node_CallStmt:
		return false
	}
	return true
}

// relName is a written table's name as Analysis reports it: the parser has
// already folded unquoted identifiers to lower case and kept quoted ones
// as they are; the qualifier public is dropped.
func relName(r *pg_query.RangeVar) string {
	if s := r.GetSchemaname(); s != "" && s != "public" {
		return s + "." + r.GetRelname()
	}
	return r.GetRelname()
}
