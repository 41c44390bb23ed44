package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// txVar is the session user variable that tags change records with the
// index of the bc-transaction that wrote them (Savepoint sets it; NULL,
// recorded as -1, outside every bc-transaction and in other sessions).
const txVar = "@relchain_tx"

// schemaSQL creates relchain's own tables, idempotently, at Open. Client
// statements cannot name them (the gate refuses relchain_* names).
//
//   - relchain_meta: the committed State, one row, written by Commit in the
//     block's db-transaction.
//   - relchain_system: system state (SaveSystem).
//   - relchain_digest: the state digest's per-table sums.
//   - relchain_changes: the row changes of the open block, appended by the
//     capture triggers and consumed by ChangeDigest. An UPDATE writes one
//     record ('U', new image, old image in old). seq only lets
//     ChangeDigest delete exactly the records it read on MySQL 8 (which
//     has no DELETE ... RETURNING); it is not digested.
//   - relchain_ddl: DDL recovery records (see block.execDDL).
//   - relchain_history_blocks, relchain_history_versions: the row history
//     (history.go), the node's own: no capture triggers, and left out of
//     checkpoints (dump).
var schemaSQL = []string{
	`CREATE TABLE IF NOT EXISTS relchain_meta (
		id INT NOT NULL PRIMARY KEY,
		height BIGINT NOT NULL,
		app_hash VARBINARY(1024) NOT NULL
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_system (
		k VARBINARY(512) NOT NULL PRIMARY KEY,
		v LONGBLOB NOT NULL
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_digest (
		tbl VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
		sum BLOB NOT NULL
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_changes (
		seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
		tbl VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
		op CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
		img LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
		old LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
		tx INT NOT NULL
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_history_blocks (
		height BIGINT NOT NULL PRIMARY KEY,
		time BIGINT NOT NULL,
		app_hash VARBINARY(1024) NOT NULL,
		txs LONGBLOB NOT NULL
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_history_versions (
		tbl VARBINARY(255) NOT NULL,
		key_hash BINARY(32) NOT NULL,
		height BIGINT NOT NULL,
		k LONGBLOB NOT NULL,
		op CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
		image LONGBLOB NULL,
		txs BLOB NOT NULL,
		PRIMARY KEY (tbl, key_hash, height),
		KEY relchain_history_versions_height (height)
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_history_states (
		height BIGINT NOT NULL PRIMARY KEY,
		state BLOB NOT NULL
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_history_roots (
		height BIGINT NOT NULL PRIMARY KEY,
		roots LONGBLOB NOT NULL
	) ENGINE=InnoDB`,
	`CREATE TABLE IF NOT EXISTS relchain_ddl (
		height BIGINT NOT NULL,
		seq INT NOT NULL,
		stmt VARBINARY(32) NOT NULL,
		fingerprint VARBINARY(32) NOT NULL,
		err_class VARCHAR(32) NULL,
		err_state VARCHAR(8) NULL,
		err_msg TEXT NULL,
		PRIMARY KEY (height, seq)
	) ENGINE=InnoDB`,
}

// install creates relchain's tables and the capture triggers of every
// replicated table (tables made before relchain was installed too).
func (b *Backend) install(ctx context.Context) error {
	conn, err := b.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("mysql: install: %w", err)
	}
	defer conn.Close()
	// Serialise concurrent installs on one database (two processes
	// opening the same DSN).
	lock := "relchain_install_" + b.dbName
	if _, err := conn.ExecContext(ctx, "SELECT GET_LOCK(?, 60)", lock); err != nil {
		return fmt.Errorf("mysql: install: %w", err)
	}
	defer conn.ExecContext(context.Background(), "SELECT RELEASE_LOCK(?)", lock)
	for _, s := range schemaSQL {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("mysql: install relchain tables: %w", err)
		}
	}
	if err := syncTriggers(ctx, conn); err != nil {
		return fmt.Errorf("mysql: install: %w", err)
	}
	return nil
}

