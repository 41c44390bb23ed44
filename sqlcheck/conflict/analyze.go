package conflict

import (
	"slices"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// Analyze is what one statement may read and write, given its arguments
// and the committed schema. sql is a statement PostgreSQL's gate
// (backend/postgres/pggate) accepted, in PostgreSQL's dialect, as the tx
// holds it (not rewritten); args are its arguments as the executor passes
// them (nil, int64, float64, string, []byte, bool). Whatever the analysis
// cannot bound is All (see DESIGN.md for the rules).
func Analyze(sql string, args []any, cat Catalog) Access {
	memo, _ := cat.(*Memo)
	if memo == nil {
		acc, _ := analyze(sql, args, cat)
		return acc
	}
	if acc, ok := memo.get(sql); ok {
		return acc
	}
	shape := argShape(args)
	if tpl, ok := memo.template(sql, shape); ok {
		if acc, ok := tpl.instantiate(args); ok {
			return acc
		}
	}
	tpl, usedArgs, clean := analyzeWith(sql, args, cat, true)
	if !clean {
		acc, _ := analyze(sql, args, cat)
		return acc
	}
	if !usedArgs {
		memo.put(sql, tpl)
		return tpl.clone()
	}
	memo.putTemplate(sql, shape, tpl)
	if acc, ok := tpl.instantiate(args); ok {
		return acc
	}
	acc, _ := analyze(sql, args, cat)
	return acc
}

// analyze is Analyze without the memo; usedArgs reports whether the
// answer depends on args (a parameter's value pinned a key).
func analyze(sql string, args []any, cat Catalog) (acc Access, usedArgs bool) {
	acc, usedArgs, _ = analyzeWith(sql, args, cat, false)
	return acc, usedArgs
}

// analyzeWith is analyze; with marks, each key value an argument gives
// is argMark(i, k) instead of the argument's text (memo.go), and clean
// reports whether no literal of sql could be taken for a mark.
func analyzeWith(sql string, args []any, cat Catalog, marks bool) (acc Access, usedArgs, clean bool) {
	tree := parsed(sql)
	if tree == nil {
		return Access{All: true}, false, true
	}
	a := &analyzer{sql: sql, cat: cat, args: args, marks: marks, done: map[*pg_query.RangeVar]bool{}}
	top := tree.GetStmts()[0].GetStmt()
	switch n := top.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		a.ctes = cteNames(n.SelectStmt.GetWithClause())
		a.selectByKey(n.SelectStmt)
	case *pg_query.Node_InsertStmt:
		a.ctes = cteNames(n.InsertStmt.GetWithClause())
		a.insertByKey(n.InsertStmt)
	case *pg_query.Node_UpdateStmt:
		a.ctes = cteNames(n.UpdateStmt.GetWithClause())
		a.updateByKey(n.UpdateStmt)
	case *pg_query.Node_DeleteStmt:
		a.ctes = cteNames(n.DeleteStmt.GetWithClause())
		a.deleteByKey(n.DeleteStmt)
	case *pg_query.Node_MergeStmt:
		// Handled by walk: a table-wide write of its target.
	default:
		// DDL, TRUNCATE, LOCK, CALL, SET CONSTRAINTS and any kind this
		// package does not know.
		return Access{All: true}, false, true
	}
	a.walk(top.ProtoReflect())
	return a.result(), a.usedArgs, !a.marked
}

// trees caches the parse trees of statement texts: a block's txs repeat
// a few texts with other arguments, and the parse (libpg_query's
// encoding decoded afresh, pgparse) was most of the analysis's cost. The
// analysis only reads a tree, so one serves every caller; a tree is a
// pure function of its text, so the cache changes no answer. Past
// maxTrees texts it starts again empty.
var trees struct {
	sync.RWMutex
	m map[string]*pg_query.ParseResult
}

const maxTrees = 4096

