package mysql

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
)

// checkpointExt is the extension of MySQL checkpoints: relchain's own
// logical dump (see dumpSnapshot).
const checkpointExt = ".mysqldump"

// checkpointMagic opens every checkpoint file.
const checkpointMagic = "relchain-mysql-checkpoint-v1\n"

// Checkpoints lists the MySQL checkpoints in dir, newest first.
func Checkpoints(dir string) ([]backend.Checkpoint, error) {
	return backend.ListCheckpoints(dir, checkpointExt)
}

// CheckpointError is the error of the last background checkpoint, if it
// failed.
func (b *Backend) CheckpointError() error { return b.ckpt.CheckpointError() }

// WaitCheckpoint waits for a running MySQL dump to finish.
func (b *Backend) WaitCheckpoint() { b.ckpt.WaitCheckpoint() }

// CheckpointNow dumps the database into dir at once
// (backend.TakeCheckpointNow), in one consistent snapshot as the
// background checkpoints do, while a node may be committing blocks on it.
// Nothing is pruned.
func (b *Backend) CheckpointNow(ctx context.Context, dir string) (backend.Checkpoint, error) {
	return backend.TakeCheckpointNow(dir, checkpointExt, func(tmp string) (int64, error) { return b.dumpSnapshot(ctx, tmp) })
}

// LastCheckpoint is the last finished background checkpoint (metrics).
func (b *Backend) LastCheckpoint() backend.CheckpointRun { return b.ckpt.LastCheckpoint() }

// dumpSnapshot writes the dump to the file path: after checkpointMagic,
// a sequence of statements, each a uvarint length and the text, that recreate every
// base table (relchain's included, capture triggers excepted: Open
// recreates them) with SHOW CREATE TABLE, its rows as INSERTs (character
// values as quoted text, binary and BIT values as hex literals, numbers
// and dates as the server's text, which reads back exactly), and every
// view. mysqldump cannot share the snapshot whose height is read, so the
// backend dumps itself. It returns the height the snapshot is of.
func (b *Backend) dumpSnapshot(ctx context.Context, path string) (int64, error) {
	conn, err := b.internal.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	// The connection's statement time limit is lifted for the dump; it
	// is discarded afterwards rather than pooled with that setting.
	defer discard(conn)
	lift := "SET SESSION max_statement_time = 0"
	if !b.flavor.mariadb {
		lift = "SET SESSION max_execution_time = 0"
	}
	if _, err := conn.ExecContext(ctx, lift); err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"); err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	var height int64
	if err := conn.QueryRowContext(ctx, "SELECT COALESCE((SELECT height FROM relchain_meta WHERE id = 1), 0)").Scan(&height); err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = dump(ctx, conn, w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("checkpoint at height %d: %w", height, err)
	}
	return height, nil
}

// dump writes the database that q reads (in its snapshot) to w.
func dump(ctx context.Context, q querierRow, w io.Writer) error {
	if _, err := io.WriteString(w, checkpointMagic); err != nil {
		return err
	}
	put := func(stmt string) error {
		var n [binary.MaxVarintLen64]byte
		if _, err := w.Write(n[:binary.PutUvarint(n[:], uint64(len(stmt)))]); err != nil {
			return err
		}
		_, err := io.WriteString(w, stmt)
		return err
	}
	names, types, err := listObjects(ctx, q)
	if err != nil {
		return err
	}
	var views []string
	for i, name := range names {
		if types[i] == "VIEW" {
			views = append(views, name)
			continue
		}
		if historyTables[name] {
			continue // the node's own (history.go); Open creates them empty
		}
		var n, create string
		if err := q.QueryRowContext(ctx, "SHOW CREATE TABLE "+quoteIdent(name)).Scan(&n, &create); err != nil {
			return fmt.Errorf("show create table %s: %w", name, err)
		}
		if err := put(create); err != nil {
			return err
		}
		if err := dumpRows(ctx, q, name, put); err != nil {
			return err
		}
	}
	for _, name := range views {
		var n, create, cs, coll string
		if err := q.QueryRowContext(ctx, "SHOW CREATE VIEW "+quoteIdent(name)).Scan(&n, &create, &cs, &coll); err != nil {
			return fmt.Errorf("show create view %s: %w", name, err)
		}
		if err := put(create); err != nil {
			return err
		}
	}
	return nil
}

