package pgdialect

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mapCatalog is a Catalog of fixed tables.
type mapCatalog map[string][]Column

func (m mapCatalog) Columns(table string) ([]Column, bool) {
	c, ok := m[table]
	return c, ok
}

var testCatalog = mapCatalog{
	"t": {
		{Name: "id", Type: tInt4, NotNull: true},
		{Name: "b", Type: tInt8},
		{Name: "s", Type: Type{Name: "varchar", Typmod: 24}},
		{Name: "x", Type: tText, Default: true},
	},
}

// A placeholder used twice binds twice, in the order the '?' appear.
func TestPlaceholdersBindInTextOrder(t *testing.T) {
	tr, err := Translate("SELECT id FROM t WHERE b = $2 OR id = $1 OR b = $2", testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(tr.Statements[0], "?"); got != 3 {
		t.Fatalf("%d placeholders in %s, want 3", got, tr.Statements[0])
	}
	if want := []int{1, 0, 1}; len(tr.Args[0]) != 3 || tr.Args[0][0] != want[0] || tr.Args[0][1] != want[1] || tr.Args[0][2] != want[2] {
		t.Errorf("Args %v, want %v", tr.Args[0], want)
	}
	if len(tr.Params) != 2 || tr.Params[0] != tInt4 || tr.Params[1] != tInt8 {
		t.Errorf("Params %v, want int4 and int8 from their contexts", tr.Params)
	}
}

// UPDATE ... RETURNING is the UPDATE and a SELECT of the same rows, each
// with its own bindings.
func TestUpdateReturningIsTwoStatements(t *testing.T) {
	tr, err := Translate("UPDATE t SET b = b + $1 WHERE id = $2 RETURNING b, s", testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Statements) != 2 || !strings.HasPrefix(tr.Statements[0], "UPDATE ") || !strings.HasPrefix(tr.Statements[1], "SELECT ") {
		t.Fatalf("statements %q", tr.Statements)
	}
	if len(tr.Args[0]) != 2 || len(tr.Args[1]) != 1 || tr.Args[1][0] != 1 {
		t.Errorf("Args %v: the SELECT binds $2 only", tr.Args)
	}
	if len(tr.Columns) != 2 || tr.Columns[0].Type != tInt8 || tr.Columns[1].Type.Name != "varchar" {
		t.Errorf("columns %v", tr.Columns)
	}
	if _, err := Translate("UPDATE t SET id = id + 1 WHERE id = 1 RETURNING id", testCatalog); !isRefusal(err) {
		t.Errorf("SET of a column the WHERE reads with RETURNING: %v, want a refusal", err)
	}
}

// PostgreSQL's ascending order puts NULLs last: a nullable key gets an
// IS NULL key first, a NOT NULL column none.
func TestOrderByNullsLast(t *testing.T) {
	tr, err := Translate("SELECT id FROM t ORDER BY b, id", testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tr.Statements[0], "ORDER BY (`t`.`b` IS NULL), `t`.`b`, `t`.`id`") || !tr.Ordered {
		t.Errorf("%s", tr.Statements[0])
	}
}

// || is CONCAT (MariaDB reads || as OR); text literals carry the binary
// NO PAD collation; an INSERT names the columns it leaves to NULL.
func TestTextTranslation(t *testing.T) {
	tr, err := Translate("INSERT INTO t (id, s) VALUES (1, 'a' || 'it''s \\ ok')", testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	want := "INSERT INTO `t` (`id`, `s`, `b`) VALUES (1, CONCAT(_utf8mb4'a' COLLATE utf8mb4_nopad_bin, _utf8mb4'it''s \\\\ ok' COLLATE utf8mb4_nopad_bin), NULL)"
	if tr.Statements[0] != want {
		t.Errorf("got  %s\nwant %s", tr.Statements[0], want)
	}
}

// CREATE TABLE keeps each column's PostgreSQL type in its COMMENT, which
// parseTypeString reads back.
func TestCreateTableKeepsTypes(t *testing.T) {
	tr, err := Translate("CREATE TABLE n (k varchar(768) PRIMARY KEY, v varchar(7) NOT NULL, m numeric(12,2) DEFAULT 1.5, f bool)", testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Statements[0]
	for _, want := range []string{"`k` VARCHAR(768) COLLATE utf8mb4_nopad_bin NOT NULL COMMENT 'pg:varchar(768)'", "COMMENT 'pg:varchar(7)'",
		"`m` DECIMAL(12,2) DEFAULT (1.5) COMMENT 'pg:numeric(12,2)'", "PRIMARY KEY (`k`)", "ENGINE=InnoDB"} {
		if !strings.Contains(s, want) {
			t.Errorf("%s\nlacks %s", s, want)
		}
	}
	for _, typ := range []string{"int4", "varchar(7)", "numeric(12,2)", "timestamptz"} {
		got, ok := parseTypeString(typ)
		if !ok || typeString(got) != typ {
			t.Errorf("parseTypeString(%q) = %v %v", typ, got, ok)
		}
	}
}

// CREATE TABLE writes the text literals of DEFAULT and CHECK without an
// introducer (MariaDB prints an introduced literal of a stored expression
// unescaped and reads the print again), and every CHECK in parentheses.
func TestCreateTableStoredLiterals(t *testing.T) {
	tr, err := Translate(`CREATE TABLE d (s text DEFAULT 'it''s \ é', b bool CHECK (b), CHECK (s <> 'a\b' AND s LIKE '%\%'))`, testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Statements[0]
	for _, want := range []string{"DEFAULT ('it''s \\\\ é' COLLATE utf8mb4_nopad_bin)", "CHECK (`d`.`b`)",
		"CHECK (((`d`.`s` <> 'a\\\\b' COLLATE utf8mb4_nopad_bin) AND (`d`.`s` LIKE '%\\\\%' COLLATE utf8mb4_nopad_bin)))"} {
		if !strings.Contains(s, want) {
			t.Errorf("%s\nlacks %s", s, want)
		}
	}
	if strings.Contains(s, "_utf8mb4") {
		t.Errorf("%s\nhas an introduced literal", s)
	}
}

// Literals are read as PostgreSQL's input functions read them.
func TestLiterals(t *testing.T) {
	for in, want := range map[string]string{"1.50": "2", "15e-1": "1", "1.5e1": "0", "7": "0"} {
		if got := literalScale(in); want != string(rune('0'+got)) {
			t.Errorf("literalScale(%q) = %d, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"t": "TRUE", "yes": "TRUE", "on": "TRUE", "of": "FALSE", "0": "FALSE", " False ": "FALSE"} {
		if got, _, err := boolLiteral(in, tBool); err != nil || got != want {
			t.Errorf("boolLiteral(%q) = %q %v, want %s", in, got, err, want)
		}
	}
	if _, _, err := boolLiteral("o", tBool); !errorCode(err, "22P02") {
		t.Errorf("boolLiteral(o): %v, want 22P02", err)
	}
	if _, _, err := literalAs("2147483648", tInt4, false); !errorCode(err, "22003") {
		t.Errorf("int4 2147483648: %v, want 22003", err)
	}
}

// Every refusal names the dialect and the construct; the documentation's
// list is not empty.
func TestRefusalsNameTheConstruct(t *testing.T) {
	for _, sql := range []string{"SELECT 1 UNION SELECT 2", "CREATE SEQUENCE q", "SELECT id FROM t FOR UPDATE", "SELECT x FROM t ORDER BY x"} {
		_, err := Translate(sql, testCatalog)
		var e *Error
		if !errors.As(err, &e) || e.Code != "0A000" || !strings.HasPrefix(e.Message, "the postgres dialect on MariaDB does not support ") {
			t.Errorf("%s: %v", sql, err)
		}
	}
	if len(Refusals()) == 0 || Version != 3 {
		t.Errorf("Refusals %d, Version %d", len(Refusals()), Version)
	}
}

func isRefusal(err error) bool { return errorCode(err, "0A000") }

func errorCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// docs/dialects.md lists exactly what the translation refuses (Refusals),
// between its mariadb-refusals markers.
func TestDialectsDocListsTheRefusals(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "dialects.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	const open, end = "<!-- mariadb-refusals:begin -->\n", "<!-- mariadb-refusals:end -->"
	begin, stop := strings.Index(text, open), strings.Index(text, end)
	if begin < 0 || stop < begin {
		t.Fatal("docs/dialects.md has no mariadb-refusals markers")
	}
	var want strings.Builder
	for _, r := range Refusals() {
		want.WriteString("- " + r + "\n")
	}
	if got := text[begin+len(open) : stop]; got != want.String() {
		t.Errorf("docs/dialects.md lists MariaDB's refusals\n%s\nRefusals() says\n%s\ncopy the latter between the markers", got, want.String())
	}
}
