package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/relchain/relchain/backend/pgcatalog"
)

// SchemaOf is schemaOf on a connection of b's internal pool, for the
// tests of package mysql_test.
func SchemaOf(ctx context.Context, b *Backend) (*pgcatalog.Schema, error) {
	conn, err := b.internal.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return b.schemaOf(ctx, conn)
}

// MySQL's column types map to the PostgreSQL types Query reports for
// their values, with PostgreSQL's typmods.
func TestPGTypeMapsMySQLColumnTypes(t *testing.T) {
	for _, c := range []struct {
		m    mysqlColumn
		typ  string
		mod  int32
		desc string
	}{
		{mysqlColumn{dataType: "int", columnType: "int(11)"}, "int4", -1, "int"},
		{mysqlColumn{dataType: "int", columnType: "int(10) unsigned"}, "int8", -1, "int unsigned"},
		{mysqlColumn{dataType: "bigint", columnType: "bigint(20)"}, "int8", -1, "bigint"},
		{mysqlColumn{dataType: "bigint", columnType: "bigint(20) unsigned"}, "numeric", -1, "bigint unsigned"},
		{mysqlColumn{dataType: "smallint", columnType: "smallint(6)"}, "int2", -1, "smallint"},
		{mysqlColumn{dataType: "tinyint", columnType: "tinyint(1)"}, "int2", -1, "tinyint(1)"},
		{mysqlColumn{dataType: "mediumint", columnType: "mediumint(9)"}, "int4", -1, "mediumint"},
		{mysqlColumn{dataType: "varchar", columnType: "varchar(20)", charLen: 20}, "varchar", 24, "varchar(20)"},
		{mysqlColumn{dataType: "char", columnType: "char(4)", charLen: 4}, "bpchar", 8, "char(4)"},
		{mysqlColumn{dataType: "longtext", columnType: "longtext"}, "text", -1, "longtext"},
		{mysqlColumn{dataType: "decimal", columnType: "decimal(10,2)", prec: 10, scale: 2}, "numeric", 10<<16 | 2 + 4, "decimal(10,2)"},
		{mysqlColumn{dataType: "double", columnType: "double"}, "float8", -1, "double"},
		{mysqlColumn{dataType: "float", columnType: "float"}, "float4", -1, "float"},
		{mysqlColumn{dataType: "datetime", columnType: "datetime"}, "timestamp", -1, "datetime"},
		{mysqlColumn{dataType: "datetime", columnType: "datetime(3)", timePrec: 3}, "timestamp", 3, "datetime(3)"},
		{mysqlColumn{dataType: "timestamp", columnType: "timestamp"}, "timestamp", -1, "timestamp"},
		{mysqlColumn{dataType: "date", columnType: "date"}, "date", -1, "date"},
		{mysqlColumn{dataType: "time", columnType: "time"}, "time", -1, "time"},
		{mysqlColumn{dataType: "blob", columnType: "blob"}, "bytea", -1, "blob"},
		{mysqlColumn{dataType: "varbinary", columnType: "varbinary(8)"}, "bytea", -1, "varbinary"},
		{mysqlColumn{dataType: "json", columnType: "json"}, "json", -1, "json (MySQL 8)"},
		{mysqlColumn{dataType: "enum", columnType: "enum('a','b')"}, "text", -1, "enum"},
		{mysqlColumn{dataType: "geometry", columnType: "geometry"}, "text", -1, "geometry"},
	} {
		typ, mod := pgType(c.m)
		if typ != c.typ || mod != c.mod {
			t.Errorf("%s: pgType = %s, %d; want %s, %d", c.desc, typ, mod, c.typ, c.mod)
		}
	}
}

