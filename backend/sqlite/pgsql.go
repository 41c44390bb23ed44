package sqlite

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pggate"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
	"github.com/relchain/relchain/sqlcheck"
)

// WithPostgresDialect makes the backend take PostgreSQL's SQL (a network
// whose genesis says sql_dialect "postgres"; docs/dialects.md): every
// statement of Gate, Exec, Query and Describe is judged by PostgreSQL's
// gate (backend/postgres/pggate), translated into SQLite by
// pgdialect.Translate, and run through this backend, whose own gate (the
// authorizer) still judges every translated statement as a backstop.
// Results carry the statements' PostgreSQL types. Every connection
// registers the translation's runtime functions (pgruntime.Register).
func WithPostgresDialect() Option { return func(o *options) { o.pg = true } }

// sqlDialect is the SQL the backend takes (backend.Capabilities).
func (b *Backend) sqlDialect() string {
	if b.opts.pg {
		return "postgres"
	}
	return "sqlite"
}

// pgGate is the Backend's backend.Gate in the postgres dialect.
type pgGate struct{ b *Backend }

// Analyze is PostgreSQL's gate's verdict, then the translation's on
// committed state, then SQLite's gate's on every translated statement.
// What depends on the schema (a table an earlier tx of the block creates)
// is no verdict, as in the sqlite dialect: the block decides.
func (g pgGate) Analyze(ctx context.Context, sql string) (sqlcheck.Analysis, error) {
	gen := g.b.schemaGen.Load()
	if v, ok := g.b.pgVerdicts.lookup(sql, gen); ok {
		return cloneAnalysis(v.an), v.err
	}
	an, err := g.analyze(ctx, sql, gen)
	if err == nil || backend.AsError(err) != nil { // a verdict, not trouble
		g.b.pgVerdicts.put(sql, verdict{an: an, err: err, gen: gen})
	}
	return cloneAnalysis(an), err
}

// analyze is Analyze without the cache, on committed schema generation gen.
func (g pgGate) analyze(ctx context.Context, sql string, gen int64) (sqlcheck.Analysis, error) {
	if sc, ok := parseSetConstraints(sql); ok {
		return sc.verdict()
	}
	an, text, err := pgJudge(sql, sqlcheck.Env{})
	if err != nil {
		return an, err
	}
	r, err := g.b.reader(ctx)
	if err != nil {
		return an, err
	}
	text, err = keyOrdered(r, sql, text)
	var tr *pgdialect.Translation
	if err == nil {
		tr, err = translateOn(r, text, nil, g.b.pgTables.of(gen))
	}
	g.b.release(r)
	if err != nil {
		if e := backend.AsError(err); e != nil && e.Class == backend.ClassUndefined {
			an.Params = sqlcheck.ParamsUnknown // no verdict: see Gate.Analyze
			return an, nil
		}
		return an, err
	}
	for _, s := range tr.Statements {
		if _, err := g.b.analyze(ctx, s); err != nil {
			return an, err
		}
	}
	an.Params = len(tr.Params)
	return an, nil
}

// verdicts caches Analyze's verdicts on PostgreSQL texts by text, each for
// the committed schema generation it was taken on (a separate cache from
// the translated SQLite texts' own: the same text may be both).
type verdicts struct {
	mu sync.Mutex
	m  map[string]verdict
}

func (c *verdicts) lookup(sql string, gen int64) (verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[sql]
	return v, ok && v.gen == gen
}

func (c *verdicts) put(sql string, v verdict) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= 4096 {
		c.m = make(map[string]verdict)
	}
	c.m[sql] = v
}

// committedTables are the tables' columns that Analyze's translations
// read on committed state, for the committed schema generation gen: a
// block that changed the schema bumps the generation when it commits
// (block.go), as it retires the verdicts of pgVerdicts. Between its
// COMMIT and the bump a reader may see the new schema under the old
// generation, as pgVerdicts may: what is read then is dropped with it.
type committedTables struct {
	mu     sync.Mutex
	gen    int64
	tables *pgruntime.Tables
}

// of is the columns read on generation gen (a new, empty set for a
// generation other than the last one asked for).
func (c *committedTables) of(gen int64) *pgruntime.Tables {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables == nil || c.gen != gen {
		c.gen, c.tables = gen, &pgruntime.Tables{}
	}
	return c.tables
}