// parsed is sql's parse tree, nil when sql is not one statement that
// passes the prescan and parses.
func parsed(sql string) *pg_query.ParseResult {
	trees.RLock()
	tree, ok := trees.m[sql]
	trees.RUnlock()
	if ok {
		return tree
	}
	if prescan.Check(sql, prescan.PostgreSQL) == nil {
		if t, err := pgparse.Parse(sql); err == nil && len(t.GetStmts()) == 1 {
			tree = t
		}
	}
	trees.Lock()
	if trees.m == nil || len(trees.m) >= maxTrees {
		trees.m = make(map[string]*pg_query.ParseResult)
	}
	trees.m[sql] = tree
	trees.Unlock()
	return tree
}

// analyzer gathers one statement's access.
type analyzer struct {
	sql  string
	cat  Catalog
	args []any
	// usedArgs: an argument's value went into the answer.
	usedArgs bool
	// marks: an argument's key value is its mark (argMark), not its text.
	marks bool
	// marked: a literal's text could be taken for a mark (it holds a
	// NUL); the marked answer cannot serve as a template.
	marked bool
	all    bool
	reads  []Key
	writes []Key
	// locks: the statement has a locking clause (FOR UPDATE, FOR SHARE
	// ...): everything it reads counts as written.
	locks bool
	// scope holds the names of the CTEs visible where walk stands.
	scope []string
	// done are the relations whose access a key rule recorded already.
	done map[*pg_query.RangeVar]bool
	// ctes are the CTE names of the top-level statement's WITH clause,
	// visible to every key rule.
	ctes []string
	// inner are the qualifiers of the FROM items a key rule stands in
	// (they hide outer's); outer the enclosing UPDATE's pinned key
	// column, seen from its SET list (lookup.go).
	inner []string
	outer []outerCol
}

// cteNames are the names a WITH clause defines.
func cteNames(w *pg_query.WithClause) []string {
	var names []string
	for _, c := range w.GetCtes() {
		names = append(names, c.GetCommonTableExpr().GetCtename())
	}
	return names
}

// table is the catalog's table name, or false (and the access becomes All)
// when the name is no plain table or the table is opaque.
func (a *analyzer) table(name string) (Table, bool) {
	t, ok := a.cat.Table(name)
	if !ok || t.Opaque {
		a.all = true
		return Table{}, false
	}
	return t, true
}

func (a *analyzer) touch(k Key, write bool) {
	if write {
		a.writes = append(a.writes, k)
	} else {
		a.reads = append(a.reads, k)
	}
}

// relName is a relation's name as sqlcheck.Analysis.Writes spells it (the
// PostgreSQL gate's relName): the parser has folded unquoted identifiers
// to lower case; the qualifier public is dropped.
func relName(r *pg_query.RangeVar) string {
	if s := r.GetSchemaname(); s != "" && s != "public" {
		return s + "." + r.GetRelname()
	}
	return r.GetRelname()
}

// walk visits m and every message below it in field order, recording
// table-wide access of every relation a key rule did not settle.
func (a *analyzer) walk(m protoreflect.Message) {
	if a.all {
		return
	}
	md := m.Descriptor()
	if md.Name() == "Node" {
		if fd := m.WhichOneof(md.Oneofs().Get(0)); fd != nil {
			a.walk(m.Get(fd).Message())
		}
		return
	}
	var with *pg_query.WithClause
	switch n := m.Interface().(type) {
	case *pg_query.RangeVar:
		a.rangeVar(n)
		return
	case *pg_query.FuncCall:
		a.funcCall(n)
	case *pg_query.SelectStmt:
		a.locks = a.locks || len(n.GetLockingClause()) > 0
		with = n.GetWithClause()
	case *pg_query.InsertStmt:
		a.modifies(n.GetRelation(), true)
		with = n.GetWithClause()
	case *pg_query.UpdateStmt:
		a.modifies(n.GetRelation(), setsDefault(n.GetTargetList()))
		with = n.GetWithClause()
	case *pg_query.DeleteStmt:
		a.modifies(n.GetRelation(), false)
		with = n.GetWithClause()
	case *pg_query.MergeStmt:
		a.modifies(n.GetRelation(), true)
		with = n.GetWithClause()
	case *pg_query.LockingClause:
		return // its relations are aliases of the FROM list (locks: see SelectStmt)
	case *pg_query.CommonTableExpr, *pg_query.WithClause:
		// Reached only through walkWith.
	default:
		if strings.HasSuffix(string(md.Name()), "Stmt") {
			a.all = true // a statement kind nested where it has no handler
			return
		}
	}
	if with != nil {
		a.walkWith(with)
	}
	base := len(a.scope)
	if with != nil {
		for _, c := range with.GetCtes() {
			a.scope = append(a.scope, c.GetCommonTableExpr().GetCtename())
		}
	}
	pgparse.Children(m, func(c protoreflect.Message) bool {
		if c.Interface() != with { // walked by walkWith
			a.walk(c)
		}
		return true
	})
	a.scope = a.scope[:base]
}

