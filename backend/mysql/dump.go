package mysql

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
)

// Dump writes the replicated tables of the database of a node's DSN to w
// as SQL text MySQL or MariaDB runs: for each table, in byte order of its
// name, its SHOW CREATE TABLE (columns, types, NOT NULL, keys, indexes and
// the other constraints the server keeps; triggers are not part of it),
// then its rows as INSERTs in primary-key order. relchain's own tables
// (relchain_*) and capture triggers are left out. It reads one snapshot
// (START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY) on a connection
// of its own, in UTC with relchain's sql_mode, so a running node goes on
// committing blocks, and returns the height that snapshot holds.
// It is the checkpoint's dump (dumpSnapshot) as text, not mysqldump:
// mysqldump cannot share the snapshot whose height is read.
func Dump(ctx context.Context, dsn string, w io.Writer) (int64, error) {
	s, err := openDumpSession(ctx, dsn)
	if err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	defer s.close()
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := dumpText(ctx, s.conn, s.height, bw); err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	return s.height, bw.Flush()
}

// dumpSession is one connection of its own reading one snapshot of a
// node's database (START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY)
// in UTC with relchain's sql_mode and no statement time limit, the server
// it runs on and the height that snapshot holds.
type dumpSession struct {
	db     *sql.DB
	conn   *sql.Conn
	flavor flavor
	height int64
}

// openDumpSession opens a dumpSession on the database of dsn.
func openDumpSession(ctx context.Context, dsn string) (*dumpSession, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse dsn: %w", err)
	}
	s := &dumpSession{flavor: flavorOf(ctx, cfg)}
	cfg = cfg.Clone()
	cfg.Params = map[string]string{"time_zone": "'+00:00'", "sql_mode": "'" + SQLMode + "'"}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	s.db = sql.OpenDB(connector)
	if s.conn, err = s.db.Conn(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	lift := "SET SESSION max_statement_time = 0"
	if !s.flavor.mariadb {
		lift = "SET SESSION max_execution_time = 0"
	}
	for _, q := range []string{lift, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"} {
		if _, err := s.conn.ExecContext(ctx, q); err != nil {
			s.close()
			return nil, err
		}
	}
	if err := s.conn.QueryRowContext(ctx, "SELECT COALESCE((SELECT height FROM relchain_meta WHERE id = 1), 0)").Scan(&s.height); err != nil {
		s.close()
		return nil, fmt.Errorf("read height: %w", err)
	}
	return s, nil
}

// close ends the snapshot and closes the connection.
func (s *dumpSession) close() {
	s.conn.ExecContext(context.Background(), "ROLLBACK")
	s.conn.Close()
	s.db.Close()
}

// dumpText writes the replicated tables that q reads (in its snapshot) to
// w.
func dumpText(ctx context.Context, q querierRow, height int64, w io.Writer) error {
	names, types, err := listObjects(ctx, q)
	if err != nil {
		return err
	}
	// UTC: TIMESTAMP values are written as the session shows them.
	// Foreign keys are checked by the database the dump comes from.
	fmt.Fprintf(w, "-- relchain dump of the replicated tables at height %d\n"+
		"SET time_zone = '+00:00';\nSET foreign_key_checks = 0;\nSTART TRANSACTION;\n", height)
	put := func(stmt string) error {
		_, err := io.WriteString(w, stmt+";\n")
		return err
	}
	for i, name := range names {
		if types[i] != "BASE TABLE" || strings.HasPrefix(name, "relchain_") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
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
	_, err = io.WriteString(w, "COMMIT;\nSET foreign_key_checks = 1;\n")
	return err
}

// rowOrder is the ORDER BY that lists table's rows in primary-key order (in
// order of all columns for a table without one).
func rowOrder(ctx context.Context, q querier, table string) (string, error) {
	rows, err := q.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX`, table)
	if err != nil {
		return "", fmt.Errorf("primary key of %s: %w", table, err)
	}
	defer rows.Close()
	var key []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", fmt.Errorf("primary key of %s: %w", table, err)
		}
		key = append(key, quoteIdent(c))
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("primary key of %s: %w", table, err)
	}
	if len(key) > 0 {
		return " ORDER BY " + strings.Join(key, ", "), nil
	}
	var n int
	if err := rows.Close(); err != nil {
		return "", err
	}
	cols, err := q.QueryContext(ctx, `SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`, table)
	if err != nil {
		return "", fmt.Errorf("columns of %s: %w", table, err)
	}
	defer cols.Close()
	for cols.Next() {
		if err := cols.Scan(&n); err != nil {
			return "", fmt.Errorf("columns of %s: %w", table, err)
		}
	}
	for i := 1; i <= n; i++ {
		key = append(key, fmt.Sprint(i))
	}
	if len(key) == 0 {
		return "", cols.Err()
	}
	return " ORDER BY " + strings.Join(key, ", "), cols.Err()
}
