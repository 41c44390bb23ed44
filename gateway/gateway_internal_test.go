package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/pgwire"
)

func TestSplitKeepsLiteralsAndComments(t *testing.T) {
	for _, c := range []struct {
		sql    string
		dollar bool
		want   []string
	}{
		{"SELECT 1; SELECT 2", false, []string{"SELECT 1", "SELECT 2"}},
		{"SELECT ';' ; SELECT \"a;b\"", false, []string{"SELECT ';'", `SELECT "a;b"`}},
		{"SELECT 'it''s; fine'", false, []string{"SELECT 'it''s; fine'"}},
		{"SELECT E'\\';' ; SELECT 1", false, []string{"SELECT E'\\';'", "SELECT 1"}},
		{"SELECT 1 -- a; comment\n; SELECT 2", false, []string{"SELECT 1 -- a; comment", "SELECT 2"}},
		{"SELECT /* a; /* nested; */ b */ 1", false, []string{"SELECT /* a; /* nested; */ b */ 1"}},
		{"SELECT $x$ a;b $x$; SELECT 2", true, []string{"SELECT $x$ a;b $x$", "SELECT 2"}},
		{"SELECT `a;b` FROM t", false, []string{"SELECT `a;b` FROM t"}},
		{" ; ;; -- only\n", false, nil},
	} {
		got, err := split(c.sql, c.dollar)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("split(%q) = %q, %v; want %q", c.sql, got, err, c.want)
		}
	}
	for _, bad := range []string{"SELECT 'open", "SELECT /* open", `SELECT "open`} {
		if _, err := split(bad, true); !errors.Is(err, errUnterminated) {
			t.Errorf("split(%q): %v, want errUnterminated", bad, err)
		}
	}
}

func TestClassify(t *testing.T) {
	for sql, want := range map[string]kind{
		"select 1":                             kindRead,
		"  /* c */ (SELECT 1)":                 kindRead,
		"WITH x AS (SELECT 1) SELECT * FROM x": kindRead,
		"WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x": kindWrite,
		"WITH x AS (SELECT 'delete') SELECT * FROM x":           kindRead,
		"insert into t values (1)":                              kindWrite,
		"CREATE TABLE t (a int)":                                kindWrite,
		"begin":                                                 kindBegin,
		"START TRANSACTION READ ONLY":                           kindBegin,
		"END":                                                   kindCommit,
		"rollback":                                              kindRollback,
		"ROLLBACK TO SAVEPOINT a":                               kindRollbackTo,
		"ROLLBACK TRANSACTION TO a":                             kindRollbackTo,
		"SAVEPOINT a":                                           kindSavepoint,
		"release savepoint a":                                   kindRelease,
		"set application_name = 'x'":                            kindSet,
		"RESET ALL":                                             kindSet,
		"SHOW TimeZone":                                         kindShow,
		"select  VERSION ( ) ;":                                 kindVersion,
		"DISCARD ALL":                                           kindNoop,
		"vacuum analyze pgbench_branches":                       kindVacuum,
		"/* x */ ANALYZE t":                                     kindVacuum,
		"VACUUM":                                                kindVacuum,
		"COPY t FROM STDIN":                                     kindCopy,
	} {
		if got := classify(sql); got != want {
			t.Errorf("classify(%q) = %d, want %d", sql, got, want)
		}
	}
}

func TestPlaceholders(t *testing.T) {
	sql := `UPDATE t SET a = $2, s = '$1 stays' WHERE id = $1 AND b$1 = $1 -- $3`
	got, order := placeholders(sql, dialect.PlaceholdersNumbered)
	if want := `UPDATE t SET a = ?2, s = '$1 stays' WHERE id = ?1 AND b$1 = ?1 -- $3`; got != want || order != nil {
		t.Errorf("numbered: %q %v", got, order)
	}
	got, order = placeholders(sql, dialect.PlaceholdersOrdered)
	if want := `UPDATE t SET a = ?, s = '$1 stays' WHERE id = ? AND b$1 = ? -- $3`; got != want || !slices.Equal(order, []int{2, 1, 1}) {
		t.Errorf("positional: %q %v", got, order)
	}
	if got, order := placeholders(sql, dialect.PlaceholdersDollar); got != sql || order != nil {
		t.Errorf("dollar: %q %v", got, order)
	}
	if got := clientParams([]string{"int8", "text", "int8"}, []int{2, 1, 1}); !slices.Equal(got, []string{"text", "int8"}) {
		t.Errorf("clientParams: %q", got)
	}
}

