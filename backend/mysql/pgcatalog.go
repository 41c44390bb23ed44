package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/pgcatalog"
)

// PostgreSQL's catalog on a MySQL network (issue 35, item 4): the
// gateway and the node's listener speak PostgreSQL's protocol, so psql's
// \d, JDBC's DatabaseMetaData and the ORMs ask pg_catalog and
// information_schema as PostgreSQL shapes them. Query and Describe hand a
// text that pgcatalog.Wants to the node's pgcatalog.Engine, before the
// gate: MySQL's parser would refuse PostgreSQL's syntax, and MySQL's own
// information_schema (refused on the read path anyway, see
// mysqlgate.ReadRefusal) must never answer a PostgreSQL client's catalog
// query. The Engine answers from the Schema schemaOf reads from MySQL's
// information_schema; it holds no user data.
//
// The Engine is cached per Backend (catalogCache) with the schema
// generation it was read at (Backend.schemaGen, which every DDL statement
// of this node's blocks moves after MySQL committed it): a catalog query
// is answered from the cache without reading information_schema until a
// block changes the schema, or, after catalogMaxAge, at a new committed
// height (a DDL statement run outside relchain shows then). schemaOf then
// reads the schema again and the Engine is rebuilt only if the Schema
// differs (comparing the Schema itself is exact). Reading it at every new
// height, as this cache once did, cost six information_schema queries per
// block on a busy node: on a loaded machine they took seconds and made
// catalog queries (an ORM's reflection, a verified read's key lookup)
// time out. Between a block's DDL and its Commit a catalog query may see
// the schema before or after the DDL (information_schema is not
// transactional); the generation is read before the schema and moved
// before the block's height is committed, so a cached schema is never
// older than the height a query reads.

// catalogUser is the role the emulated catalog names (current_user,
// relation owners): a node's backend does not know the PostgreSQL role a
// gateway session authenticated.
const catalogUser = "relchain"

// catalogCache is one Backend's Engine and the Schema and height it was
// built at. sem, a one-slot semaphore a caller waits for only as long as
// its context allows, serialises catalog queries (the Engine runs one at
// a time anyway) so that a rebuild never closes an Engine in use.
type catalogCache struct {
	sem    chan struct{}
	height int64 // -1: never filled
	gen    uint64
	readAt time.Time // when schema was read
	reads  int       // schema reads, for tests
	schema *pgcatalog.Schema
	engine *pgcatalog.Engine
}

// catalogMaxAge is how long the cached schema is trusted at new heights
// while no block of this node changed it: the delay before a schema
// change made outside relchain shows in the emulated catalog.
const catalogMaxAge = 5 * time.Second

// catalog returns b's catalogCache, creating it on first use; Close
// releases its Engine (closeDBs).
func (b *Backend) catalog() *catalogCache {
	b.pgCatalogOnce.Do(func() { b.pgCatalog = &catalogCache{sem: make(chan struct{}, 1), height: -1} })
	return b.pgCatalog
}

// close releases the cached Engine.
func (c *catalogCache) close() {
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	if c.engine != nil {
		c.engine.Close()
		c.engine, c.schema, c.height = nil, nil, -1
	}
}

// withCatalog runs fn on b's Engine, current at the committed height it
// returns (read as Query's snapshot reads it, on the readers' pool).
func (b *Backend) withCatalog(ctx context.Context, fn func(*pgcatalog.Engine) error) (int64, error) {
	conn, height, err := b.snapshot(ctx, b.readers)
	if err != nil {
		return 0, fmt.Errorf("read the committed height: %w", err)
	}
	b.endSnapshot(conn)
	c := b.catalog()
	select {
	case c.sem <- struct{}{}:
		defer func() { <-c.sem }()
	case <-ctx.Done():
		return 0, fmt.Errorf("wait for the catalog: %w", ctx.Err())
	}
	if err := c.refresh(ctx, b, height); err != nil {
		return 0, err
	}
	return height, fn(c.engine)
}