// AnalyzeInBlock judges sql on the block's state: PostgreSQL's gate, the
// translation on the writer, SQLite's gate on the first translated
// statement (the later ones may need the earlier ones' schema: Exec's
// authorizer judges them as they run).
func (g pgGate) AnalyzeInBlock(ctx context.Context, blk backend.Block, sql string) (sqlcheck.Analysis, error) {
	k, ok := blk.(*block)
	if !ok || k.b != g.b {
		return sqlcheck.Analysis{}, fmt.Errorf("sqlite: gate: %T is not a block of this backend", blk)
	}
	if sc, ok := parseSetConstraints(sql); ok {
		return sc.verdict()
	}
	an, tr, err := k.translate(sql, nil)
	if err != nil {
		return an, err
	}
	if len(tr.Statements) > 0 {
		if _, err := k.analyze(ctx, tr.Statements[0]); err != nil {
			return an, err
		}
	}
	an.Params = len(tr.Params)
	return an, nil
}

// TableName folds a name as PostgreSQL's gate reports tables: unquoted
// names arrive folded already; the default schema's qualifier is dropped.
func (pgGate) TableName(name string) string { return strings.TrimPrefix(name, "public.") }

// pgJudge is PostgreSQL's gate's verdict on sql and the text to
// translate: sql, or as pggate.Rewrite fills it with env (the clock and
// random numbers of the tx, relchain's sequence functions). A read of
// PostgreSQL's catalogs is refused first (catalogInBlock).
func pgJudge(sql string, env sqlcheck.Env) (sqlcheck.Analysis, string, error) {
	if err := catalogInBlock(sql); err != nil {
		return sqlcheck.Analysis{}, "", err
	}
	an, err := pggate.Analyze(sql)
	if err != nil {
		if pgdialect.BeyondGate(sql) {
			return sqlcheck.Analysis{DDL: true, BeyondPostgres: true}, sql, nil
		}
		return an, "", pgGateError(err)
	}
	if !pggate.Rewrites(sql) {
		return an, sql, nil
	}
	text, err := pggate.Rewrite(sql, env)
	if err != nil {
		return an, "", pgGateError(err)
	}
	return an, text, nil
}

// translate judges sql with PostgreSQL's gate and translates it on the
// block's writer, with the open tx's environment (Savepoint) and its
// parameters typed by args (argTypes; nil: by their context alone).
func (k *block) translate(sql string, args []any) (sqlcheck.Analysis, *pgdialect.Translation, error) {
	b, err := k.lock()
	if err != nil {
		return sqlcheck.Analysis{}, nil, err
	}
	defer b.wmu.Unlock()
	if an, tr, ok := b.pgStatements.lookup(sql, args); ok {
		return an, tr, nil
	}
	an, text, err := pgJudge(sql, b.pgEnv)
	if err != nil {
		return an, nil, err
	}
	types := argTypes(args)
	asWritten := text == sql && !pggate.Rewrites(sql)
	key := translationKey(text, types)
	if tr, ok := b.pgTranslations[key]; ok {
		if asWritten {
			b.putStatement(sql, an, types, tr)
		}
		return an, tr, nil
	}
	var tr *pgdialect.Translation
	// The catalog reads the schema on the writer: relchain's own reads.
	b.internal = true
	text, err = keyOrdered(b.w, sql, text)
	if err == nil {
		tr, err = translateOn(b.w, text, types, nil)
	}
	b.internal = false
	if err != nil {
		return an, nil, err // not cached: it may depend on the schema
	}
	if b.pgTranslations == nil || len(b.pgTranslations) >= maxCachedTranslations {
		b.pgTranslations = make(map[string]*pgdialect.Translation)
	}
	b.pgTranslations[key] = tr
	if asWritten {
		b.putStatement(sql, an, types, tr)
	}
	return an, tr, nil
}

// pgStatements is the writer's fast path to a translation (postgres
// dialect): by the statement's own text, for the texts that run as
// written (PostgreSQL's gate accepts them with no rewrite by the tx's
// environment), the gate's analysis and the translations by argument
// types. A hit skips the gate's judgement (catalogInBlock, pggate's
// verdict) and the translation key. What it holds is what the slow path
// computes, a function of the text, the argument types and the schema:
// it is emptied with pgTranslations (dropStatements). Guarded by wmu.
type pgStatements map[string]*pgStatement

// pgStatement is a statement text's analysis and its translations.
type pgStatement struct {
	an  sqlcheck.Analysis
	trs []typedTranslation
}