type querierRow interface {
	querier
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// listObjects lists the base tables and views of the current database,
// by name.
func listObjects(ctx context.Context, q querier) (names, types []string, err error) {
	rows, err := q.QueryContext(ctx, `SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() ORDER BY BINARY TABLE_NAME`)
	if err != nil {
		return nil, nil, fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, nil, err
		}
		if t == "VIEW" || t == "BASE TABLE" {
			names, types = append(names, n), append(types, t)
		}
	}
	return names, types, rows.Err()
}

// dumpRows writes table's rows as INSERT statements of up to 500 rows, in
// primary-key order (rowOrder): the same state gives the same text.
func dumpRows(ctx context.Context, q querier, table string, put func(string) error) error {
	order, err := rowOrder(ctx, q, table)
	if err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, "SELECT * FROM "+quoteIdent(table)+order)
	if err != nil {
		return fmt.Errorf("dump %s: %w", table, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	binaryCol := make([]bool, len(cts))
	for i, ct := range cts {
		switch ct.DatabaseTypeName() {
		case "BLOB", "BINARY", "VARBINARY", "GEOMETRY", "BIT":
			binaryCol[i] = true
		}
	}
	vals := make([]sql.RawBytes, len(cts))
	ptrs := make([]any, len(cts))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		err := put(b.String())
		b.Reset()
		n = 0
		return err
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("dump %s: %w", table, err)
		}
		if n == 0 {
			b.WriteString("INSERT INTO " + quoteIdent(table) + " VALUES ")
		} else {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, v := range vals {
			if i > 0 {
				b.WriteString(", ")
			}
			switch {
			case v == nil:
				b.WriteString("NULL")
			case binaryCol[i]:
				b.WriteString("X'" + hex.EncodeToString(v) + "'")
			default:
				b.WriteString(quoteString(string(v)))
			}
		}
		b.WriteByte(')')
		n++
		if n == 500 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("dump %s: %w", table, err)
	}
	return flush()
}