// refresh makes c's Engine that of the schema at height: when a block
// changed the schema since the cache was filled (Backend.schemaGen), or at
// a new height once the cache is catalogMaxAge old, the schema is read
// again (on the internal pool: the readers' account, with SELECT only, is
// shown no constraints and no view definitions by information_schema) and
// the Engine rebuilt if it changed. The caller holds c.sem.
func (c *catalogCache) refresh(ctx context.Context, b *Backend, height int64) error {
	gen := b.schemaGen.Load()
	if c.engine != nil && c.gen == gen && (c.height == height || time.Since(c.readAt) < catalogMaxAge) {
		return nil
	}
	readAt := time.Now()
	conn, err := b.internal.Conn(ctx)
	if err != nil {
		return fmt.Errorf("read the schema: %w", err)
	}
	s, err := b.schemaOf(ctx, conn)
	conn.Close()
	if err != nil {
		return err
	}
	c.reads++
	if c.engine == nil || !reflect.DeepEqual(s, c.schema) {
		e, err := pgcatalog.New(s)
		if err != nil {
			return fmt.Errorf("build the catalog: %w", err)
		}
		if c.engine != nil {
			c.engine.Close()
		}
		c.engine, c.schema = e, s
	}
	c.height, c.gen, c.readAt = height, gen, readAt
	return nil
}

// catalogText returns the text the Engine answers for sql, if sql is a
// PostgreSQL catalog query (pgcatalog.Wants). A PostgreSQL client's $n
// placeholders reach the node as MySQL's ? (the gateway rewrites them, and
// orders the arguments as the ? take them), which PostgreSQL's parser
// refuses: the i-th ? outside literals and comments is read as $i again.
func catalogText(sql string) (string, bool) {
	if pgcatalog.Wants(sql) {
		return sql, true
	}
	if !strings.Contains(sql, "?") {
		return "", false
	}
	if pg := dollarPlaceholders(sql); pgcatalog.Wants(pg) {
		return pg, true
	}
	return "", false
}

// dollarPlaceholders numbers the ? of sql outside string literals,
// quoted identifiers and comments as $1, $2 …
func dollarPlaceholders(sql string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + quotedLen(sql[i:])
			b.WriteString(sql[i:j])
			i = j
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j
		case strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				j = len(sql) - i - 4
			}
			b.WriteString(sql[i : i+j+4])
			i += j + 4
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// catalogQuery answers a catalog query (pgcatalog.Wants) from the Engine,
// under the read path's row, byte and time limits.
func (b *Backend) catalogQuery(ctx context.Context, sql string, args []any) (*backend.Rows, int64, error) {
	if b.opts.queryTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.opts.queryTimeout)
		defer cancel()
	}
	var res *pgcatalog.Result
	height, err := b.withCatalog(ctx, func(e *pgcatalog.Engine) error {
		var err error
		res, err = e.Query(ctx, sql, args)
		return err
	})
	if err != nil {
		return nil, 0, catalogError("query", err)
	}
	rows, err := catalogRows(res, limits{rows: b.opts.maxRows, bytes: b.opts.maxBytes})
	if err != nil {
		return nil, 0, err
	}
	return rows, height, nil
}

// catalogDescribe describes a catalog query (pgcatalog.Wants).
func (b *Backend) catalogDescribe(ctx context.Context, sql string) (*backend.Description, error) {
	var params []string
	var cols []pgcatalog.ResultColumn
	height, err := b.withCatalog(ctx, func(e *pgcatalog.Engine) error {
		var err error
		params, cols, err = e.Describe(sql)
		return err
	})
	if err != nil {
		return nil, catalogError("describe", err)
	}
	d := &backend.Description{Height: height, Params: params}
	if d.Params == nil {
		d.Params = []string{}
	}
	for _, c := range cols {
		ct := backend.ColumnType{Name: c.Name, Type: c.Type}
		if c.Typmod >= 0 {
			mod := c.Typmod
			ct.Typmod = &mod
		}
		d.Columns = append(d.Columns, ct)
	}
	return d, nil
}

