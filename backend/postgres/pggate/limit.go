package pggate

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Key order for LIMIT without ORDER BY.
//
// LIMIT, OFFSET or FETCH FIRST without ORDER BY keeps the rows a scan
// meets first, and the physical order of a table's rows differs between
// nodes. Where the query reads tables that have a key (a primary key, or
// else a unique index of NOT NULL columns), the rows have a total order
// every node agrees on, and relchain makes it the query's order: the
// statement runs with ORDER BY ref.k1, ref.k2, ... added to that SELECT
// (ref is a table's alias, or its name). Django's .get() (LIMIT 21) and
// UPDATE/DELETE ... WHERE id IN (SELECT id FROM t ... LIMIT n) run that way.
//
// Which SELECTs qualify is a pure function of the text (limitSites): a
// SELECT with LIMIT/OFFSET/FETCH FIRST and no ORDER BY, not a set
// operation or VALUES, whose FROM holds tables and joins of tables only
// (RangeVars that name no CTE of an enclosing WITH and have no column
// aliases; joins without an alias), without GROUP BY, HAVING, DISTINCT,
// window clauses or aggregate calls in its output. It is ordered by the
// keys of all its tables, in FROM order: a join row is identified by the
// rows it joins (a NULL-extended row of an outer join by its other side),
// so Django's select_related().get() qualifies. A SELECT without FROM
// needs no order. The gate refuses every other SELECT with LIMIT and no
// ORDER BY, saying to add one. Which key a qualifying table has is state:
// the backend looks it up in the block's db-transaction (so a key added
// earlier in the same block counts), passes it in as a KeyFunc, and
// OrderLimits writes the ORDER BY; a table without a key refuses the
// statement there, as a statement error every node reports alike. The
// gate itself stays pure.

// KeyFunc returns the columns of the key a table's rows are ordered by
// (its primary key, or else its unique index of NOT NULL columns chosen by
// the backend's deterministic rule), or none if it has no such key. schema
// is empty for an unqualified name (resolved by the search path); only is
// set for ONLY t. It must be a deterministic function of replicated state.
type KeyFunc func(schema, name string, only bool) ([]string, error)

// limitSite is one SELECT that gets its tables' keys as its order.
type limitSite struct {
	sel    *pg_query.SelectStmt
	tables []limitTable // in FROM order
}

// limitTable is a table a limitSite reads.
type limitTable struct {
	rel *pg_query.RangeVar
	ref string // the name the SELECT knows the table by
}

// aggNames are the aggregates a SELECT's output may call: with any of
// them a SELECT without GROUP BY returns one row, and cannot be ordered by
// a table column.
var aggNames = setOf("count", "sum", "min", "max", "avg", "bool_and", "bool_or", "every",
	"bit_and", "bit_or", "bit_xor", "string_agg", "array_agg", "json_agg", "jsonb_agg",
	"json_object_agg", "jsonb_object_agg", "xmlagg", "stddev", "stddev_pop", "stddev_samp",
	"variance", "var_pop", "var_samp", "corr", "covar_pop", "covar_samp", "regr_avgx",
	"regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx",
	"regr_sxy", "regr_syy", "range_agg", "range_intersect_agg", "mode", "percentile_cont",
	"percentile_disc", "rank", "dense_rank", "percent_rank", "cume_dist", "any_value")

// unorderedLimit reports whether s keeps rows by LIMIT/OFFSET/FETCH FIRST
// without ORDER BY.
func unorderedLimit(s *pg_query.SelectStmt) bool {
	return len(s.GetSortClause()) == 0 && (s.GetLimitCount() != nil || s.GetLimitOffset() != nil)
}

// noKeyOrder is the refusal of a SELECT with LIMIT and no ORDER BY that
// no key can order.
func noKeyOrder(why string) error {
	return fmt.Errorf("LIMIT/OFFSET/FETCH FIRST without ORDER BY %s is not allowed: the rows it keeps differ between nodes; add ORDER BY (relchain orders a LIMIT over tables and joins of tables by their primary keys)", why)
}

// limitSites finds every SELECT of tree with LIMIT and no ORDER BY, in
// walk order (field declaration order, as the gate's walker). A SELECT
// that no key can order is an error when strict; otherwise it is skipped.
func limitSites(tree *pg_query.ParseResult, strict bool) ([]limitSite, error) {
	f := &siteFinder{strict: strict}
	for _, s := range tree.GetStmts() {
		if err := f.walk(s.ProtoReflect()); err != nil {
			return nil, err
		}
	}
	return f.sites, nil
}

type siteFinder struct {
	strict bool
	ctes   []string // the CTE names of the enclosing WITH clauses
	sites  []limitSite
}