// typedTranslation is a translation and the argument types it was made
// for.
type typedTranslation struct {
	types []pgdialect.Type
	tr    *pgdialect.Translation
}

// maxTypings bounds the translations a pgStatement keeps (a text is
// usually sent with one typing of its arguments, and judged untyped).
const maxTypings = 4

// lookup is sql's analysis (a copy) and its translation for args' types.
func (m pgStatements) lookup(sql string, args []any) (sqlcheck.Analysis, *pgdialect.Translation, bool) {
	st, ok := m[sql]
	if !ok {
		return sqlcheck.Analysis{}, nil, false
	}
	for _, t := range st.trs {
		if typedAs(t.types, args) {
			return cloneAnalysis(st.an), t.tr, true
		}
	}
	return sqlcheck.Analysis{}, nil, false
}

// putStatement remembers tr as sql's translation for types (pgStatements).
func (b *Backend) putStatement(sql string, an sqlcheck.Analysis, types []pgdialect.Type, tr *pgdialect.Translation) {
	if b.pgStatements == nil || len(b.pgStatements) >= maxCachedTranslations {
		b.pgStatements = make(pgStatements)
	}
	st, ok := b.pgStatements[sql]
	if !ok {
		st = &pgStatement{an: cloneAnalysis(an)}
		b.pgStatements[sql] = st
	}
	if len(st.trs) < maxTypings {
		st.trs = append(st.trs, typedTranslation{types: types, tr: tr})
	}
}

// typedAs reports whether argTypes(args) is types.
func typedAs(types []pgdialect.Type, args []any) bool {
	if len(types) != len(args) {
		return false
	}
	for i, a := range args {
		if types[i] != argType(a) {
			return false
		}
	}
	return true
}

// maxCachedTranslations bounds the writer's translation cache: past it,
// the cache starts again empty.
const maxCachedTranslations = 4096

// translationKey is the translation cache's key: the text to translate
// and the types its arguments give its parameters.
func translationKey(text string, types []pgdialect.Type) string {
	if len(types) == 0 {
		return text
	}
	k := make([]byte, 0, len(text)+8*len(types))
	k = append(k, text...)
	for _, t := range types {
		k = append(append(append(k, 0), t.Name...), '/')
		k = strconv.AppendInt(k, int64(t.Typmod), 10)
	}
	return string(k)
}

// execPostgres is Exec in the postgres dialect: the translation's
// statements run in order (each as Exec runs a statement of the sqlite
// dialect, under SQLite's gate and on fuel); the last one's result, its
// values converted to their PostgreSQL types, is the statement's. A
// statement takes the arguments when its text has placeholders.
func (k *block) execPostgres(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	if sc, ok := parseSetConstraints(sql); ok {
		return k.execSetConstraints(ctx, sc)
	}
	_, tr, err := k.translate(sql, args)
	if err != nil {
		return nil, err
	}
	if args, err = pgParams(tr.Params, args); err != nil {
		return nil, err
	}
	if err := k.beforeStatement(sql); err != nil {
		return nil, err
	}
	var rows *backend.Rows
	for _, s := range tr.Statements {
		a := args
		if !strings.Contains(s, "?") {
			a = nil
		}
		if rows, err = k.execNative(ctx, s, a); err != nil {
			return nil, runtimeError(err)
		}
	}
	if err := k.afterStatement(ctx, sql, rows); err != nil {
		return nil, err
	}
	if rows == nil || tr.DDL {
		// DDL reports no rows affected, as PostgreSQL's command tag
		// (CREATE TABLE) does, whatever its translation's last
		// statement was (a serial's sequence state is an INSERT).
		return &backend.Rows{}, nil
	}
	if err := pgValues(rows, tr.Columns); err != nil {
		return nil, err
	}
	rows.Unordered = !tr.Ordered
	return rows, nil
}

// translateRead is the read path's judgement and translation of a query
// on the read connection r (committed state): PostgreSQL's read policy
// (pggate.CheckRead), then one translated statement.
func (b *Backend) translateRead(r *sqlite3.Conn, sql string, args []any) (string, *pgdialect.Translation, error) {
	if err := catalogRead(sql); err != nil {
		return "", nil, err
	}
	read, err := pggate.CheckRead(sql)
	if err != nil {
		return "", nil, pgGateError(err)
	}
	if read.Writes {
		return "", nil, errReadOnly
	}
	tr, err := translateOn(r, b.readKeyOrdered(r, read.Text), argTypes(args), nil)
	if err != nil {
		return "", nil, err
	}
	if len(tr.Statements) != 1 {
		return "", nil, errReadOnly
	}
	return tr.Statements[0], tr, nil
}

