package pggate

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// verdict is the gate's full answer for one text.
type verdict struct {
	sqlcheck.Verdict
	tmpl *template // for Analysis.UsesEnv: the text to execute, with holes
	// keyOrder: a LIMIT without ORDER BY to order by its table's key
	// before the statement runs (limit.go, OrderLimits).
	keyOrder bool
}

var cache sqlcheck.VerdictCache[*verdict]

// Check is the PostgreSQL gate's verdict on one statement text, under the
// text gates' contract (package sqlcheck): nil if it may run on a relchain
// PostgreSQL node.
func Check(sql string) error {
	return lookup(sql).Err
}

// Analyze is Check plus what an accepted statement does (package
// sqlcheck's contract): whether it is DDL, the tables it writes, and
// whether it reads the clock or random numbers and must therefore be
// executed as Rewrite returns it (UsesEnv).
func Analyze(sql string) (sqlcheck.Analysis, error) {
	return lookup(sql).Result()
}

// Rewrite returns the text to execute (package sqlcheck's contract). If
// the statement's Analysis says UsesEnv, every call of a clock function is
// replaced by a literal of env.Time and every random() call by a literal
// drawn from env.Seed and the call's position (see the rewrite rules in
// env.go).
func Rewrite(sql string, env sqlcheck.Env) (string, error) {
	v := lookup(sql)
	switch {
	case v.Err != nil:
		return "", v.Err
	case v.tmpl == nil:
		return sql, nil
	}
	return v.tmpl.fill(env)
}

// Rewrites reports whether an accepted statement runs as Rewrite returns
// it: it uses the tx's environment (Analysis.UsesEnv), or calls sequence
// functions, which go to relchain's (sequence.go), or casts to date/time
// types that relchain.clock_guard checks (clockcast.go), whatever the
// environment.
func Rewrites(sql string) bool {
	v := lookup(sql)
	return v.Err == nil && v.tmpl != nil
}

// lookup is the cached verdict.
func lookup(sql string) *verdict { return cache.Get(sql, analyze) }

// check is Check without the cache.
func check(sql string) error {
	return analyze(sql).Err
}

// refusal is the verdict refusing a text with err.
func refusal(err error) *verdict { return &verdict{Verdict: sqlcheck.Verdict{Err: err}} }

// analyze is the uncached verdict.
func analyze(sql string) *verdict {
	tree, err := parse(sql)
	if err != nil {
		return refusal(err)
	}
	top := tree.GetStmts()[0].GetStmt()
	w, err := checkStatement(top, sql, stmtTop)
	if err != nil {
		return refusal(err)
	}
	if w.keyOrder {
		if err := keyOrderable(tree); err != nil {
			return refusal(err)
		}
	}
	v := &verdict{Verdict: *sqlcheck.Acceptance(isDDL(top), w.writes), keyOrder: w.keyOrder}
	// Its parameters as PostgreSQL counts them, cached with the verdict:
	// an engine that does not count them itself (MariaDB's translation)
	// checks a tx's arguments against it as the others do.
	if v.Analysis.Params, err = ParamCount(sql); err != nil {
		return refusal(err)
	}
	if len(w.sites) > 0 || w.rewritten || w.seqRewritten || w.guarded {
		// A rewrite of sequence functions or guarded casts alone
		// (sequence.go, clockcast.go) depends on no tx's environment: its
		// results are observed in full.
		v.Analysis.UsesEnv = len(w.sites) > 0 || w.rewritten
		if v.tmpl, err = buildTemplate(tree, w.sites, w.renames); err != nil {
			return refusal(err)
		}
	}
	return v
}

// bounded is the pre-scan every text passes before libpg_query sees it
// (package prescan): a text that could exhaust the parser's stack, or
// PostgreSQL's, is refused with a message naming the limit.
func bounded(sql string) error { return prescan.Check(sql, prescan.PostgreSQL) }

// parse parses a text that must hold exactly one statement.
func parse(sql string) (*pg_query.ParseResult, error) {
	if err := bounded(sql); err != nil {
		return nil, err
	}
	tree, err := pgparse.Parse(sql)
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