// column is one column of a replicated table, as information_schema
// describes it.
type column struct {
	name, dataType string
	charset        sql.NullString
}

// querier is what the catalog reads need.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

type execer interface {
	querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// replicatedTables lists the base tables of the current database that
// relchain replicates (all but its own relchain_* tables), with their
// columns in ordinal order, by table name in byte order.
func replicatedTables(ctx context.Context, q querier) ([]string, map[string][]column, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE, c.CHARACTER_SET_NAME
		FROM information_schema.COLUMNS c JOIN information_schema.TABLES t
			ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
		WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
			AND c.TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY c.TABLE_NAME, c.ORDINAL_POSITION`)
	if err != nil {
		return nil, nil, fmt.Errorf("list tables: %w", err)
	}
	defer rows.Close()
	var names []string
	cols := make(map[string][]column)
	for rows.Next() {
		var tbl string
		var c column
		if err := rows.Scan(&tbl, &c.name, &c.dataType, &c.charset); err != nil {
			return nil, nil, fmt.Errorf("list tables: %w", err)
		}
		if _, ok := cols[tbl]; !ok {
			names = append(names, tbl)
		}
		cols[tbl] = append(cols[tbl], c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("list tables: %w", err)
	}
	return names, cols, nil
}

// imageSQL is the SQL expression of a row's canonical image: a JSON
// object of every column in ordinal order, the row qualified by alias
// (NEW, OLD, or a scan's alias). The same expression serves the capture
// triggers and the full scan, so both produce byte-identical text for the
// same row. Binary strings are hex (JSON holds text only), BIT columns
// their integer, character columns converted to utf8mb4 (JSON_OBJECT mixes
// the charsets of its arguments otherwise); numbers, DECIMAL (exact, at
// the column's scale), DATE/TIME/DATETIME/TIMESTAMP (text at the column's
// precision; TIMESTAMP in the pinned time zone +00:00) and JSON as the
// server renders them, which is a function of the value and the server
// version.
func imageSQL(alias string, cols []column) string {
	var b strings.Builder
	b.WriteString("JSON_OBJECT(")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		ref := alias + "." + quoteIdent(c.name)
		b.WriteString(quoteString(c.name))
		b.WriteString(", ")
		switch strings.ToLower(c.dataType) {
		case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob",
			"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
			"multipolygon", "geometrycollection", "geomcollection":
			b.WriteString("CONVERT(HEX(" + ref + ") USING utf8mb4)")
		case "bit":
			b.WriteString("(" + ref + " + 0)")
		case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
			if c.charset.Valid && c.charset.String != "binary" {
				b.WriteString("CONVERT(" + ref + " USING utf8mb4)")
			} else {
				b.WriteString("CONVERT(HEX(" + ref + ") USING utf8mb4)")
			}
		default:
			b.WriteString(ref)
		}
	}
	b.WriteString(")")
	return b.String()
}

// triggerName is the name of a table's capture trigger for op (i, u, d):
// a hash of the table name keeps it within 64 characters.
func triggerName(table string, op byte) string {
	h := sha256.Sum256([]byte(table))
	return "relchain_" + hex.EncodeToString(h[:8]) + "_" + string(op)
}

// triggerBodies are the three capture triggers of a table, by name.
func triggerBodies(table string, cols []column) map[string][2]string {
	tbl := quoteString(table)
	ins := "INSERT INTO relchain_changes (tbl, op, img, old, tx) VALUES (" + tbl + ", "
	tx := "COALESCE(" + txVar + ", -1)"
	return map[string][2]string{
		triggerName(table, 'i'): {"INSERT", ins + "'I', " + imageSQL("NEW", cols) + ", NULL, " + tx + ")"},
		triggerName(table, 'u'): {"UPDATE", ins + "'U', " + imageSQL("NEW", cols) + ", " + imageSQL("OLD", cols) + ", " + tx + ")"},
		triggerName(table, 'd'): {"DELETE", ins + "'D', " + imageSQL("OLD", cols) + ", NULL, " + tx + ")"},
	}
}

// syncTriggers makes the capture triggers match the schema: created for
// new tables, recreated where the column list changed, dropped where the
// table is gone (MySQL drops a table's triggers with it). Trigger DDL
// commits implicitly: call it outside the block's db-transaction.
func syncTriggers(ctx context.Context, conn execer) error {
	names, cols, err := replicatedTables(ctx, conn)
	if err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, `SELECT TRIGGER_NAME, ACTION_STATEMENT FROM information_schema.TRIGGERS
		WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME LIKE 'relchain\_%'`)
	if err != nil {
		return fmt.Errorf("list triggers: %w", err)
	}
	have := make(map[string]string)
	for rows.Next() {
		var n, body string
		if err := rows.Scan(&n, &body); err != nil {
			rows.Close()
			return fmt.Errorf("list triggers: %w", err)
		}
		have[n] = body
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list triggers: %w", err)
	}
	want := make(map[string]bool)
	for _, t := range names {
		for name, tb := range triggerBodies(t, cols[t]) {
			want[name] = true
			if body, ok := have[name]; ok && body == tb[1] {
				continue
			}
			if _, err := conn.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+quoteIdent(name)); err != nil {
				return fmt.Errorf("drop trigger %s on %s: %w", name, t, err)
			}
			ddl := "CREATE TRIGGER " + quoteIdent(name) + " AFTER " + tb[0] + " ON " + quoteIdent(t) + " FOR EACH ROW " + tb[1]
			if _, err := conn.ExecContext(ctx, ddl); err != nil {
				return fmt.Errorf("create capture trigger on %s: %w", t, err)
			}
		}
	}
	for name := range have {
		if !want[name] {
			if _, err := conn.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+quoteIdent(name)); err != nil {
				return fmt.Errorf("drop trigger %s: %w", name, err)
			}
		}
	}
	return nil
}

// fingerprintQueries read the replicated schema: tables and views,
// columns, indexes, constraints, view definitions and triggers other than
// relchain's, each in a fixed order.
var fingerprintQueries = []string{
	`SELECT TABLE_NAME, TABLE_TYPE, ENGINE FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%' ORDER BY BINARY TABLE_NAME`,
	`SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA, COLLATION_NAME
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME, ORDINAL_POSITION`,
	`SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE, SUB_PART
		FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME, BINARY INDEX_NAME, SEQ_IN_INDEX`,
	`SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\_%'
		ORDER BY BINARY TABLE_NAME, BINARY CONSTRAINT_NAME, BINARY CONSTRAINT_TYPE`,
	`SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS
		WHERE TABLE_SCHEMA = DATABASE() ORDER BY BINARY TABLE_NAME`,
	`SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, ACTION_STATEMENT FROM information_schema.TRIGGERS
		WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME NOT LIKE 'relchain\_%' ORDER BY BINARY TRIGGER_NAME`,
}

// schemaFingerprint hashes the replicated schema (fingerprintQueries). It
// is node-local (it decides only whether this node's DDL already took
// effect, see block.execDDL), so it need not be portable across versions.
func schemaFingerprint(ctx context.Context, q querier) ([]byte, error) {
	h := sha256.New()
	var buf []byte
	for qi, query := range fingerprintQueries {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			return nil, fmt.Errorf("schema fingerprint: %w", err)
		}
		cols, _ := rows.Columns()
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, fmt.Errorf("schema fingerprint: %w", err)
			}
			buf = binary.AppendUvarint(buf[:0], uint64(qi))
			for _, v := range vals {
				if v == nil {
					buf = append(buf, 0)
					continue
				}
				buf = append(buf, 1)
				buf = binary.AppendUvarint(buf, uint64(len(v)))
				buf = append(buf, v...)
			}
			h.Write(buf)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("schema fingerprint: %w", err)
		}
	}
	return h.Sum(nil), nil
}