func TestCommandTag(t *testing.T) {
	for _, c := range []struct {
		sql      string
		affected int64
		rows     int
		want     string
	}{
		{"INSERT INTO t VALUES (1), (2)", 2, 0, "INSERT 0 2"},
		{"update t set a = 1", 3, 0, "UPDATE 3"},
		{"DELETE FROM t RETURNING *", 1, 1, "DELETE 1"},
		{"SELECT * FROM t", 0, 4, "SELECT 4"},
		{"CREATE TABLE IF NOT EXISTS t (a int)", 0, 0, "CREATE TABLE"},
		{"create unique index i on t (a)", 0, 0, "CREATE INDEX"},
		{"DROP TABLE IF EXISTS t", 0, 0, "DROP TABLE"},
		{"CREATE OR REPLACE VIEW v AS SELECT 1", 0, 0, "CREATE VIEW"},
	} {
		if got := commandTag(c.sql, c.affected, c.rows); got != c.want {
			t.Errorf("commandTag(%q) = %q, want %q", c.sql, got, c.want)
		}
	}
}

func TestParseSet(t *testing.T) {
	for sql, want := range map[string][2]string{
		"SET application_name = 'psql'":     {"application_name", "psql"},
		"set SESSION DateStyle TO ISO":      {"datestyle", "ISO"},
		"SET relchain.min_height = 42;":     {"relchain.min_height", "42"},
		"SET TIME ZONE 'UTC'":               {"timezone", "UTC"},
		`SET search_path = "$user", public`: {"search_path", `"$user", public`},
	} {
		name, value, err := parseSet(sql)
		if err != nil || name != want[0] || value != want[1] {
			t.Errorf("parseSet(%q) = %q %q %v, want %q", sql, name, value, err, want)
		}
	}
	if _, _, err := parseSet("SET nothing"); err == nil {
		t.Error("SET without a value was accepted")
	}
	s := &session{g: &Gateway{}, settings: map[string]string{}}
	if _, err := s.set("SET relchain.min_height = -1"); err == nil {
		t.Error("a negative min_height was accepted")
	}
	if _, err := s.set("SET relchain.min_height = 7"); err != nil || s.minHeight != 7 {
		t.Errorf("min_height: %d, %v", s.minHeight, err)
	}
	if _, err := s.set("RESET relchain.min_height"); err != nil || s.minHeight != 0 {
		t.Errorf("RESET min_height: %d, %v", s.minHeight, err)
	}
	if _, err := s.show("SHOW no_such_thing"); err == nil {
		t.Error("SHOW of an unknown setting answered")
	}
}

func TestExprType(t *testing.T) {
	cols := map[string]string{"bal": "int8", "price": "float8", "name": "text"}
	for expr, want := range map[string]string{
		"COUNT(*)": "int8", "count(distinct name)": "int8", "SUM(bal)": "int8", "sum(price)": "float8",
		"SUM(bal + 1)": "", "max(name)": "text", "AVG(bal)": "float8", "42": "int8", "4.2": "float8",
		"CAST(name AS INTEGER)": "int8", "t.bal": "int8", "lower(name)": "text", "bal * 2": "",
	} {
		if got := exprType(expr, cols); got != want {
			t.Errorf("exprType(%q) = %q, want %q", expr, got, want)
		}
	}
	if got := stripAlias("SUM(bal) AS total"); got != "SUM(bal)" {
		t.Errorf("stripAlias: %q", got)
	}
}

