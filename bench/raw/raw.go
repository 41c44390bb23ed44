package raw

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/ncruces/go-sqlite3/driver" // database/sql driver "sqlite3", the chain's SQLite

	mysqlbackend "github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// DB is a standalone database for the baseline.
type DB struct {
	dialect string
	sqlite  *sql.DB
	pgCfg   *pgx.ConnConfig
	mysql   *sql.DB

	mu    sync.Mutex
	conns []*Conn
}

// sqlitePragmas mirror the chain's SQLite backend (backend/sqlite),
// including its block writer's 64 MiB page cache and 10,000-page WAL
// auto-checkpoint: without them the baseline pays page reads and
// checkpoints the chain does not.
var sqlitePragmas = []string{
	"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(ON)",
	"recursive_triggers(OFF)", "case_sensitive_like(OFF)", "trusted_schema(OFF)",
	"cache_size(-65536)", "wal_autocheckpoint(10000)",
}

// openers opens each database's raw baseline, by dialect name (a test
// holds that every database has one).
var openers = map[string]func(ctx context.Context, dsn string) (*DB, error){
	workload.SQLite:   func(_ context.Context, path string) (*DB, error) { return OpenSQLite(path) },
	workload.Postgres: OpenPostgres,
	workload.MySQL:    OpenMySQL,
}

// Open opens the raw database of the dialect called name at dsn (for a
// file database, its path), with OpenSQLite, OpenPostgres or OpenMySQL.
func Open(ctx context.Context, name, dsn string) (*DB, error) {
	open, err := workload.Lookup(openers, "raw's openers", name)
	if err != nil {
		return nil, fmt.Errorf("raw baseline: %w", err)
	}
	return open(ctx, dsn)
}

// OpenSQLite opens (creating it) the SQLite database file at path.
func OpenSQLite(path string) (*DB, error) {
	q := url.Values{}
	for _, p := range sqlitePragmas {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("raw sqlite %s: %w", path, err)
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("raw sqlite %s: %w", path, err)
	}
	return &DB{dialect: workload.SQLite, sqlite: db}, nil
}

// OpenPostgres connects to the PostgreSQL database dsn names, creating it
// (UTF8, collation C, as relchain's backend does) if it does not exist.
func OpenPostgres(ctx context.Context, dsn string) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("raw postgres: %w", err)
	}
	for k, v := range map[string]string{
		"TimeZone": "UTC", "DateStyle": "ISO, YMD", "IntervalStyle": "postgres", "extra_float_digits": "3",
		"synchronous_commit": "on", "default_transaction_isolation": "read committed",
	} {
		// A setting the DSN names wins (a replicated baseline asks for
		// synchronous_commit=remote_apply).
		if _, set := cfg.RuntimeParams[k]; !set {
			cfg.RuntimeParams[k] = v
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	var pgErr *pgconn.PgError
	if err != nil && errors.As(err, &pgErr) && pgErr.Code == "3D000" {
		maint := cfg.Copy()
		maint.Database = "postgres"
		mc, merr := pgx.ConnectConfig(ctx, maint)
		if merr != nil {
			return nil, fmt.Errorf("raw postgres: create database %q: %w", cfg.Database, merr)
		}
		_, merr = mc.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'", pgx.Identifier{cfg.Database}.Sanitize()))
		mc.Close(ctx)
		if merr != nil {
			return nil, fmt.Errorf("raw postgres: create database %q: %w", cfg.Database, merr)
		}
		conn, err = pgx.ConnectConfig(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("raw postgres: connect to %q: %w", cfg.Database, err)
	}
	conn.Close(ctx)
	return &DB{dialect: workload.Postgres, pgCfg: cfg}, nil
}

// OpenMySQL connects to the MySQL or MariaDB database dsn names (a
// go-sql-driver/mysql DSN, e.g. root@tcp(127.0.0.1:3306)/bench_raw),
// creating it (utf8mb4, utf8mb4_bin, as relchain's backend does) if it does
// not exist. Every connection pins the session settings of the chain's
// block writer (backend/mysql.WriterConnector); arguments are interpolated into the text by
// the driver, one round trip per statement, as the backend does.
func OpenMySQL(ctx context.Context, dsn string) (*DB, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("raw mysql: parse dsn: %w", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("raw mysql: the dsn names no database (…/dbname)")
	}
	cfg.Collation = "utf8mb4_bin"
	cfg.InterpolateParams = true
	cfg.ParseTime = false
	cfg.MultiStatements = false
	cfg.ClientFoundRows = false
	cfg.Loc = time.UTC

	maint := cfg.Clone()
	maint.DBName = ""
	mc, err := gomysql.NewConnector(maint)
	if err != nil {
		return nil, fmt.Errorf("raw mysql: %w", err)
	}
	mdb := sql.OpenDB(mc)
	var version string
	err = mdb.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version)
	if err == nil {
		_, err = mdb.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(cfg.DBName, "`", "``")+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	}
	mdb.Close()
	if err != nil {
		return nil, fmt.Errorf("raw mysql: create database %q: %w", cfg.DBName, err)
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("raw mysql: %w", err)
	}
	db := sql.OpenDB(mysqlbackend.WriterConnector(conn, strings.Contains(strings.ToLower(version), "mariadb")))
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("raw mysql: connect to %q: %w", cfg.DBName, err)
	}
	return &DB{dialect: workload.MySQL, mysql: db}, nil
}