// catalogError is the Engine's PostgreSQL error as a *backend.Error, or
// err wrapped with what was being done.
func catalogError(what string, err error) error {
	var pe *pgcatalog.Error
	if errors.As(err, &pe) {
		return &backend.Error{Class: backend.ClassOfSQLState(pe.Code), SQLState: pe.Code, Message: pe.Message}
	}
	return fmt.Errorf("mysql: catalog %s: %w", what, err)
}

// catalogRows is res as backend.Rows, within lim (counted as collect
// counts: a value's bytes, 8 for a number).
func catalogRows(res *pgcatalog.Result, lim limits) (*backend.Rows, error) {
	out := &backend.Rows{}
	for _, c := range res.Columns {
		out.Columns = append(out.Columns, c.Name)
		out.Types = append(out.Types, c.Type)
		out.Typmods = append(out.Typmods, c.Typmod)
	}
	if lim.rows > 0 && len(res.Rows) > lim.rows {
		return nil, lim.exceeded("rows", int64(lim.rows))
	}
	var size int64
	for _, row := range res.Rows {
		for _, v := range row {
			switch x := v.(type) {
			case string:
				size += int64(len(x))
			case []byte:
				size += int64(len(x))
			default:
				size += 8
			}
		}
		if lim.bytes > 0 && size > lim.bytes {
			return nil, lim.exceeded("bytes", lim.bytes)
		}
	}
	out.Rows = res.Rows
	return out, nil
}

// The information_schema reads of schemaOf, each in a fixed order, none
// of relchain's own relchain_* tables (the gate refuses the prefix in
// client statements: they hold relchain's state, capture records and DDL
// recovery records, see schemaSQL). Tables are in byte order of their
// names: MySQL keeps no creation order (CREATE_TIME has a resolution of a
// second and changes when ALTER TABLE rebuilds the table), and the
// catalog is node-local, so an order each node reproduces is enough.
const (
	schemaTablesSQL = `SELECT TABLE_NAME, TABLE_TYPE, COALESCE(TABLE_COMMENT, '')
		FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
			AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED', 'VIEW')
		ORDER BY BINARY TABLE_NAME`
	schemaColumnsSQL = `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE, COLUMN_TYPE,
			COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), COALESCE(NUMERIC_PRECISION, 0), COALESCE(NUMERIC_SCALE, 0),
			COALESCE(DATETIME_PRECISION, 0), EXTRA, COALESCE(COLUMN_COMMENT, '')
		FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME, ORDINAL_POSITION`
	schemaIndexesSQL = `SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME
		FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME, INDEX_NAME = 'PRIMARY' DESC, BINARY INDEX_NAME, SEQ_IN_INDEX`
	schemaForeignKeysSQL = `SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME,
			k.REFERENCED_COLUMN_NAME, r.UPDATE_RULE, r.DELETE_RULE
		FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.REFERENTIAL_CONSTRAINTS r
			ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.TABLE_NAME = k.TABLE_NAME
				AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
		WHERE k.TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_SCHEMA = DATABASE()
			AND k.TABLE_NAME NOT LIKE 'relchain\_%' AND k.REFERENCED_TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY k.TABLE_NAME, BINARY k.CONSTRAINT_NAME, k.ORDINAL_POSITION`
	// MariaDB's CHECK_CONSTRAINTS names the table (and its names are per
	// table); MySQL 8's does not (its names are per database).
	schemaChecksMariaDBSQL = `SELECT TABLE_NAME, CONSTRAINT_NAME, CHECK_CLAUSE
		FROM information_schema.CHECK_CONSTRAINTS
		WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME, BINARY CONSTRAINT_NAME`
	schemaChecksMySQLSQL = `SELECT t.TABLE_NAME, c.CONSTRAINT_NAME, c.CHECK_CLAUSE
		FROM information_schema.TABLE_CONSTRAINTS t JOIN information_schema.CHECK_CONSTRAINTS c
			ON c.CONSTRAINT_SCHEMA = t.CONSTRAINT_SCHEMA AND c.CONSTRAINT_NAME = t.CONSTRAINT_NAME
		WHERE t.TABLE_SCHEMA = DATABASE() AND t.CONSTRAINT_TYPE = 'CHECK' AND t.TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY t.TABLE_NAME, BINARY c.CONSTRAINT_NAME`
	schemaViewsSQL = `SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME`
)