func TestWireValues(t *testing.T) {
	names, types := []string{"i", "f", "b", "raw", "ts", "x", "arr"}, []string{"int8", "float8", "bool", "bytea", "timestamp", "", "_int4"}
	cols := wireColumns(names, types, nil, false)
	if cols[5].OID != 25 || cols[6].OID != 25 || cols[0].OID != 20 {
		t.Fatalf("columns %+v", cols)
	}
	// On a PostgreSQL network arrays are announced as themselves, with
	// the type modifiers the node reported.
	if native := wireColumns(names, types, []int32{-1, -1, -1, -1, 3, -1, -1}, true); native[6].OID != 1007 || native[5].OID != 25 ||
		!native[4].HasTypmod || native[4].Typmod != 3 || native[0].HasTypmod {
		t.Fatalf("native columns %+v", native)
	}
	row := []any{json.Number("7"), "NaN", json.Number("1"), "AAH/", "2026-11-25 13:14:15.5", json.Number("3"), "{1,2}"}
	if err := wireRows(cols, [][]any{row}); err != nil {
		t.Fatal(err)
	}
	if row[0] != int64(7) || row[1] != "NaN" || row[2] != true || string(row[3].([]byte)) != "\x00\x01\xff" || row[4] != "2026-11-25 13:14:15.5" || row[5] != "3" {
		t.Fatalf("converted %#v", row)
	}
	if err := wireRows(cols[:1], [][]any{{"seven"}}); err == nil {
		t.Error("a non-integer in an integer column converted")
	}
}

func TestSQLStates(t *testing.T) {
	for _, c := range []struct {
		code uint32
		f    *api.FailureData
		want string
	}{
		{api.CodeConflict, nil, "40001"},
		{api.CodeForbidden, nil, "0A000"},
		{api.CodeUnauthorized, nil, "42501"},
		{api.CodeSyntax, nil, "42601"},
		{api.CodeExecFailed, &api.FailureData{Class: "constraint", SQLState: "23505"}, "23505"},
		{api.CodeExecFailed, &api.FailureData{Class: "constraint"}, "23000"},
		{api.CodeTooLarge, nil, "54000"},
		{api.CodeQuarantined, nil, "57014"},
		{api.CodeValidatorRefused, nil, "22023"},
		{api.CodeMalformed, nil, "XX000"},
	} {
		e := txFailure(&client.Result{Code: c.code, Failure: c.f, Error: "x"})
		if e.Code != c.want {
			t.Errorf("code %d %+v: SQLSTATE %s, want %s", c.code, c.f, e.Code, c.want)
		}
	}
	// A network over several engines records a failure's class; the
	// client is told the answering node's own code when it is of that
	// class, the class otherwise.
	classOnly := &api.FailureData{Class: "data", SQLState: "22000"}
	for _, c := range []struct {
		own  *api.ExecInfo
		want string
	}{{&api.ExecInfo{SQLState: "22011", Class: "data"}, "22011"}, {&api.ExecInfo{SQLState: "23505", Class: "constraint"}, "22000"}, {nil, "22000"}} {
		if e := txFailure(&client.Result{Code: api.CodeExecFailed, Failure: classOnly, Own: c.own, Error: "x"}); e.Code != c.want {
			t.Errorf("class-only failure with the node's %+v: SQLSTATE %s, want %s", c.own, e.Code, c.want)
		}
	}
	var pe *pgwire.Error
	if e := nodeError(&client.QueryError{Code: api.CodeQueryTimeout, Message: "m"}); !errors.As(e, &pe) || pe.Code != "57014" {
		t.Errorf("query timeout: %v", e)
	}
	if e := nodeError(fmt.Errorf("abci_query: %w", context.Canceled)); e.Code != "57014" {
		t.Errorf("a cancelled request: %v", e)
	}
	if e := nodeError(fmt.Errorf("wait: %w", client.ErrQuarantined)); e.Code != "57014" || e.Hint == "" {
		t.Errorf("a quarantined wait: SQLSTATE %s (hint %q), want 57014 with a hint", e.Code, e.Hint)
	}
	if !answered(fmt.Errorf("wait: %w", client.ErrQuarantined)) {
		t.Errorf("a quarantined wait is not taken as the node's answer: the gateway would try another node")
	}
	if e := nodeError(errors.New("connection refused")); e.Code != "08006" {
		t.Errorf("unreachable node: %v", e)
	}
}

func TestParamPatterns(t *testing.T) {
	text := stripLiteralsKeepLength(`UPDATE acct SET bal = bal - $1, note = 'x = $3' WHERE id = $2 AND $4 < limit_`)
	var got []string
	for _, m := range colThenParam.FindAllStringSubmatch(text, -1) {
		got = append(got, m[1]+"~"+m[2])
	}
	for _, m := range paramThenCol.FindAllStringSubmatch(text, -1) {
		got = append(got, m[2]+"~"+m[1])
	}
	if want := []string{"bal~1", "id~2", "limit_~4"}; !slices.Equal(got, want) {
		t.Fatalf("patterns found %q, want %q", got, want)
	}
}