// Dialect is "sqlite", "postgres" or "mysql".
func (d *DB) Dialect() string { return d.dialect }

// Close closes every connection.
func (d *DB) Close() error {
	d.mu.Lock()
	conns := d.conns
	d.conns = nil
	d.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	if d.sqlite != nil {
		return d.sqlite.Close()
	}
	if d.mysql != nil {
		return d.mysql.Close()
	}
	return nil
}

// Conn returns a new connection: one per baseline client.
func (d *DB) Conn(ctx context.Context) (*Conn, error) {
	c := &Conn{dialect: d.dialect}
	var err error
	switch {
	case d.sqlite != nil:
		c.sq, err = d.sqlite.Conn(ctx)
		c.stmts = make(map[string]*sql.Stmt)
	case d.mysql != nil:
		c.my, err = d.mysql.Conn(ctx)
	default:
		c.pg, err = pgx.ConnectConfig(ctx, d.pgCfg)
	}
	if err != nil {
		return nil, fmt.Errorf("raw %s: connect: %w", d.dialect, err)
	}
	d.mu.Lock()
	d.conns = append(d.conns, c)
	d.mu.Unlock()
	return c, nil
}

// Conn is one connection, used by one goroutine at a time. It caches
// prepared statements, as a tuned application (and the chain's backend)
// does.
type Conn struct {
	dialect string
	sq      *sql.Conn
	stmts   map[string]*sql.Stmt
	pg      *pgx.Conn
	my      *sql.Conn // MySQL: no prepared statements, the driver interpolates
	// rowsKind remembers returnsRows per statement text (SQLite, MySQL).
	rowsKind map[string]bool
}

func (c *Conn) close() {
	if c.sq != nil {
		for _, s := range c.stmts {
			s.Close()
		}
		c.sq.Close()
	}
	if c.pg != nil {
		c.pg.Close(context.Background())
	}
	if c.my != nil {
		c.my.Close()
	}
}

// Outcome is one wl-transaction's outcome in the baseline.
type Outcome struct {
	OK      bool
	Err     error
	Results []Result // one per statement
}

// Result is one statement's rows (normalized) and rows affected.
type Result struct {
	Rows         [][]any
	RowsAffected int64
}

// returnsRows guesses whether a statement returns rows: database/sql
// reports rows affected only through Exec.
func returnsRows(sql string) bool {
	f := strings.Fields(strings.ToUpper(sql))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "SELECT", "WITH", "VALUES", "CALL":
		return true
	}
	return strings.Contains(strings.ToUpper(sql), "RETURNING")
}

// returnsRows is the package's returnsRows, remembered per statement text
// (it upper-cases and splits the text: a cost an application that knows
// its statements does not pay).
func (c *Conn) returnsRows(sql string) bool {
	if c.rowsKind == nil {
		c.rowsKind = make(map[string]bool)
	}
	r, ok := c.rowsKind[sql]
	if !ok {
		r = returnsRows(sql)
		c.rowsKind[sql] = r
	}
	return r
}