// argTypes types a statement's parameters by its arguments' Go types as
// the PostgreSQL backend sends them (int64 as int8, float64 as float8,
// bool, []byte as bytea; a string or NULL is left to the context), so that
// a statement means on SQLite what it means on PostgreSQL storage. The
// arguments are the envelope's typed values: every node types alike.
func argTypes(args []any) []pgdialect.Type {
	if len(args) == 0 {
		return nil
	}
	out := make([]pgdialect.Type, len(args))
	for i, a := range args {
		out[i] = argType(a)
	}
	return out
}

// argType is the type argTypes gives an argument (the zero Type: none).
func argType(a any) pgdialect.Type {
	name := ""
	switch a.(type) {
	case int64, int:
		name = "int8"
	case float64:
		name = "float8"
	case bool:
		name = "bool"
	case []byte:
		name = "bytea"
	default:
		return pgdialect.Type{}
	}
	return pgdialect.Type{Name: name, Typmod: -1}
}

// pgParams converts a statement's arguments as PostgreSQL reads
// parameters of the placeholders' types (pgruntime.Param: a string is the
// type's text form). A count that differs is left to the bind's own check.
func pgParams(types []pgdialect.Type, args []any) ([]any, error) {
	if len(args) == 0 || len(args) != len(types) {
		return args, nil
	}
	out := make([]any, len(args))
	for i, a := range args {
		v, err := pgruntime.Param(types[i], a)
		if err != nil {
			return nil, runtimeError(fmt.Errorf("parameter $%d: %w", i+1, err))
		}
		out[i] = v
	}
	return out, nil
}

var errReadOnly = &backend.Error{Class: backend.ClassPermission, SQLState: "25006", Message: "the query path is read-only: submit writes as transactions (relchain exec)"}

// pgValues renames rows' columns as the translation names them and
// converts their values to the columns' PostgreSQL types (pgruntime.Value).
func pgValues(rows *backend.Rows, cols []pgdialect.ResultColumn) error {
	if len(cols) == 0 {
		return nil
	}
	if len(cols) != len(rows.Columns) {
		return fmt.Errorf("postgres dialect: the translation describes %d result columns, SQLite returned %d", len(cols), len(rows.Columns))
	}
	for i, c := range cols {
		rows.Columns[i] = c.Name
	}
	for _, row := range rows.Rows {
		for i, v := range row {
			x, err := pgruntime.Value(cols[i].Type, v)
			if err != nil {
				return runtimeError(fmt.Errorf("column %s: %w", cols[i].Name, err))
			}
			row[i] = x
		}
	}
	return nil
}

// pgTypes fills rows' Types and Typmods with the translation's column
// types (the read path's results; a block's leave them nil).
func pgTypes(rows *backend.Rows, cols []pgdialect.ResultColumn) {
	if len(cols) == 0 {
		return
	}
	rows.Types = make([]string, len(cols))
	rows.Typmods = make([]int32, len(cols))
	for i, c := range cols {
		rows.Types[i], rows.Typmods[i] = c.Type.Name, c.Type.Typmod
	}
}

// describeTranslation is a Description of tr on committed state at height.
func describeTranslation(tr *pgdialect.Translation, height int64) *backend.Description {
	d := &backend.Description{Height: height, Params: make([]string, len(tr.Params))}
	for i, p := range tr.Params {
		d.Params[i] = p.Name
	}
	for _, c := range tr.Columns {
		ct := backend.ColumnType{Name: c.Name, Type: c.Type.Name}
		if c.Type.Typmod >= 0 {
			tm := c.Type.Typmod
			ct.Typmod = &tm
		}
		d.Columns = append(d.Columns, ct)
	}
	return d
}

// pgGateError is PostgreSQL's gate's refusal as a *backend.Error: a text
// PostgreSQL cannot parse is ClassSyntax, one that is not exactly one
// statement ClassInvalid, anything else the gate refuses ClassPermission
// with the gate's message naming the construct.
func pgGateError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, sqlcheck.ErrUnparseable):
		return &backend.Error{Class: backend.ClassSyntax, SQLState: "42601", Message: msg}
	case strings.HasPrefix(msg, "empty statement"), strings.Contains(msg, "statements; exactly one is allowed"):
		return &backend.Error{Class: backend.ClassInvalid, SQLState: "42601", Message: msg}
	}
	return &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: msg}
}