// walkWith walks the CTEs of a WITH clause: each sees the ones before it
// (a recursive WITH, which the gate refuses, is All).
func (a *analyzer) walkWith(w *pg_query.WithClause) {
	if w.GetRecursive() {
		a.all = true
		return
	}
	base := len(a.scope)
	for _, c := range w.GetCtes() {
		cte := c.GetCommonTableExpr()
		if cte == nil {
			a.all = true
			return
		}
		a.walk(cte.GetCtequery().ProtoReflect())
		a.scope = append(a.scope, cte.GetCtename())
	}
	a.scope = a.scope[:base]
}

// rangeVar records a table-wide read of a relation named in a FROM list
// (or a statement's target), unless a key rule settled it or it names a
// CTE in scope.
func (a *analyzer) rangeVar(r *pg_query.RangeVar) {
	if a.done[r] || r.GetSchemaname() == "" && slices.Contains(a.scope, r.GetRelname()) {
		return
	}
	name := relName(r)
	if _, ok := a.table(name); ok {
		a.touch(Key{Rel: "t:" + name}, false)
	}
}

// modifies records a table-wide write of a data-modifying statement's
// target, unless a key rule settled it; fills says it may fill a column
// from its default (INSERT, MERGE, SET col = DEFAULT): the table's
// sequences are written.
func (a *analyzer) modifies(r *pg_query.RangeVar, fills bool) {
	name := relName(r)
	t, ok := a.table(name)
	if !ok {
		return
	}
	if !a.done[r] {
		a.touch(Key{Rel: "t:" + name}, true)
	}
	if fills {
		for _, s := range t.Sequences {
			a.touch(Key{Rel: "s:" + s}, true)
		}
	}
}

// setsDefault reports whether an UPDATE's SET list assigns DEFAULT.
func setsDefault(targets []*pg_query.Node) bool {
	for _, t := range targets {
		v := t.GetResTarget().GetVal()
		if v.GetSetToDefault() != nil {
			return true
		}
		if r := v.GetMultiAssignRef().GetSource().GetRowExpr(); r != nil {
			for _, e := range r.GetArgs() {
				if e.GetSetToDefault() != nil {
					return true
				}
			}
		}
	}
	return false
}

// funcCall records what a function call touches: sequence functions their
// sequence; a user routine, or anything qualified otherwise than a
// built-in, is All.
func (a *analyzer) funcCall(f *pg_query.FuncCall) {
	var names []string
	for _, n := range f.GetFuncname() {
		names = append(names, n.GetString_().GetSval())
	}
	var name string
	switch {
	case len(names) == 1:
		name = names[0]
		if a.cat.Routine(name) {
			a.all = true // the call may resolve to the user's routine
			return
		}
	case len(names) == 2 && names[0] == "pg_catalog":
		name = names[1]
	case len(names) == 2 && names[0] == "relchain" && sequenceFuncs[names[1]]:
		name = names[1] // the gate's rewrite of a sequence function
	default:
		a.all = true // public.name(...): a user routine, any statement inside
		return
	}
	switch {
	case name == "nextval" || name == "setval":
		a.sequence(f, true)
	case name == "currval":
		a.sequence(f, false)
	case name == "lastval":
		// Answers the value last returned within the same bc-transaction
		// (backend/postgres/sequence.go): nothing another tx does.
	case strings.HasPrefix(name, "pg_advisory") || strings.HasPrefix(name, "pg_try_advisory"):
		a.all = true // locks (the gate refuses them; defence in depth)
	}
}