// exec runs one statement (inside the open db-transaction).
func (c *Conn) exec(ctx context.Context, st txn.Statement) (Result, error) {
	args := make([]any, len(st.Args))
	for i, a := range st.Args {
		args[i] = a.Value()
	}
	if c.pg != nil {
		rows, err := c.pg.Query(ctx, st.SQL, args...)
		if err != nil {
			return Result{}, err
		}
		return collectPG(rows)
	}
	if c.my != nil {
		if !c.returnsRows(st.SQL) {
			r, err := c.my.ExecContext(ctx, st.SQL, args...)
			if err != nil {
				return Result{}, err
			}
			n, _ := r.RowsAffected()
			return Result{RowsAffected: n}, nil
		}
		rows, err := c.my.QueryContext(ctx, st.SQL, args...)
		if err != nil {
			return Result{}, err
		}
		out, err := collectMySQL(rows)
		return Result{Rows: out}, err
	}
	s, err := c.prepared(ctx, st.SQL)
	if err != nil {
		return Result{}, err
	}
	if !c.returnsRows(st.SQL) {
		r, err := s.ExecContext(ctx, args...)
		if err != nil {
			return Result{}, err
		}
		n, _ := r.RowsAffected()
		return Result{RowsAffected: n}, nil
	}
	rows, err := s.QueryContext(ctx, args...)
	if err != nil {
		return Result{}, err
	}
	out, err := collectSQL(rows)
	return Result{Rows: out}, err
}

func collectPG(rows pgx.Rows) (Result, error) {
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vs, err := rows.Values()
		if err != nil {
			return Result{}, err
		}
		for i, v := range vs {
			vs[i] = normalizePG(v)
		}
		out = append(out, vs)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Result{}, err
	}
	r := Result{Rows: out}
	if len(rows.FieldDescriptions()) == 0 || !strings.HasPrefix(rows.CommandTag().String(), "SELECT") {
		r.RowsAffected = rows.CommandTag().RowsAffected()
	}
	return r, nil
}

func collectSQL(rows *sql.Rows) ([][]any, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vs := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vs {
			ptrs[i] = &vs[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vs {
			vs[i] = workload.Normalize(v)
		}
		out = append(out, vs)
	}
	return out, rows.Err()
}

// collectMySQL reads rows of the text protocol (every value arrives as
// bytes) as the chain's backend does: integer columns as int64, DOUBLE and
// FLOAT as float64, everything else (DECIMAL included) as text.
func collectMySQL(rows *sql.Rows) ([][]any, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		rows.Close()
		return nil, err
	}
	out, err := collectSQL(rows)
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		for i, v := range r {
			x, ok := v.(string)
			if !ok || i >= len(cts) {
				continue
			}
			switch kind := cts[i].DatabaseTypeName(); {
			case strings.HasSuffix(kind, "INT") || kind == "YEAR":
				if n, err := strconv.ParseInt(x, 10, 64); err == nil {
					r[i] = n
				}
			case kind == "DOUBLE" || kind == "FLOAT":
				if f, err := strconv.ParseFloat(x, 64); err == nil {
					r[i] = f
				}
			}
		}
	}
	return out, nil
}

// normalizePG renders pgx's richer types (numeric, timestamps) as text, as
// the chain's query path does, then normalizes.
func normalizePG(v any) any {
	switch x := v.(type) {
	case nil, int64, int32, int16, float64, float32, string, bool, []byte:
		return workload.Normalize(x)
	}
	if vr, ok := v.(driver.Valuer); ok {
		if dv, err := vr.Value(); err == nil {
			return workload.Normalize(dv)
		}
	}
	return fmt.Sprint(v)
}

func (c *Conn) simple(ctx context.Context, sql string) error {
	if c.pg != nil {
		_, err := c.pg.Exec(ctx, sql)
		return err
	}
	if c.my != nil {
		_, err := c.my.ExecContext(ctx, sql)
		return err
	}
	s, err := c.prepared(ctx, sql)
	if err != nil {
		return err
	}
	_, err = s.ExecContext(ctx)
	return err
}

// releases says whether a wl-transaction's savepoint is released when it
// ends. On MySQL it is not, as the chain's MySQL backend does not release
// it: a SAVEPOINT replaces the one of the same name, COMMIT ends the last,
// and RELEASE SAVEPOINT would only cost a round trip.
func (c *Conn) releases() bool { return c.my == nil }

// prepared returns SQLite's compiled statement for sql, compiling it on
// first use: the chain's writer keeps its statements (SAVEPOINT, RELEASE
// and COMMIT included) compiled too.
func (c *Conn) prepared(ctx context.Context, sql string) (*sql.Stmt, error) {
	if s, ok := c.stmts[sql]; ok {
		return s, nil
	}
	s, err := c.sq.PrepareContext(ctx, sql)
	if err != nil {
		return nil, err
	}
	c.stmts[sql] = s
	return s, nil
}

// driverContext is the context the baseline hands its driver for one
// db-transaction: ctx without its cancellation, once ctx is checked. pgx and
// go-sql-driver/mysql start or wake a goroutine for every statement whose
// context can end, which a tuned application avoids and the chain's writer
// does not pay (backend/postgres watchStatement, backend/mysql watch): the
// baseline must not carry a cost the chain has shed.
func driverContext(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("raw: %w", err)
	}
	return context.WithoutCancel(ctx), nil
}