// schemaOf reads the node's database (DATABASE()) from information_schema
// as the pgcatalog.Schema PostgreSQL clients are shown: its tables and
// views with their columns (pgColumn), keys, indexes, foreign keys, CHECK
// constraints and comments, and a sequence for every AUTO_INCREMENT
// column, shown as a serial column's (default nextval('t_id_seq'::regclass)).
func (b *Backend) schemaOf(ctx context.Context, conn *sql.Conn) (*pgcatalog.Schema, error) {
	r := &schemaReader{b: b, q: conn, tables: map[string]*pgcatalog.Table{}, views: map[string]*pgcatalog.View{},
		names: map[string]bool{}}
	steps := []struct {
		what string
		fn   func(context.Context) error
	}{
		{"tables", r.readTables}, {"columns", r.readColumns}, {"indexes", r.readIndexes},
		{"foreign keys", r.readForeignKeys}, {"checks", r.readChecks}, {"views", r.readViews},
	}
	for _, s := range steps {
		if err := s.fn(ctx); err != nil {
			return nil, fmt.Errorf("read the schema's %s: %w", s.what, err)
		}
	}
	return &r.s, nil
}

// schemaReader builds a Schema from information_schema's rows.
type schemaReader struct {
	b      *Backend
	q      querier
	s      pgcatalog.Schema
	tables map[string]*pgcatalog.Table
	views  map[string]*pgcatalog.View
	// names are the relation names taken (tables, views, sequences,
	// indexes): PostgreSQL's share a namespace, MySQL's indexes are per
	// table.
	names map[string]bool
}

// each runs query and calls fn after scanning every row into dest.
func (r *schemaReader) each(ctx context.Context, query string, dest []any, fn func() error) error {
	return scanEach(ctx, r.q, query, dest, fn)
}

// scanEach runs query on q and calls fn after scanning every row into
// dest.
func scanEach(ctx context.Context, q querier, query string, dest []any, fn func() error) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := fn(); err != nil {
			return err
		}
	}
	return rows.Err()
}

// readTables lists the tables and views, in schemaTablesSQL's order.
func (r *schemaReader) readTables(ctx context.Context) error {
	r.s.Database, r.s.User = r.b.dbName, catalogUser
	var name, kind, comment string
	err := r.each(ctx, schemaTablesSQL, []any{&name, &kind, &comment}, func() error {
		r.names[name] = true
		if kind == "VIEW" {
			r.s.Views = append(r.s.Views, pgcatalog.View{Name: name})
			return nil
		}
		r.s.Tables = append(r.s.Tables, pgcatalog.Table{Name: name, Comment: comment})
		return nil
	})
	if err != nil {
		return err
	}
	// Pointers once the slices are complete.
	for i := range r.s.Tables {
		r.tables[r.s.Tables[i].Name] = &r.s.Tables[i]
	}
	for i := range r.s.Views {
		r.views[r.s.Views[i].Name] = &r.s.Views[i]
	}
	return nil
}

// mysqlColumn is one row of schemaColumnsSQL.
type mysqlColumn struct {
	table, name          string
	dflt                 sql.NullString
	nullable             string
	dataType, columnType string
	charLen, prec, scale int64
	timePrec             int64
	extra, comment       string
}

