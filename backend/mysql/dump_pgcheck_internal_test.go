package mysql

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/pgcatalog"
)

// checkTable is a table of every type the dialect stores on MariaDB, to
// read CHECK texts against.
func checkTable(stored ...string) *pgDumpTable {
	t := &pgDumpTable{Table: pgcatalog.Table{Name: "t", PrimaryKey: []string{"bal"}}, taken: map[string]bool{}, stored: stored}
	for _, c := range []struct {
		name string
		typ  pgdialect.Type
	}{
		{"bal", pgdialect.Type{Name: "int8", Typmod: -1}}, {"a", pgdialect.Type{Name: "int4", Typmod: -1}},
		{"b", pgdialect.Type{Name: "int2", Typmod: -1}}, {"n", pgdialect.Type{Name: "numeric", Typmod: 10<<16 | 2 + 4}},
		{"s", pgdialect.Type{Name: "text", Typmod: -1}}, {"e", pgdialect.Type{Name: "bool", Typmod: -1}},
		{"d", pgdialect.Type{Name: "date", Typmod: -1}}, {"tz", pgdialect.Type{Name: "timestamptz", Typmod: -1}},
		{"x", pgdialect.Type{Name: "bytea", Typmod: -1}},
	} {
		t.Columns = append(t.Columns, pgcatalog.Column{Name: c.name, Type: c.typ.Name, Typmod: c.typ.Typmod})
		t.types = append(t.types, c.typ)
	}
	t.Checks = make([]pgcatalog.Check, len(stored))
	return t
}

// MariaDB's text of a CHECK the dialect translated (as MariaDB 10.11
// prints it in information_schema) is written back as PostgreSQL's SQL
// whose translation is that CHECK again, with PostgreSQL's default name.
func TestPgChecksReadMariaDBsTextBack(t *testing.T) {
	for _, c := range []struct{ stored, pg, name string }{
		{"`bal` >= 0", "(bal >= 0)", "t_bal_check"},
		{"`a` between 1 and 10", "(a BETWEEN 1 AND 10)", "t_a_check"},
		{"`a` not between -1 and 10", "(a NOT BETWEEN -1 AND 10)", "t_a_check"},
		{"`s` in ('a' collate utf8mb4_nopad_bin,'b' collate utf8mb4_nopad_bin)", "(s IN ('a', 'b'))", "t_s_check"},
		{"char_length(`s`) <= 10", "(length(s) <= 10)", "t_s_check"},
		{"(`a` + `b`) * 4294967296 DIV 4294967296 < 100", "((a + b) < 100)", "t_check"},
		{"(`b` + `b`) * 281474976710656 DIV 281474976710656 < 5", "((b + b) < 5)", "t_b_check"},
		{"`a` MOD 2 * 4294967296 DIV 4294967296 = 0", "((a % 2) = 0)", "t_a_check"},
		{"`a` DIV 2 * 4294967296 DIV 4294967296 > 1", "((a / 2) > 1)", "t_a_check"},
		{"`bal` DIV 2 > 0", "((bal / 2) > 0)", "t_bal_check"},
		{"-`a` * 4294967296 DIV 4294967296 < 5", "((- a) < 5)", "t_a_check"},
		{"`n` > -1.25", "(n > -1.25)", "t_n_check"},
		{"`e` = 0", "(e = false)", "t_e_check"},
		{"`e` is true", "(e IS TRUE)", "t_e_check"},
		{"`d` > DATE'2020-01-01'", "(d > '2020-01-01')", "t_d_check"},
		{"`tz` > TIMESTAMP'2020-01-01 00:00:00'", "(tz > '2020-01-01 00:00:00+00')", "t_tz_check"},
		{"`x` <> X'00'", `(x <> '\x00')`, "t_x_check"},
		{"concat(`s`,'x' collate utf8mb4_nopad_bin) <> 'yx' collate utf8mb4_nopad_bin", "((s || 'x') <> 'yx')", "t_s_check"},
		{"coalesce(`a`,0) >= 0", "(coalesce(a, 0) >= 0)", "t_a_check"},
		{"`s` is not null or `b` is null", "((s IS NOT NULL) OR (b IS NULL))", "t_check"},
		{"`a` = 1 or `b` = 2 and `n` = 3", "((a = 1) OR ((b = 2) AND (n = 3)))", "t_check"},
		{"`s` like 'a%' collate utf8mb4_nopad_bin", "(s LIKE 'a%')", "t_s_check"},
		// Quotes and backslashes as MariaDB prints a bare literal: \' and \\.
		{"`s` <> 'it\\'s' collate utf8mb4_nopad_bin", "(s <> 'it''s')", "t_s_check"},
		{"`s` <> 'a\\\\b\\\\\\'' collate utf8mb4_nopad_bin", "(s <> 'a\\b\\''')", "t_s_check"},
		{"`s` like '%\\\\%%' collate utf8mb4_nopad_bin", "(s LIKE '%\\%%')", "t_s_check"},
		{"`s` <> 'a\\nb\\té€' collate utf8mb4_nopad_bin", "(s <> 'a\nb\té€')", "t_s_check"},
		{"`e`", "(e)", "t_e_check"},
	} {
		tab := checkTable(c.stored)
		if err := pgChecks(tab); err != nil {
			t.Errorf("%s: %v", c.stored, err)
			continue
		}
		if k := tab.Checks[0]; k.Expr != c.pg || k.Name != c.name {
			t.Errorf("%s: written as CONSTRAINT %s CHECK %s, want %s CHECK %s", c.stored, k.Name, k.Expr, c.name, c.pg)
		}
	}
}