// sequenceFuncs are the functions relchain's sequence rewrite sends to
// schema relchain.
var sequenceFuncs = map[string]bool{"nextval": true, "currval": true, "setval": true, "lastval": true}

// sequence records the access of a sequence function whose first argument
// must be a string literal naming the sequence (anything else is All).
func (a *analyzer) sequence(f *pg_query.FuncCall, write bool) {
	args := f.GetArgs()
	if len(args) == 0 || args[0].GetAConst().GetSval() == nil {
		a.all = true
		return
	}
	name, ok := sequenceName(args[0].GetAConst().GetSval().GetSval())
	if !ok {
		a.all = true
		return
	}
	a.touch(Key{Rel: "s:" + name}, write)
}

// sequenceName reads a sequence's name as regclass input does: an
// optional schema qualifier (public dropped), each part folded to lower
// case unless double-quoted, surrounding spaces ignored.
func sequenceName(s string) (string, bool) {
	var parts []string
	for {
		s = strings.TrimSpace(s)
		var part string
		if strings.HasPrefix(s, `"`) {
			end := 1
			for {
				i := strings.IndexByte(s[end:], '"')
				if i < 0 {
					return "", false
				}
				end += i + 1
				if end < len(s) && s[end] == '"' {
					end++
					continue
				}
				break
			}
			part, s = strings.ReplaceAll(s[1:end-1], `""`, `"`), strings.TrimSpace(s[end:])
		} else {
			i := strings.IndexByte(s, '.')
			if i < 0 {
				i = len(s)
			}
			part, s = strings.ToLower(strings.TrimSpace(s[:i])), s[i:]
		}
		if part == "" {
			return "", false
		}
		parts = append(parts, part)
		if s == "" {
			break
		}
		if s[0] != '.' {
			return "", false
		}
		s = s[1:]
	}
	switch {
	case len(parts) == 1:
		return parts[0], true
	case len(parts) == 2 && parts[0] == "public":
		return parts[1], true
	case len(parts) == 2:
		return parts[0] + "." + parts[1], true
	}
	return "", false
}

// result is the statement's Access: locked reads become writes, writes
// to a table with another unique constraint or with foreign keys become
// table-wide, and the tables its foreign keys reach (transitively: a
// cascade may cascade) are written whole.
func (a *analyzer) result() Access {
	if a.all {
		return Access{All: true}
	}
	if a.locks {
		a.writes = append(a.writes, a.reads...)
		a.reads = nil
	}
	var related []string
	for i, k := range a.writes {
		name, isTable := strings.CutPrefix(k.Rel, "t:")
		if !isTable {
			continue
		}
		t, ok := a.table(name)
		if !ok {
			return Access{All: true}
		}
		if !t.KeyIsOnlyUnique || len(t.Unique) > 0 || len(t.Related) > 0 {
			a.writes[i].Row = ""
		}
		related = append(related, t.Related...)
	}
	seen := map[string]bool{}
	for len(related) > 0 {
		name := related[0]
		related = related[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		t, ok := a.table(name)
		if !ok {
			return Access{All: true}
		}
		a.writes = append(a.writes, Key{Rel: "t:" + name})
		related = append(related, t.Related...)
	}
	acc := Access{Reads: a.reads, Writes: a.writes}
	acc.normalize()
	return acc
}