// readColumns adds every column to its table or view, and a sequence for
// each AUTO_INCREMENT column.
func (r *schemaReader) readColumns(ctx context.Context) error {
	var m mysqlColumn
	dest := []any{&m.table, &m.name, &m.dflt, &m.nullable, &m.dataType, &m.columnType,
		&m.charLen, &m.prec, &m.scale, &m.timePrec, &m.extra, &m.comment}
	return r.each(ctx, schemaColumnsSQL, dest, func() error {
		c := pgColumn(m, r.b.flavor.mariadb, r.b.opts.pg)
		if v := r.views[m.table]; v != nil {
			// A view's columns are never NOT NULL and have no default
			// in PostgreSQL's catalog; the comment MySQL shows is the
			// underlying table column's, not the view's.
			v.Columns = append(v.Columns, pgcatalog.Column{Name: c.Name, Type: c.Type, Typmod: c.Typmod})
			return nil
		}
		t := r.tables[m.table]
		if t == nil {
			return nil // a table created since readTables
		}
		if strings.Contains(strings.ToLower(m.extra), "auto_increment") {
			seq := r.sequence(t.Name, c)
			c.Default = "nextval(" + pgQuoteLiteral(pgIdent(seq)) + "::regclass)"
			c.NotNull = true
		}
		t.Columns = append(t.Columns, c)
		return nil
	})
}

// sequence adds the sequence of AUTO_INCREMENT column c of table and
// returns its name, PostgreSQL's for a serial column (<table>_<column>_seq).
func (r *schemaReader) sequence(table string, c pgcatalog.Column) string {
	seq := pgcatalog.Sequence{Name: r.unique(table + "_" + c.Name + "_seq"), Type: c.Type,
		Start: 1, Increment: 1, Min: 1, OwnedByTable: table, OwnedByColumn: c.Name}
	switch c.Type {
	case backend.TypeInt2:
		seq.Max = 1<<15 - 1
	case backend.TypeInt4:
		seq.Max = 1<<31 - 1
	default: // int8, and numeric (BIGINT UNSIGNED): PostgreSQL's sequences are at most int8
		seq.Type, seq.Max = backend.TypeInt8, 1<<63-1
	}
	r.s.Sequences = append(r.s.Sequences, seq)
	return seq.Name
}

// unique takes name as a relation name, or the first of name1, name2 …
// not taken yet.
func (r *schemaReader) unique(name string) string {
	n := name
	for i := 1; r.names[n]; i++ {
		n = name + strconv.Itoa(i)
	}
	r.names[n] = true
	return n
}

// mysqlIndex is one index of schemaIndexesSQL, its columns gathered.
type mysqlIndex struct {
	table, name string
	unique      bool
	columns     []string
	expression  bool // a key part is an expression (MySQL 8): not listed
}

// readIndexes adds the primary keys, the UNIQUE constraints (every unique
// index of MySQL is one) and the other indexes.
func (r *schemaReader) readIndexes(ctx context.Context) error {
	var cur *mysqlIndex
	var table, name string
	var nonUnique int64
	var column sql.NullString
	err := r.each(ctx, schemaIndexesSQL, []any{&table, &name, &nonUnique, &column}, func() error {
		if cur == nil || cur.table != table || cur.name != name {
			r.addIndex(cur)
			cur = &mysqlIndex{table: table, name: name, unique: nonUnique == 0}
		}
		if !column.Valid {
			cur.expression = true
		}
		cur.columns = append(cur.columns, column.String)
		return nil
	})
	if err != nil {
		return err
	}
	r.addIndex(cur)
	return nil
}

// addIndex adds ix to its table. PRIMARY is named as PostgreSQL names a
// primary key (<table>_pkey); another index keeps MySQL's name unless a
// relation of PostgreSQL's namespace has it (MySQL's index names are per
// table): then it is <table>_<name>.
func (r *schemaReader) addIndex(ix *mysqlIndex) {
	if ix == nil || ix.expression {
		return
	}
	t := r.tables[ix.table]
	if t == nil {
		return
	}
	if ix.name == "PRIMARY" {
		t.PrimaryKey, t.PrimaryKeyName = ix.columns, r.unique(t.Name+"_pkey")
		return
	}
	name := ix.name
	if r.names[name] {
		name = r.unique(t.Name + "_" + name)
	} else {
		r.names[name] = true
	}
	if ix.unique {
		t.Uniques = append(t.Uniques, pgcatalog.Unique{Name: name, Columns: ix.columns})
		return
	}
	t.Indexes = append(t.Indexes, pgcatalog.Index{Name: name, Columns: ix.columns})
}