// translateOn translates text on the schema of connection c, its
// parameters typed by types; tables, if not nil, are the columns read by
// translations before it on the same schema (committedTables). A failure to read the schema (an interrupt,
// an I/O error, SQLite out of memory) is the node's, a plain error, never
// the statement's verdict: the catalog answers "no such table" then, which
// must not become a tx result on this node alone.
func translateOn(c *sqlite3.Conn, text string, types []pgdialect.Type, tables *pgruntime.Tables) (*pgdialect.Translation, error) {
	cat := pgruntime.NewTranslationCatalog(c, tables)
	tr, err := pgdialect.TranslateTyped(text, cat, types)
	if cerr := pgruntime.CatalogError(cat); cerr != nil {
		return nil, fmt.Errorf("postgres dialect: translate: %w", cerr)
	}
	if err != nil {
		return nil, translationError(err)
	}
	return tr, nil
}

// translationError is a translation's refusal (*pgdialect.Error) as a
// *backend.Error of the class of its SQLSTATE (0A000: ClassNotImplemented).
func translationError(err error) error {
	var te *pgdialect.Error
	if errors.As(err, &te) {
		return &backend.Error{Class: backend.ClassOfSQLState(te.Code), SQLState: te.Code, Message: te.Message}
	}
	return fmt.Errorf("postgres dialect: translate: %w", err)
}

// runtimeError gives a failure of a translated statement raised by a
// runtime function the SQLSTATE and message pgruntime reports (its one
// seam: pgruntime.SQLState), and their class.
func runtimeError(err error) error {
	code, ok := pgruntime.SQLState(err)
	if !ok {
		return restrictError(err)
	}
	msg := pgruntime.Message(err)
	e := backend.AsError(err)
	if e == nil {
		return &backend.Error{Class: backend.ClassOfSQLState(code), SQLState: code, Message: msg}
	}
	e.Class, e.SQLState, e.Message = backend.ClassOfSQLState(code), code, msg
	return err
}

// restrictError gives SQLite's failure of an ON DELETE/UPDATE RESTRICT
// action PostgreSQL's SQLSTATE, 23503: SQLite raises it from the action's
// trigger program (a constraint error, not CONSTRAINT_FOREIGNKEY), with
// the foreign keys' own message. (The sqlite dialect keeps 23000: its
// tx results are part of its networks' history.)
func restrictError(err error) error {
	if e := backend.AsError(err); e != nil && e.SQLState == "23000" && strings.Contains(e.Message, "FOREIGN KEY constraint failed") {
		e.SQLState = "23503"
	}
	return err
}

// catalogNames are PostgreSQL's catalog schemas and the catalog tables and
// views clients read, outside string literals (quotedText).
var (
	catalogNames = regexp.MustCompile(`(?i)\b(pg_catalog|information_schema|pg_(class|attribute|type|namespace|index|indexes|constraint|attrdef|description|database|roles|user|proc|tables|views|settings|sequences?|am|enum|inherits|extension|collation|trigger|depend|matviews|stat_[a-z_]+|statio_[a-z_]+))\b`)
	quotedText   = regexp.MustCompile(`'(?:[^']|'')*'`)
)

// catalogRead refuses, on the read path, a statement that reads
// PostgreSQL's catalogs but is no catalog query the emulation answers
// (pgcatalog.Wants was false: it also reads a user table, or a relation or
// function the emulation does not have, or writes).
func catalogRead(sql string) error {
	m := catalogName(sql)
	if m == "" {
		return nil
	}
	return &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000", Message: fmt.Sprintf(
		"%s: not a catalog query the emulated PostgreSQL catalog answers on a postgres-dialect network on SQLite storage: "+
			"a catalog query is one SELECT that reads nothing but the emulated pg_catalog and information_schema relations and functions (no user table)", m)}
}

// catalogInBlock refuses a statement of a block (or a transaction's
// writes) that reads PostgreSQL's catalogs: their values are this node's,
// never consensus, so they are answered on the read path only. It is the
// gate's refusal (ClassPermission), as on PostgreSQL storage, which the
// wire gateway answers on the read path inside a transaction.
func catalogInBlock(sql string) error {
	m := blockCatalogNames.of(sql)
	if m == "" {
		return nil
	}
	return &backend.Error{Class: backend.ClassPermission, SQLState: "42501", Message: fmt.Sprintf(
		"%s: PostgreSQL's catalogs are answered on the read path only (relchain query, the wire protocol's reads), not inside a block or a transaction's writes", m)}
}

