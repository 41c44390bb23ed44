package pghistory

import (
	"fmt"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// replacement is the subquery that takes rf's place.
func replacement(rf *pg_query.RangeFunction, relation func(Call) (string, error)) (*pg_query.RangeSubselect, error) {
	call, err := callOf(rf)
	if err != nil {
		return nil, err
	}
	text, err := relation(call)
	if err != nil {
		return nil, err
	}
	if err := prescan.Check(text, prescan.PostgreSQL); err != nil {
		return nil, fmt.Errorf("%w('%s'): the relation of this node's history: %w", ErrCall, call.Table, err)
	}
	sub, err := pgparse.Parse(text)
	if err != nil || len(sub.GetStmts()) != 1 || sub.GetStmts()[0].GetStmt().GetSelectStmt() == nil {
		return nil, fmt.Errorf("%w('%s'): the relation built is not one SELECT (%v)", ErrCall, call.Table, err)
	}
	alias := rf.GetAlias()
	if alias == nil {
		alias = &pg_query.Alias{Aliasname: Name}
	}
	return &pg_query.RangeSubselect{Lateral: rf.GetLateral(), Subquery: sub.GetStmts()[0].GetStmt(), Alias: alias}, nil
}

// callOf checks rf's form and reads its arguments.
func callOf(rf *pg_query.RangeFunction) (Call, error) {
	if len(rf.GetFunctions()) != 1 || rf.GetIsRowsfrom() || rf.GetOrdinality() || len(rf.GetColdeflist()) > 0 {
		return Call{}, fmt.Errorf("%w: ROWS FROM, WITH ORDINALITY and column definition lists are not supported: %s", ErrCall, usage)
	}
	items := rf.GetFunctions()[0].GetList().GetItems()
	if len(items) > 1 && items[1] != nil && items[1].GetNode() != nil {
		return Call{}, fmt.Errorf("%w: a column definition list is not supported: %s", ErrCall, usage)
	}
	fc := items[0].GetFuncCall()
	if fc.GetAggStar() || fc.GetAggDistinct() || len(fc.GetAggOrder()) > 0 || fc.GetAggFilter() != nil || fc.GetOver() != nil || fc.GetFuncVariadic() {
		return Call{}, fmt.Errorf("%w: %s", ErrCall, usage)
	}
	args := fc.GetArgs()
	if len(args) < 1 || len(args) > 2 {
		return Call{}, fmt.Errorf("%w takes 1 or 2 arguments, not %d: %s", ErrCall, len(args), usage)
	}
	table := args[0].GetAConst()
	if table == nil || table.GetSval() == nil {
		return Call{}, fmt.Errorf("%w: its first argument must be a table name as a string literal: %s", ErrCall, usage)
	}
	c := Call{Table: table.GetSval().GetSval()}
	if len(args) == 2 {
		h, ok := heightOf(args[1].GetAConst())
		if !ok {
			return Call{}, fmt.Errorf("%w: its second argument must be a height, a non-negative integer literal: %s", ErrCall, usage)
		}
		c.FromHeight = h
	}
	return c, nil
}

// heightOf is an integer literal's value (libpg_query gives one beyond 32
// bits as a Float of its digits).
func heightOf(c *pg_query.A_Const) (int64, bool) {
	switch {
	case c == nil:
		return 0, false
	case c.GetIval() != nil:
		return int64(c.GetIval().GetIval()), c.GetIval().GetIval() >= 0
	case c.GetFval() != nil:
		h, err := strconv.ParseInt(c.GetFval().GetFval(), 10, 64)
		return h, err == nil && h >= 0
	}
	return 0, false
}