// fkRules maps information_schema's referential actions to pg_constraint's
// confupdtype and confdeltype.
var fkRules = map[string]byte{"NO ACTION": 'a', "RESTRICT": 'r', "CASCADE": 'c', "SET NULL": 'n', "SET DEFAULT": 'd'}

// readForeignKeys adds the foreign keys that reference tables of the
// node's database.
func (r *schemaReader) readForeignKeys(ctx context.Context) error {
	var table, name, column, refTable, refColumn, onUpdate, onDelete string
	var curTable, curName string
	dest := []any{&table, &name, &column, &refTable, &refColumn, &onUpdate, &onDelete}
	return r.each(ctx, schemaForeignKeysSQL, dest, func() error {
		t := r.tables[table]
		if t == nil {
			return nil
		}
		if table != curTable || name != curName {
			t.ForeignKeys = append(t.ForeignKeys, pgcatalog.ForeignKey{Name: name, RefTable: refTable,
				OnUpdate: fkRule(onUpdate), OnDelete: fkRule(onDelete)})
			curTable, curName = table, name
		}
		fk := &t.ForeignKeys[len(t.ForeignKeys)-1]
		fk.Columns = append(fk.Columns, column)
		fk.RefColumns = append(fk.RefColumns, refColumn)
		return nil
	})
}

// fkRule is rule's pg_constraint code; MySQL's default, RESTRICT, for an
// unknown one.
func fkRule(rule string) byte {
	if c, ok := fkRules[strings.ToUpper(rule)]; ok {
		return c
	}
	return 'r'
}

// readChecks adds the CHECK constraints, their clauses in PostgreSQL's
// spelling (pgExpr). MariaDB's JSON columns carry a CHECK (json_valid(c))
// named after the column: listed, as it is enforced.
func (r *schemaReader) readChecks(ctx context.Context) error {
	query := schemaChecksMySQLSQL
	if r.b.flavor.mariadb {
		query = schemaChecksMariaDBSQL
	}
	var table, name, clause string
	return r.each(ctx, query, []any{&table, &name, &clause}, func() error {
		if t := r.tables[table]; t != nil {
			t.Checks = append(t.Checks, pgcatalog.Check{Name: name, Expr: pgExpr(clause, r.b.dbName)})
		}
		return nil
	})
}

// readViews adds the views' definitions, in PostgreSQL's spelling of
// identifiers (pgExpr, without the database's qualifier MySQL adds).
func (r *schemaReader) readViews(ctx context.Context) error {
	var name, def string
	return r.each(ctx, schemaViewsSQL, []any{&name, &def}, func() error {
		if v := r.views[name]; v != nil {
			v.Definition = pgExpr(def, r.b.dbName)
		}
		return nil
	})
}

// pgColumn is column m in PostgreSQL's terms: its type (pgType), NOT
// NULL, default (pgDefault) and comment; pgDialect: the backend speaks
// PostgreSQL's SQL, whose tables keep each column's declared type in its
// comment (shown as the type, not as a comment).
func pgColumn(m mysqlColumn, mariadb, pgDialect bool) pgcatalog.Column {
	typ, mod := pgType(m)
	comment := m.comment
	if t, ok := pgdialect.CommentType(m.comment); ok && pgDialect {
		// A table of the postgres dialect: its column's declared
		// PostgreSQL type (the comment is the dialect's, not the user's).
		typ, mod, comment = t.Name, t.Typmod, ""
	}
	return pgcatalog.Column{Name: m.name, Type: typ, Typmod: mod, NotNull: m.nullable == "NO",
		Default: pgDefault(m, typ, mariadb), Comment: comment}
}