// Defaults read as pg_get_expr shows PostgreSQL's, from MariaDB's and
// MySQL 8's spellings in information_schema.COLUMNS.
func TestPGDefaultSpellsDefaultsAsPostgreSQL(t *testing.T) {
	null := sql.NullString{}
	str := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	for _, c := range []struct {
		dflt    sql.NullString
		extra   string
		typ     string
		mariadb bool
		want    string
	}{
		{null, "", "int4", true, ""},
		{str("NULL"), "", "int4", true, ""},
		{str("'NULL'"), "", "varchar", true, "'NULL'::character varying"},
		{str("'untitled'"), "", "varchar", true, "'untitled'::character varying"},
		{str("'it''s'"), "", "text", true, "'it''s'::text"},
		{str("'2020-01-02'"), "", "date", true, "'2020-01-02'::date"},
		{str("0.00"), "", "numeric", true, "0.00"},
		{str("1"), "", "int2", true, "1"},
		{str("-1"), "", "int4", true, "'-1'::integer"},
		{str("5000000000"), "", "int8", true, "'5000000000'::bigint"},
		{str("current_timestamp()"), "", "timestamp", true, "CURRENT_TIMESTAMP"},
		{str("current_timestamp(3)"), "", "timestamp", true, "CURRENT_TIMESTAMP(3)"},
		{str("curdate()"), "", "date", true, "CURRENT_DATE"},
		{str("(1 + `a`)"), "", "int4", true, "(1 + a)"},
		{str("untitled"), "", "varchar", false, "'untitled'::character varying"},
		{str("12"), "", "varchar", false, "'12'::character varying"},
		{str("-2.5"), "", "numeric", false, "'-2.5'::numeric"},
		{str("CURRENT_TIMESTAMP"), "DEFAULT_GENERATED", "timestamp", false, "CURRENT_TIMESTAMP"},
	} {
		m := mysqlColumn{dflt: c.dflt, extra: c.extra}
		if got := pgDefault(m, c.typ, c.mariadb); got != c.want {
			t.Errorf("pgDefault(%v, %s, mariadb=%v) = %q, want %q", c.dflt, c.typ, c.mariadb, got, c.want)
		}
	}
}

// Expressions keep their text but PostgreSQL's quoting of identifiers,
// without the database's qualifier; string literals stay as they are.
func TestPGExprRequotesIdentifiers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"`price` >= 0", "price >= 0"},
		{"json_valid(`meta`)", "json_valid(meta)"},
		{"`Mixed` <> 'a`b' and `select` = \"x\"", `"Mixed" <> 'a` + "`b'" + ` and "select" = "x"`},
		{"`we``ird` > 'it''s'", `"we` + "`" + `ird" > 'it''s'`},
		{"select `db`.`books`.`id` AS `id` from `db`.`books`", "select books.id AS id from books"},
		{"select `db`.`t`.`x` from `other`.`t`", "select t.x from other.t"},
	} {
		if got := pgExpr(c.in, "db"); got != c.want {
			t.Errorf("pgExpr(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Relation names taken by PostgreSQL's namespace get a number, as
// PostgreSQL numbers a serial's sequence or an index.
func TestUniqueNumbersTakenNames(t *testing.T) {
	r := &schemaReader{names: map[string]bool{"t_id_seq": true}}
	var got []string
	for range 3 {
		got = append(got, r.unique("t_id_seq"))
	}
	if fmt.Sprint(got) != "[t_id_seq1 t_id_seq2 t_id_seq3]" {
		t.Fatalf("unique = %v", got)
	}
}

// The ? a PostgreSQL client's $n became on the way to a MySQL node are
// numbered again, in order, outside literals, quoted names and comments.
func TestDollarPlaceholdersNumbersQuestionMarks(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT a FROM pg_class WHERE oid = ? AND relname = ?", "SELECT a FROM pg_class WHERE oid = $1 AND relname = $2"},
		{"SELECT '?', \"a?\" FROM t WHERE x = ? -- ?\n AND y = ? /* ? */ AND z = ?",
			"SELECT '?', \"a?\" FROM t WHERE x = $1 -- ?\n AND y = $2 /* ? */ AND z = $3"},
		{"SELECT 'it''s ?' WHERE a = ?", "SELECT 'it''s ?' WHERE a = $1"},
		{"SELECT ? /* open", "SELECT $1 /* open"},
	} {
		if got := dollarPlaceholders(c.in); got != c.want {
			t.Errorf("dollarPlaceholders(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
