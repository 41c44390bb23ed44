package mysql

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
)

// The backstop reads one statement per text, its kind and the clauses the
// backend acts on, without a server and with the gate off.
func TestInspectReadsKindAndClauses(t *testing.T) {
	cases := []struct {
		sql                           string
		text, kind                    string
		read, ddl, returning, ordered bool
		writes                        string
	}{
		{sql: "SELECT 1 ; -- done", text: "SELECT 1", kind: "SELECT", read: true},
		{sql: "  (SELECT a FROM t) ORDER BY a # c", text: "  (SELECT a FROM t) ORDER BY a", kind: "(", read: true, ordered: true},
		{sql: "SELECT a FROM (SELECT a FROM t ORDER BY a) x", text: "SELECT a FROM (SELECT a FROM t ORDER BY a) x", kind: "SELECT", read: true},
		{sql: "WITH c AS (SELECT 1) DELETE FROM t", text: "WITH c AS (SELECT 1) DELETE FROM t", kind: "WITH"},
		{sql: "INSERT IGNORE INTO `Db`.`My``T` VALUES (1) RETURNING id", text: "INSERT IGNORE INTO `Db`.`My``T` VALUES (1) RETURNING id",
			kind: "INSERT", returning: true, writes: "my`t"},
		{sql: "delete from db.T where a = 'x;y'", text: "delete from db.T where a = 'x;y'", kind: "DELETE", writes: "t"},
		{sql: "CREATE INDEX i ON t (a)", text: "CREATE INDEX i ON t (a)", kind: "CREATE", ddl: true},
		{sql: "TRUNCATE t", text: "TRUNCATE t", kind: "TRUNCATE", ddl: true},
	}
	for _, c := range cases {
		info, err := inspect(c.sql)
		if err != nil || info.forbidden != "" {
			t.Errorf("inspect(%q): %v, forbidden %q", c.sql, err, info.forbidden)
			continue
		}
		w := ""
		if len(info.analysis.Writes) == 1 {
			w = info.analysis.Writes[0]
		}
		if info.text != c.text || info.kind != c.kind || info.read != c.read || info.ddl != c.ddl ||
			info.returning != c.returning || info.ordered != c.ordered || w != c.writes {
			t.Errorf("inspect(%q) = %+v", c.sql, info)
		}
		if info.returning && !strings.HasPrefix(info.text[info.returningAt:], "RETURNING") {
			t.Errorf("inspect(%q): RETURNING at %d", c.sql, info.returningAt)
		}
	}
}

func TestInspectForbidsWhatRelchainManages(t *testing.T) {
	for sql, reason := range map[string]string{
		"CREATE TEMPORARY TABLE x (a INT)":      "temporary tables",
		"DROP PROCEDURE p":                      "DROP PROCEDURE is not allowed",
		"RENAME USER a TO b":                    "RENAME USER is not allowed",
		"SET autocommit = 1":                    "statement kind SET",
		"SELECT a INTO OUTFILE '/tmp/x' FROM t": "server files (OUTFILE)",
		"START TRANSACTION":                     "statement kind START",
	} {
		info, err := inspect(sql)
		if err != nil || !strings.Contains(info.forbidden, reason) {
			t.Errorf("inspect(%q) = forbidden %q, %v; want %q", sql, info.forbidden, err, reason)
		}
	}
}

func TestInspectCountsStatements(t *testing.T) {
	for sql, class := range map[string]backend.Class{
		" ; -- nothing":          backend.ClassInvalid,
		"SELECT 1; SELECT 2":     backend.ClassInvalid,
		"SELECT 1 --1; SELECT 2": backend.ClassInvalid, // "--1" is no comment in MySQL
		"SELECT 'a;":             backend.ClassSyntax,
	} {
		_, err := inspect(sql)
		if be := backend.AsError(err); be == nil || be.Class != class {
			t.Errorf("inspect(%q) = %v, want class %v", sql, err, class)
		}
	}
	if _, err := inspect("SELECT 1 -- 1; SELECT 2"); err != nil {
		t.Errorf("a comment hides the second statement: %v", err)
	}
}