// pgType maps a MySQL column type to the PostgreSQL type, and its typmod,
// that Query reports for the column's values (typeNames): so TINYINT(1),
// BOOLEAN, is int2 (its values are 0 and 1, not booleans), an unsigned
// type the next wider one, MariaDB's JSON (LONGTEXT) text, ENUM and SET
// text; varchar(n) and char(n) have typmod n+4, decimal(p,s)
// ((p<<16)|s)+4, time(p) and datetime(p) p (none when p is 0); a type
// with no PostgreSQL counterpart (GEOMETRY, VECTOR, INET6, UUID …) is
// text.
func pgType(m mysqlColumn) (string, int32) {
	unsigned := strings.Contains(strings.ToLower(m.columnType), "unsigned")
	prec := int32(-1)
	if m.timePrec > 0 {
		prec = int32(m.timePrec)
	}
	switch strings.ToLower(m.dataType) {
	case "tinyint", "year":
		return backend.TypeInt2, -1
	case "smallint":
		return pick(unsigned, backend.TypeInt4, backend.TypeInt2), -1
	case "mediumint":
		return backend.TypeInt4, -1
	case "int", "integer":
		return pick(unsigned, backend.TypeInt8, backend.TypeInt4), -1
	case "bigint":
		return pick(unsigned, backend.TypeNumeric, backend.TypeInt8), -1
	case "decimal", "numeric":
		return backend.TypeNumeric, int32(m.prec<<16|m.scale) + 4
	case "float":
		return backend.TypeFloat4, -1
	case "double", "real":
		return backend.TypeFloat8, -1
	case "char":
		return backend.TypeBpchar, int32(m.charLen) + 4
	case "varchar":
		return backend.TypeVarchar, int32(m.charLen) + 4
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "bit":
		return backend.TypeBytea, -1
	case "date":
		return backend.TypeDate, -1
	case "time":
		return backend.TypeTime, prec
	case "datetime", "timestamp":
		return backend.TypeTimestamp, prec
	case "json":
		return backend.TypeJSON, -1
	}
	return backend.TypeText, -1
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// pgTypeNames are PostgreSQL's names of types in a cast, as pg_get_expr
// writes them.
var pgTypeNames = map[string]string{
	backend.TypeInt2: "smallint", backend.TypeInt4: "integer", backend.TypeInt8: "bigint",
	backend.TypeFloat4: "real", backend.TypeFloat8: "double precision",
	backend.TypeVarchar: "character varying", backend.TypeTime: "time without time zone",
	backend.TypeTimestamp: "timestamp without time zone",
}

func pgTypeName(typ string) string {
	if n, ok := pgTypeNames[typ]; ok {
		return n
	}
	return typ
}

var (
	numberLit      = regexp.MustCompile(`^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$`)
	nowDefault     = regexp.MustCompile(`^(?i)(current_timestamp|now|localtimestamp|localtime)(\(([0-9]*)\))?$`)
	curDateDefault = regexp.MustCompile(`^(?i)(curdate|current_date)(\(\))?$`)
	curTimeDefault = regexp.MustCompile(`^(?i)(curtime|current_time)(\(([0-9]*)\))?$`)
)

// pgDefault is column m's default (of PostgreSQL type typ) as
// PostgreSQL's pg_get_expr shows one: a string or date literal with its
// cast ('x'::character varying, '2020-01-01'::date), a number as it is
// (a negative one quoted and cast: '-1'::integer), CURRENT_TIMESTAMP,
// CURRENT_DATE and CURRENT_TIME for MySQL's functions of the clock,
// another expression with PostgreSQL's quoting of identifiers; "" for
// none or DEFAULT NULL. MariaDB quotes a literal default in
// information_schema and shows an expression as it is; MySQL 8 shows a
// literal unquoted and marks an expression DEFAULT_GENERATED.
func pgDefault(m mysqlColumn, typ string, mariadb bool) string {
	if !m.dflt.Valid {
		return ""
	}
	raw := m.dflt.String
	if mariadb {
		switch {
		case raw == "NULL":
			return ""
		case strings.HasPrefix(raw, "'"):
			return raw + "::" + pgTypeName(typ)
		case numberLit.MatchString(raw):
			return pgNumber(raw, typ)
		}
		return pgExprDefault(raw)
	}
	if strings.Contains(strings.ToUpper(m.extra), "DEFAULT_GENERATED") {
		return pgExprDefault(raw)
	}
	if numberLit.MatchString(raw) && typ != backend.TypeText && typ != backend.TypeVarchar && typ != backend.TypeBpchar {
		return pgNumber(raw, typ)
	}
	return pgQuoteLiteral(raw) + "::" + pgTypeName(typ)
}

// pgNumber is a numeric default: a negative number, or an integer beyond
// int4 in an integer column, is a quoted literal cast to the column's
// type, as PostgreSQL shows it.
func pgNumber(raw, typ string) string {
	if strings.HasPrefix(raw, "-") {
		return pgQuoteLiteral(raw) + "::" + pgTypeName(typ)
	}
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil && n > 1<<31-1 {
		return pgQuoteLiteral(raw) + "::" + pgTypeName(typ)
	}
	return raw
}

// pgExprDefault is an expression default: MySQL's clock functions as
// PostgreSQL's SQL-standard ones, anything else in PostgreSQL's quoting.
func pgExprDefault(raw string) string {
	if m := nowDefault.FindStringSubmatch(raw); m != nil {
		if m[3] != "" && m[3] != "0" {
			return "CURRENT_TIMESTAMP(" + m[3] + ")"
		}
		return "CURRENT_TIMESTAMP"
	}
	if curDateDefault.MatchString(raw) {
		return "CURRENT_DATE"
	}
	if m := curTimeDefault.FindStringSubmatch(raw); m != nil {
		if m[3] != "" && m[3] != "0" {
			return "CURRENT_TIME(" + m[3] + ")"
		}
		return "CURRENT_TIME"
	}
	return pgExpr(raw, "")
}

// pgExpr respells MySQL's expression or query text with PostgreSQL's
// quoting of identifiers: a `quoted` identifier becomes a bare or
// "double-quoted" one (pgIdent), and the qualifier `db`. of database db,
// which MySQL writes into view definitions, is dropped. String literals
// are copied as they are; nothing else is translated.
func pgExpr(s, db string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '`' && c != '\'' && c != '"' {
			b.WriteByte(c)
			i++
			continue
		}
		n := quotedLen(s[i:])
		if c != '`' {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		name := strings.ReplaceAll(strings.TrimSuffix(s[i+1:i+n], "`"), "``", "`")
		i += n
		if db != "" && name == db && i < len(s) && s[i] == '.' {
			i++
			continue
		}
		b.WriteString(pgIdent(name))
	}
	return b.String()
}

// quotedLen is the length of the quoted token s starts with (its quote
// doubled inside it, or escaped with a backslash in a string), or len(s)
// if it is not closed.
func quotedLen(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q != '`':
			i++
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return len(s)
}

// pgPlainIdent is an identifier PostgreSQL's quote_ident leaves bare,
// unless it is a keyword of pgKeywords.
var pgPlainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

// pgKeywords are PostgreSQL's reserved keywords and those that may be
// type or function names: quote_ident quotes them.
var pgKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization
		binary both case cast check collate collation column concurrently constraint create cross
		current_catalog current_date current_role current_schema current_time current_timestamp
		current_user default deferrable desc distinct do else end except false fetch for foreign freeze
		from full grant group having ilike in initially inner intersect into is isnull join lateral
		leading left like limit localtime localtimestamp natural not notnull null offset on only or
		order outer overlaps placing primary references returning right select session_user similar
		some symmetric system_user table tablesample then to trailing true union unique user using
		variadic verbose when where window with`) {
		pgKeywords[k] = true
	}
}

// pgIdent is name as PostgreSQL's quote_ident writes it.
func pgIdent(name string) string {
	if pgPlainIdent.MatchString(name) && !pgKeywords[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// pgQuoteLiteral is s as a PostgreSQL string literal.
func pgQuoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