func (f *siteFinder) walk(m protoreflect.Message) error {
	depth := len(f.ctes)
	defer func() { f.ctes = f.ctes[:depth] }()
	switch n := m.Interface().(type) {
	case *pg_query.SelectStmt:
		f.pushCTEs(n.GetWithClause())
		if unorderedLimit(n) {
			site, why := f.site(n)
			switch {
			case why == "":
				f.sites = append(f.sites, site)
			case f.strict:
				return noKeyOrder(why)
			}
		}
	case *pg_query.InsertStmt:
		f.pushCTEs(n.GetWithClause())
	case *pg_query.UpdateStmt:
		f.pushCTEs(n.GetWithClause())
	case *pg_query.DeleteStmt:
		f.pushCTEs(n.GetWithClause())
	case *pg_query.MergeStmt:
		f.pushCTEs(n.GetWithClause())
	}
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for j := 0; j < l.Len(); j++ {
				if err := f.walk(l.Get(j).Message()); err != nil {
					return err
				}
			}
		} else if err := f.walk(m.Get(fd).Message()); err != nil {
			return err
		}
	}
	return nil
}

// pushCTEs brings the CTE names of a statement's WITH into scope for the
// whole statement, its CTE bodies included (conservative: a name shadows
// a table wherever it could).
func (f *siteFinder) pushCTEs(w *pg_query.WithClause) {
	for _, c := range w.GetCtes() {
		f.ctes = append(f.ctes, c.GetCommonTableExpr().GetCtename())
	}
}

// site is s as a limitSite, or why no key can order it.
func (f *siteFinder) site(s *pg_query.SelectStmt) (limitSite, string) {
	switch {
	case s.GetOp() != pg_query.SetOperation_SETOP_NONE:
		return limitSite{}, "over UNION, INTERSECT or EXCEPT"
	case len(s.GetValuesLists()) > 0:
		return limitSite{}, "over VALUES"
	case len(s.GetFromClause()) == 0:
		return limitSite{sel: s}, "" // no table: its rows are its own, in order
	case len(s.GetGroupClause()) > 0 || s.GetHavingClause() != nil || len(s.GetDistinctClause()) > 0 || len(s.GetWindowClause()) > 0:
		return limitSite{}, "with GROUP BY, HAVING, DISTINCT or WINDOW"
	}
	for _, t := range s.GetTargetList() {
		if callsAggregate(t.ProtoReflect()) {
			return limitSite{}, "with an aggregate"
		}
	}
	site := limitSite{sel: s}
	for _, item := range s.GetFromClause() {
		if why := f.tablesOf(item, &site.tables); why != "" {
			return limitSite{}, why
		}
	}
	return site, ""
}

// tablesOf appends the tables of a FROM item (a table, or a join of
// tables) to tables, or says why the item is none: a join row is
// identified by the keys of the rows it joins (a row of an outer join's
// missing side by NULLs), so the keys of all its tables order the rows.
func (f *siteFinder) tablesOf(item *pg_query.Node, tables *[]limitTable) string {
	if j := item.GetJoinExpr(); j != nil {
		if j.GetAlias() != nil {
			return "over a join with an alias"
		}
		if why := f.tablesOf(j.GetLarg(), tables); why != "" {
			return why
		}
		return f.tablesOf(j.GetRarg(), tables)
	}
	rel := item.GetRangeVar()
	if rel == nil {
		return "over a subquery or a function"
	}
	if rel.GetCatalogname() != "" {
		return "over a table named with its database"
	}
	if rel.GetSchemaname() == "" {
		for _, c := range f.ctes {
			if c == rel.GetRelname() {
				return fmt.Sprintf("over the WITH query %s", rel.GetRelname())
			}
		}
	}
	ref := rel.GetRelname()
	if a := rel.GetAlias(); a != nil {
		if len(a.GetColnames()) > 0 {
			return "over a table with column aliases"
		}
		ref = a.GetAliasname()
	}
	*tables = append(*tables, limitTable{rel: rel, ref: ref})
	return ""
}

// callsAggregate reports whether an output column calls an aggregate or a
// window function outside a subquery.
func callsAggregate(m protoreflect.Message) bool {
	switch n := m.Interface().(type) {
	case *pg_query.SubLink:
		return false
	case *pg_query.FuncCall:
		names := stringsOf(n.GetFuncname())
		if n.GetAggStar() || n.GetAggDistinct() || len(n.GetAggOrder()) > 0 || n.GetAggFilter() != nil ||
			n.GetOver() != nil || aggNames[names[len(names)-1]] {
			return true
		}
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind:
		case fd.IsList():
			for j := 0; j < v.List().Len() && !found; j++ {
				found = callsAggregate(v.List().Get(j).Message())
			}
		case !fd.IsMap():
			found = callsAggregate(v.Message())
		}
		return !found
	})
	return found
}