// RestoreCheckpoint restores cp into a new database named db on the server
// of dsn (dropping one of that name first) and returns that database's
// DSN. Opening it (which recreates the capture triggers) and verifying it
// are the caller's business.
func RestoreCheckpoint(ctx context.Context, dsn string, cp backend.Checkpoint, db string) (string, error) {
	f, err := os.Open(cp.Path)
	if err != nil {
		return "", fmt.Errorf("restore checkpoint %d: %w", cp.Height, err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, len(checkpointMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != checkpointMagic {
		return "", fmt.Errorf("restore checkpoint %d: %s is not a relchain MySQL checkpoint", cp.Height, cp.Path)
	}
	target, err := CreateDatabase(ctx, dsn, db)
	if err != nil {
		return "", err
	}
	cfg, _ := gomysql.ParseDSN(target)
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return "", err
	}
	sdb := sql.OpenDB(&initConnector{inner: conn, init: append(sessionInit(flavorOf(ctx, cfg), true, 0),
		"SET SESSION foreign_key_checks = 0")})
	defer sdb.Close()
	sdb.SetMaxOpenConns(1)
	fail := func(err error) (string, error) {
		_ = DropDatabase(context.Background(), dsn, db)
		return "", fmt.Errorf("restore checkpoint %d: %w", cp.Height, err)
	}
	for {
		n, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		if n > 1<<30 {
			return fail(fmt.Errorf("statement of %d bytes: corrupt checkpoint", n))
		}
		stmt := make([]byte, n)
		if _, err := io.ReadFull(r, stmt); err != nil {
			return fail(err)
		}
		if _, err := sdb.ExecContext(ctx, string(stmt)); err != nil {
			return fail(fmt.Errorf("%.80s: %w", stmt, err))
		}
	}
	return target, nil
}

// flavorOf asks the server of cfg whether it is MariaDB (best effort).
func flavorOf(ctx context.Context, cfg *gomysql.Config) flavor {
	c := cfg.Clone()
	c.DBName = ""
	conn, err := gomysql.NewConnector(c)
	if err != nil {
		return flavor{mariadb: true}
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var fl flavor
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&fl.version); err != nil {
		return flavor{mariadb: true}
	}
	fl.mariadb = strings.Contains(strings.ToLower(fl.version), "mariadb")
	return fl
}

// SwapDatabases moves the tables of dsn's database into a new database
// named replaced and those of staged into dsn's database, in one atomic
// RENAME TABLE (MySQL has no RENAME DATABASE), then drops the empty
// staged database. MySQL cannot move a table with triggers to another
// database, so the capture triggers of both are dropped first: the next
// Open recreates them. Views are not moved (a checkpoint of a database
// with views cannot be installed yet). The node must be stopped.
func SwapDatabases(ctx context.Context, dsn, staged, replaced string) error {
	live, err := DatabaseName(dsn)
	if err != nil {
		return err
	}
	db, err := serverDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+quoteIdent(replaced)+" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		return fmt.Errorf("swap databases: %w", err)
	}
	var renames []string
	for _, pair := range [][2]string{{live, replaced}, {staged, live}} {
		rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?`, pair[0])
		if err != nil {
			return fmt.Errorf("swap databases: %w", err)
		}
		var tables []string
		for rows.Next() {
			var n, t string
			if err := rows.Scan(&n, &t); err != nil {
				rows.Close()
				return fmt.Errorf("swap databases: %w", err)
			}
			if t == "VIEW" {
				rows.Close()
				return fmt.Errorf("swap databases: %s.%s is a view, which RENAME TABLE cannot move between databases", pair[0], n)
			}
			tables = append(tables, n)
		}
		rows.Close()
		trows, err := db.QueryContext(ctx, `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?`, pair[0])
		if err != nil {
			return fmt.Errorf("swap databases: %w", err)
		}
		var triggers []string
		for trows.Next() {
			var n string
			if err := trows.Scan(&n); err != nil {
				trows.Close()
				return fmt.Errorf("swap databases: %w", err)
			}
			triggers = append(triggers, n)
		}
		trows.Close()
		for _, tr := range triggers {
			if _, err := db.ExecContext(ctx, "DROP TRIGGER "+quoteIdent(pair[0])+"."+quoteIdent(tr)); err != nil {
				return fmt.Errorf("swap databases: %w", err)
			}
		}
		for _, t := range tables {
			renames = append(renames, quoteIdent(pair[0])+"."+quoteIdent(t)+" TO "+quoteIdent(pair[1])+"."+quoteIdent(t))
		}
	}
	if len(renames) > 0 {
		if _, err := db.ExecContext(ctx, "RENAME TABLE "+strings.Join(renames, ", ")); err != nil {
			return fmt.Errorf("swap databases: %w", err)
		}
	}
	return DropDatabase(ctx, dsn, staged)
}

// DropDatabase drops the database db on the server of dsn.
func DropDatabase(ctx context.Context, dsn, db string) error {
	sdb, err := serverDB(dsn)
	if err != nil {
		return err
	}
	defer sdb.Close()
	if _, err := sdb.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(db)); err != nil {
		return fmt.Errorf("mysql: drop database %s: %w", db, err)
	}
	return nil
}

// serverDB connects to dsn's server without a database.
func serverDB(dsn string) (*sql.DB, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("mysql: parse dsn: %w", err)
	}
	cfg.DBName = ""
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db, nil
}

// withDatabase returns dsn naming database db instead.
func withDatabase(dsn, db string) (string, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql: parse dsn: %w", err)
	}
	cfg.DBName = db
	return cfg.FormatDSN(), nil
}

// DatabaseName is the database a DSN names.
func DatabaseName(dsn string) (string, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql: parse dsn: %w", err)
	}
	return cfg.DBName, nil
}

// SizeBytes is the size of the database's tables and indexes as
// information_schema reports them (InnoDB's estimate), read by the reader
// account: for operators (metrics), never for a block.
func (b *Backend) SizeBytes(ctx context.Context) (int64, error) {
	var n int64
	err := b.readers.QueryRowContext(ctx,
		"SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS SIGNED) FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("database size: %w", err)
	}
	return n, nil
}

// CreateDatabase makes a new, empty database db on dsn's server (dropping
// one of that name first) and returns its DSN: where a node of a network
// over several engines restores another engine's checkpoint, in
// PostgreSQL's SQL through the postgres dialect (dbrestore.Fill).
func CreateDatabase(ctx context.Context, dsn, db string) (string, error) {
	if err := DropDatabase(ctx, dsn, db); err != nil {
		return "", err
	}
	target, err := withDatabase(dsn, db)
	if err != nil {
		return "", err
	}
	cfg, err := gomysql.ParseDSN(target)
	if err != nil {
		return "", fmt.Errorf("mysql: parse dsn: %w", err)
	}
	if _, err := createDatabase(ctx, cfg); err != nil {
		return "", err
	}
	return target, nil
}
