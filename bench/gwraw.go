package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	_ "github.com/ncruces/go-sqlite3/driver" // database/sql driver "sqlite3", the chain's SQLite

	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/node"
)

// pointReader runs the point SELECT of the read comparison on one
// connection (or, for SQLite, one prepared statement of a pool).
type pointReader interface {
	read(ctx context.Context, id int64) (int64, error)
	close()
}

// rawReaders opens n readers of node home's own database over the
// backend's own access path (rawReaderOpeners). The second result says
// which.
func rawReaders(ctx context.Context, backend, home string, n int) ([]pointReader, string, error) {
	if err := GatewayRuns(backend); err != nil {
		return nil, "", fmt.Errorf("raw readers: %w", err)
	}
	return rawReaderOpeners[backend](ctx, home, n)
}

// rawReaderOpeners opens, by dialect name, a database's raw readers; nil:
// the gateway benchmark does not run on it (a test holds that every
// database has an entry).
var rawReaderOpeners = map[string]func(ctx context.Context, home string, n int) ([]pointReader, string, error){
	workload.SQLite:   sqliteRawReaders,
	workload.Postgres: pgRawReaders,
	workload.MySQL:    nil,
}

// GatewayRuns says whether the gateway benchmark runs on backend: an
// error names the backends it runs on.
func GatewayRuns(backend string) error {
	if open, ok := rawReaderOpeners[backend]; ok && open != nil {
		return nil
	}
	var on []string
	for _, name := range workload.Dialects {
		if rawReaderOpeners[name] != nil {
			on = append(on, name)
		}
	}
	return fmt.Errorf("backend %q: the gateway benchmark runs on %s", backend, strings.Join(on, " or "))
}

// sqliteRawReaders share the node's SQLite file opened read-only in this
// process with the chain's driver (no network at all).
func sqliteRawReaders(_ context.Context, home string, n int) ([]pointReader, string, error) {
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		return nil, "", fmt.Errorf("raw readers: %w", err)
	}
	r, err := openSQLiteReader(rc.SQLitePath(home), n)
	if err != nil {
		return nil, "", err
	}
	out := make([]pointReader, n)
	for i := range out {
		out[i] = r
	}
	return out, "SQLite file read-only, in process (no network)", nil
}

// pgRawReaders are pgx connections as the node's reader role (the network
// path a client of the bare PostgreSQL database takes).
func pgRawReaders(ctx context.Context, home string, n int) ([]pointReader, string, error) {
	dsn, err := nodeReaderDSN(home)
	if err != nil {
		return nil, "", err
	}
	out := make([]pointReader, 0, n)
	for range n {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			closeReaders(out)
			return nil, "", fmt.Errorf("raw readers: connect as the node's reader role: %w", err)
		}
		out = append(out, pgReader{c})
	}
	return out, "PostgreSQL, pgx as node 0's reader role (loopback TCP)", nil
}

// nodeReaderDSN is the DSN of the reader role of the PostgreSQL node at
// home.
func nodeReaderDSN(home string) (string, error) {
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		return "", fmt.Errorf("raw readers: %w", err)
	}
	return readerDSN(rc.Backend.DSN)
}

func closeReaders(rs []pointReader) {
	seen := map[pointReader]bool{}
	for _, r := range rs {
		if !seen[r] {
			seen[r] = true
			r.close()
		}
	}
}

// readerDSN is the DSN of the reader role of a node whose relchain.toml
// names its writer <x>_writer: <x>_reader with the writer's password,
// the convention of backend/postgres/pgsetup (SplitDSN), which the lab
// does not import.
func readerDSN(writerDSN string) (string, error) {
	u, err := url.Parse(writerDSN)
	if err != nil || u.User == nil || !strings.HasSuffix(u.User.Username(), "_writer") {
		return "", fmt.Errorf("raw readers: node 0's DSN does not name a <db>_writer role (a network started with a superuser's DSN template has one)")
	}
	reader := strings.TrimSuffix(u.User.Username(), "_writer") + "_reader"
	if pw, ok := u.User.Password(); ok {
		u.User = url.UserPassword(reader, pw)
	} else {
		u.User = url.User(reader)
	}
	return u.String(), nil
}

type pgReader struct{ c *pgx.Conn }

func (r pgReader) read(ctx context.Context, id int64) (int64, error) {
	var bal int64
	// pgx prepares and caches the statement: extended protocol, as
	// through the gateway.
	err := r.c.QueryRow(ctx, pointSelect, id).Scan(&bal)
	return bal, err
}

func (r pgReader) close() { r.c.Close(context.Background()) }

type sqliteReader struct {
	db   *sql.DB
	stmt *sql.Stmt
}

// openSQLiteReader opens path read-only with a pool of n connections and
// one prepared point SELECT.
func openSQLiteReader(path string, n int) (*sqliteReader, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("raw sqlite reader %s: %w", path, err)
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	stmt, err := db.Prepare(strings.ReplaceAll(pointSelect, "$1", "?1"))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("raw sqlite reader %s: prepare: %w", path, err)
	}
	return &sqliteReader{db: db, stmt: stmt}, nil
}

func (r *sqliteReader) read(ctx context.Context, id int64) (int64, error) {
	var bal int64
	err := r.stmt.QueryRowContext(ctx, id).Scan(&bal)
	return bal, err
}

func (r *sqliteReader) close() { r.stmt.Close(); r.db.Close() }