// A CHECK text the reverse translation does not read, or whose
// PostgreSQL text would translate to another constraint, is an error
// naming it, never another constraint.
func TestPgChecksRefuseWhatTheyCannotWriteBack(t *testing.T) {
	for _, stored := range []string{
		"cast(round(`n`,0) as signed) * 4294967296 DIV 4294967296 > 0", // a cast
		"`s` <> _utf8mb4'a' collate utf8mb4_nopad_bin",                 // an introduced literal: the translation writes none
		"`s` <> 'a?' collate utf8mb4_nopad_bin",                        // '?': maybe a character beyond the BMP
		"`s` <> 'a\\0' collate utf8mb4_nopad_bin",                      // NUL
		"`s` <> 'a\\' collate utf8mb4_nopad_bin",                       // unterminated
		"`a` + `b` < 100",                                              // no overflow check: not the translation of (a + b) < 100
		"`n` DIV 2 > 0",                                                // DIV of a numeric
		"`missing` > 0",                                                // no such column
		"case when `a` > 0 then 1 else 0 end = 1",
	} {
		tab := checkTable(stored)
		err := pgChecks(tab)
		if err == nil || !errors.Is(err, errCheckText) && !strings.Contains(err.Error(), "translate") {
			t.Errorf("%s: %v, want it refused", stored, err)
		}
	}
	tab := checkTable("`a` > 0", "`a` > 1")
	if err := pgChecks(tab); err != nil || tab.Checks[0].Name != "t_a_check" || tab.Checks[1].Name != "t_a_check1" {
		t.Errorf("two CHECKs on a: %+v, %v; want t_a_check and t_a_check1", tab.Checks, err)
	}
}

// A default as MariaDB shows it (COLUMN_DEFAULT) is PostgreSQL's constant
// of the column's type; one that is not a constant is refused.
func TestPgDumpDefault(t *testing.T) {
	typ := func(name string, mod int32) pgdialect.Type { return pgdialect.Type{Name: name, Typmod: mod} }
	for _, c := range []struct {
		raw  string
		typ  pgdialect.Type
		want string
	}{
		{"NULL", typ("int4", -1), ""},
		{"-5", typ("int4", -1), "-5"},
		{"1.500", typ("numeric", 12<<16|3+4), "1.500"},
		{"1.5", typ("float8", -1), "1.5"},
		{"1", typ("bool", -1), "true"},
		{"0", typ("bool", -1), "false"},
		{"'2020-01-02'", typ("date", -1), "'2020-01-02'"},
		{"'2020-01-02 03:04:05.500000'", typ("timestamp", -1), "'2020-01-02 03:04:05.5'"},
		{"'2020-01-02 01:04:05.000000'", typ("timestamptz", -1), "'2020-01-02 01:04:05+00'"},
		{"X'00ff'", typ("bytea", -1), `'\x00ff'`},
		{"(_utf8mb4'its  x' collate utf8mb4_nopad_bin)", typ("text", -1), "'its  x'"},
		{"'ab'", typ("varchar", 9), "'ab'"},
		{`('it\'s \\ x' collate utf8mb4_nopad_bin)`, typ("text", -1), `'it''s \ x'`},
		{"'a''b'", typ("varchar", 9), "'a''b'"},
		{`'a\\b\%\n'`, typ("text", -1), "'a\\b\\%\n'"},
	} {
		got, err := pgDumpDefault(sql.NullString{String: c.raw, Valid: true}, c.typ)
		if err != nil || got != c.want {
			t.Errorf("default %s of %s = %q, %v; want %q", c.raw, c.typ.Name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		raw string
		typ pgdialect.Type
	}{
		{"current_timestamp()", typ("timestamp", -1)}, {"2", typ("bool", -1)}, {"1.5", typ("int4", -1)},
		{"'a?'", typ("varchar", 9)}, {"'a\\0'", typ("text", -1)}, {"X'00'", typ("text", -1)},
	} {
		if got, err := pgDumpDefault(sql.NullString{String: c.raw, Valid: true}, c.typ); err == nil {
			t.Errorf("default %s of %s = %q, want it refused", c.raw, c.typ.Name, got)
		}
	}
}