// keyOrderable checks, on the block path, that every SELECT of tree with
// LIMIT and no ORDER BY can be ordered by its table's key.
func keyOrderable(tree *pg_query.ParseResult) error {
	_, err := limitSites(tree, true)
	return err
}

// KeyOrdered reports whether an accepted statement has a LIMIT without
// ORDER BY that OrderLimits must order by its table's key before it runs
// in a block.
func KeyOrdered(sql string) bool {
	v := lookup(sql)
	return v.Err == nil && v.keyOrder
}

// HasUnorderedLimit reports whether a text has a SELECT with LIMIT and no
// ORDER BY over one table, which OrderLimits would order by its key if it
// has one (the read path's question: it refuses nothing).
func HasUnorderedLimit(sql string) bool {
	tree, err := parseBounded(sql)
	if err != nil {
		return false
	}
	sites, err := limitSites(tree, false)
	return err == nil && len(sites) > 0
}

// OrderLimits returns sql with ORDER BY ref.key... added to every SELECT
// with LIMIT and no ORDER BY over one table, keys giving each table's key.
// strict (the block path) refuses a statement with such a SELECT that no
// key orders, naming what to add; otherwise (the read path) that SELECT is
// left as it is. The text returned is PostgreSQL's deparse of the changed
// tree, checked to parse back to it. ordered says the statement is a
// SELECT whose own rows are now in key order.
func OrderLimits(sql string, keys KeyFunc, strict bool) (text string, ordered bool, err error) {
	tree, err := parseBounded(sql)
	if err != nil {
		return "", false, err
	}
	sites, err := limitSites(tree, strict)
	if err != nil || len(sites) == 0 {
		return sql, false, err
	}
	top := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	changed := false
sites:
	for _, s := range sites {
		if len(s.tables) == 0 {
			continue
		}
		var order []*pg_query.Node
		for _, t := range s.tables {
			cols, err := keys(t.rel.GetSchemaname(), t.rel.GetRelname(), !t.rel.GetInh())
			if err != nil {
				return "", false, err
			}
			if len(cols) == 0 {
				if !strict {
					continue sites
				}
				name := relName(t.rel)
				return "", false, fmt.Errorf("LIMIT/OFFSET/FETCH FIRST without ORDER BY on table %s is not allowed: %s has no primary key (nor a unique index of NOT NULL columns) to order its rows by, and the rows it keeps differ between nodes; add ORDER BY, or a primary key to %s", name, name, name)
			}
			for _, c := range cols {
				order = append(order, &pg_query.Node{Node: &pg_query.Node_SortBy{SortBy: &pg_query.SortBy{
					Node:        pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(t.ref), pg_query.MakeStrNode(c)}, -1),
					SortbyDir:   pg_query.SortByDir_SORTBY_DEFAULT,
					SortbyNulls: pg_query.SortByNulls_SORTBY_NULLS_DEFAULT,
					Location:    -1,
				}}})
			}
		}
		s.sel.SortClause = order
		changed = true
		ordered = ordered || s.sel == top
	}
	if !changed {
		return sql, false, nil
	}
	text, err = pg_query.Deparse(tree)
	if err == nil {
		err = reparses(tree, text)
	}
	switch {
	case err == nil:
		return text, ordered, nil
	case !strict:
		return sql, false, nil // a read: left as it is
	}
	return "", false, errors.New("LIMIT without ORDER BY cannot be ordered by its table's key here: PostgreSQL's deparser does not reproduce this statement faithfully; add ORDER BY")
}

// errLimitInBody is the refusal in a routine body, where no rewrite reaches.
var errLimitInBody = errors.New("LIMIT/OFFSET/FETCH FIRST without ORDER BY is not allowed in a function or procedure body: the rows it keeps differ between nodes; add ORDER BY (relchain orders such a LIMIT by the table's key only in a statement of a transaction)")

// parseBounded parses a text after the pre-scan (package prescan).
func parseBounded(sql string) (*pg_query.ParseResult, error) {
	if err := bounded(sql); err != nil {
		return nil, err
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, unparseable("", err)
	}
	return tree, nil
}

// reparses fails unless text, the deparse of tree, parses back to tree
// (source positions aside).
func reparses(tree *pg_query.ParseResult, text string) error {
	back, err := pg_query.Parse(text)
	if err != nil {
		return err
	}
	stripPositions(tree.ProtoReflect())
	stripPositions(back.ProtoReflect())
	if !proto.Equal(tree, back) {
		return errors.New("its deparse differs")
	}
	return nil
}