// Tx runs wls in one db-transaction and commits it. With more than one
// wl-transaction each runs in its own savepoint, so a failing one is
// rolled back alone (the chain's batch semantics); a single one that fails
// rolls the db-transaction back. Only a failure of the database itself
// (not of a wl-transaction) is returned as an error.
func (c *Conn) Tx(ctx context.Context, wls [][]txn.Statement) ([]Outcome, error) {
	ctx, err := driverContext(ctx)
	if err != nil {
		return nil, err
	}
	if c.pg != nil && len(wls) > 1 {
		return c.pgBatchTx(ctx, wls)
	}
	begin := "BEGIN"
	if c.sq != nil {
		begin = "BEGIN IMMEDIATE" // take the write lock now: no upgrade deadlock between clients
	}
	if err := c.simple(ctx, begin); err != nil {
		return nil, fmt.Errorf("raw %s: begin: %w", c.dialect, err)
	}
	out := make([]Outcome, len(wls))
	single := len(wls) == 1
	for i, wl := range wls {
		if !single {
			if err := c.simple(ctx, "SAVEPOINT wl"); err != nil {
				_ = c.simple(ctx, "ROLLBACK")
				return nil, fmt.Errorf("raw %s: savepoint: %w", c.dialect, err)
			}
		}
		var err error
		res := make([]Result, 0, len(wl))
		for j, st := range wl {
			var r Result
			if r, err = c.exec(ctx, st); err != nil {
				err = fmt.Errorf("statement %d: %w", j+1, err)
				break
			}
			res = append(res, r)
		}
		if err != nil {
			out[i] = Outcome{Err: err}
			if single {
				if rerr := c.simple(ctx, "ROLLBACK"); rerr != nil {
					return nil, fmt.Errorf("raw %s: rollback: %w", c.dialect, rerr)
				}
				return out, nil
			}
			if rerr := c.simple(ctx, "ROLLBACK TO SAVEPOINT wl"); rerr != nil {
				return nil, fmt.Errorf("raw %s: rollback to savepoint: %w", c.dialect, rerr)
			}
			// ROLLBACK TO keeps the savepoint open: release it, as the
			// chain does, or the next ones nest inside it (on SQLite the
			// sub-journal then grows past its in-memory limit and every
			// later savepoint writes it to a file). MySQL's next SAVEPOINT
			// of the same name replaces it (see releases).
			if c.releases() {
				if rerr := c.simple(ctx, "RELEASE SAVEPOINT wl"); rerr != nil {
					return nil, fmt.Errorf("raw %s: release savepoint: %w", c.dialect, rerr)
				}
			}
			continue
		}
		out[i] = Outcome{OK: true, Results: res}
		if !single && c.releases() {
			if err := c.simple(ctx, "RELEASE SAVEPOINT wl"); err != nil {
				return nil, fmt.Errorf("raw %s: release savepoint: %w", c.dialect, err)
			}
		}
	}
	if err := c.simple(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("raw %s: commit: %w", c.dialect, err)
	}
	return out, nil
}

// Query runs one read-only statement in its own read-only db-transaction
// (the chain's query path does the same) and returns its rows normalized.
func (c *Conn) Query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	ctx, err := driverContext(ctx)
	if err != nil {
		return nil, err
	}
	st := txn.Statement{SQL: sql}
	for _, a := range args {
		st.Args = append(st.Args, argOf(a))
	}
	begin := "BEGIN"
	switch {
	case c.pg != nil:
		begin = "BEGIN READ ONLY"
	case c.my != nil:
		begin = "START TRANSACTION READ ONLY"
	}
	if err := c.simple(ctx, begin); err != nil {
		return nil, fmt.Errorf("raw %s: begin: %w", c.dialect, err)
	}
	r, err := c.exec(ctx, st)
	if cerr := c.simple(ctx, "COMMIT"); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("raw %s: query %q: %w", c.dialect, abbreviate(sql), err)
	}
	return r.Rows, nil
}

func argOf(v any) txn.Arg {
	switch x := v.(type) {
	case nil:
		return txn.Null()
	case int:
		return txn.Int(int64(x))
	case int64:
		return txn.Int(x)
	case float64:
		return txn.Float(x)
	case string:
		return txn.Text(x)
	case []byte:
		return txn.Bytes(x)
	case bool:
		return txn.Bool(x)
	}
	return txn.Text(fmt.Sprint(v))
}

func abbreviate(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
