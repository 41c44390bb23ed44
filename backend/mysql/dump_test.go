package mysql_test

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
)

// Dump's SQL, run into a fresh database, gives the same tables and rows
// without relchain's tables or triggers, and two dumps of one state are
// the same.
func TestDumpRestoresRows(t *testing.T) {
	dsn := mysqltest.DSN(t)
	b := mustOpen(t, dsn, mysql.WithoutGate())
	defer b.Close()
	runBlock(t, b, 1, [][]string{
		{"CREATE TABLE `we``ird` (a INT, `b c` VARCHAR(40), d DECIMAL(30,10), e BLOB, f TIMESTAMP(6) NULL, g DOUBLE, h BIT(5), j JSON, " +
			"PRIMARY KEY (a, `b c`), CHECK (a > 0), KEY `idx \"x\"` (d))"},
		{"CREATE TABLE accounts (id BIGINT PRIMARY KEY, owner VARCHAR(20) NOT NULL UNIQUE, balance DECIMAL(20,4) NOT NULL DEFAULT 0)"},
		{"INSERT INTO `we``ird` VALUES (2, 'it''s', 12345678901234567890.0123456789, x'00ff5c27', '2024-02-29 23:59:59.123456', 0.1, b'101', '{\"k\": \"v''\"}'), " +
			"(1, 'back\\\\slash\nline', NULL, NULL, NULL, -2.2250738585072014e-308, NULL, NULL), (1, 'ünïcødé ☃', -0.5, x'', '1970-01-02 00:00:00', 1e300, b'0', 'null')",
			"INSERT INTO accounts VALUES (3, 'carol', 1.5), (1, 'alice', 10), (2, 'bob', DEFAULT)"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var first, second bytes.Buffer
	h, err := mysql.Dump(ctx, dsn, &first)
	if err != nil || h != 1 {
		t.Fatalf("Dump = %d, %v; want height 1", h, err)
	}
	if _, err := mysql.Dump(ctx, dsn, &second); err != nil || !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("second dump differs (%v):\n%s\n---\n%s", err, first.String(), second.String())
	}
	if s := first.String(); strings.Contains(s, "relchain_") || strings.Contains(strings.ToUpper(s), "TRIGGER") {
		t.Fatalf("dump names relchain's objects:\n%s", s)
	}
	dst := openMulti(t, mysqltest.AdminDSN(t))
	if _, err := dst.ExecContext(ctx, first.String()); err != nil {
		t.Fatalf("run the dump: %v\n%s", err, first.String())
	}
	src := openMulti(t, dsn)
	for _, q := range []string{
		"SELECT a, `b c`, d, HEX(e), f, g, h + 0, j FROM `we``ird` ORDER BY a, `b c`",
		"SELECT * FROM accounts ORDER BY id",
		"SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\\_%' ORDER BY 1, 2, 3",
		"SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'relchain\\_%' ORDER BY 1, ORDINAL_POSITION",
	} {
		if got, want := rowsText(t, dst, q), rowsText(t, src, q); got != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
	if n := rowsText(t, dst, "SELECT (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'relchain%') + "+
		"(SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE())"); n != "0\n" {
		t.Fatalf("relchain objects in the restored database: %s", n)
	}
}

// openMulti opens dsn on one connection that runs several statements at
// once, in UTC.
func openMulti(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MultiStatements = true
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// rowsText is the result of q as text, a line a row.
func rowsText(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if v.Valid {
				b.WriteString(strings.ReplaceAll(v.String, "\n", `\n`) + "|")
			} else {
				b.WriteString("NULL|")
			}
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "|\n") + "\n"
}