// blockCatalogNames memoizes blockCatalogName by text: the regular
// expressions cost more than the rest of a cached statement's judgement
// (they ran at every execution of every statement).
var blockCatalogNames textMemo

// blockCatalogName is what catalogInBlock refuses sql for: the first
// catalog relation or schema it names, "a catalog function" for a catalog
// query naming none (SELECT current_schema(), version()), "" nothing. A
// function of the text alone.
func blockCatalogName(sql string) string {
	m := catalogName(sql)
	if m == "" && isCatalogQuery(sql) {
		m = "a catalog function"
	}
	return m
}

// textMemo memoizes blockCatalogName, bounded: past maxCachedTranslations
// texts it starts again empty. Safe for concurrent use (the gate's
// Analyze runs beside the block).
type textMemo struct {
	mu sync.Mutex
	m  map[string]string
}

// of is blockCatalogName(sql), computed once per text.
func (c *textMemo) of(sql string) string {
	c.mu.Lock()
	v, ok := c.m[sql]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = blockCatalogName(sql)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedTranslations {
		c.m = make(map[string]string)
	}
	c.m[sql] = v
	c.mu.Unlock()
	return v
}

// catalogName is the first catalog relation or schema sql names outside
// string literals ("" none). A text without "pg_" or "information_"
// names none (mayNameCatalog): the regular expressions, most of the cost
// of a short statement's check, run only on a text that has one.
func catalogName(sql string) string {
	if !mayNameCatalog(sql) {
		return ""
	}
	return catalogNames.FindString(quotedText.ReplaceAllString(sql, "''"))
}

// mayNameCatalog reports whether sql holds "pg_" or "information_" in any
// ASCII case: every match of catalogNames does, within sql (quotedText's
// replacement only takes text out, and adds quotes, which no match holds),
// and (?i) folds none of their letters to a non-ASCII one (it folds only
// k and s so, which they lack).
func mayNameCatalog(sql string) bool {
	return sqlcheck.ContainsFold(sql, "pg_") || sqlcheck.ContainsFold(sql, "information_")
}

// pgRuntime is the set of the postgres dialect's runtime functions, learnt
// once: the functions a connection lists after pgruntime.Register and not
// before.
var pgRuntime struct {
	once  sync.Once
	funcs map[string]bool
	err   error
}

// runtimeFunctions returns the names (lower case) of the functions
// pgruntime.Register adds to a connection, which SQLite's gate allows on
// a postgres-dialect backend.
func runtimeFunctions() (map[string]bool, error) {
	pgRuntime.once.Do(func() {
		c, err := sqlite3.OpenFlags(":memory:", sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_MEMORY|sqlite3.OPEN_NOMUTEX)
		if err != nil {
			pgRuntime.err = err
			return
		}
		defer c.Close()
		before, err := functionNames(c)
		if err == nil {
			err = pgruntime.Register(c)
		}
		var after map[string]bool
		if err == nil {
			after, err = functionNames(c)
		}
		if err != nil {
			pgRuntime.err = fmt.Errorf("list the postgres dialect's runtime functions: %w", err)
			return
		}
		pgRuntime.funcs = make(map[string]bool)
		for f := range after {
			if !before[f] {
				pgRuntime.funcs[f] = true
			}
		}
	})
	return pgRuntime.funcs, pgRuntime.err
}

// functionNames lists the functions c knows, in lower case.
func functionNames(c *sqlite3.Conn) (map[string]bool, error) {
	st, _, err := c.Prepare("SELECT DISTINCT lower(name) FROM pragma_function_list")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	out := make(map[string]bool)
	for st.Step() {
		out[st.ColumnText(0)] = true
	}
	return out, st.Err()
}

var _ backend.TranslationJudge = (*block)(nil)

// JudgeTranslation implements backend.TranslationJudge: what execPostgres
// decides before it runs anything (PostgreSQL's gate, the translation
// against the block's schema, the arguments' conversion), and nothing
// else.
func (k *block) JudgeTranslation(ctx context.Context, sql string, args []any) error {
	if !k.b.opts.pg {
		return errNotPostgres
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, ok := parseSetConstraints(sql); ok {
		return nil
	}
	_, tr, err := k.translate(sql, args)
	if err != nil {
		return err
	}
	_, err = pgParams(tr.Params, args)
	return err
}
