package pghistory

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// relation is a stand-in for the node's: one row naming the call.
func relation(c Call) (string, error) {
	return fmt.Sprintf("SELECT '%s' AS tbl, %d AS from_height", c.Table, c.FromHeight), nil
}

func TestRewriteReplacesEachCall(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT * FROM relchain_history('acct')",
			"SELECT * FROM (SELECT 'acct' AS tbl, 0 AS from_height) relchain_history"},
		{"select height from RELCHAIN_HISTORY('acct', 12) h where h.op = 'u'",
			"SELECT height FROM (SELECT 'acct' AS tbl, 12 AS from_height) h WHERE h.op = 'u'"},
		{"SELECT * FROM relchain_history('a', 5000000000) AS x(t, f)",
			"SELECT * FROM (SELECT 'a' AS tbl, 5000000000 AS from_height) x(t, f)"},
		{"WITH v AS (SELECT * FROM relchain_history('a')) SELECT count(*) FROM v JOIN acct ON true",
			"WITH v AS (SELECT * FROM (SELECT 'a' AS tbl, 0 AS from_height) relchain_history) SELECT count(*) FROM v JOIN acct ON true"},
		{"SELECT (SELECT count(*) FROM relchain_history('b')) FROM relchain_history('a', 1)",
			"SELECT (SELECT count(*) FROM (SELECT 'b' AS tbl, 0 AS from_height) relchain_history) FROM (SELECT 'a' AS tbl, 1 AS from_height) relchain_history"},
	} {
		got, found, err := Rewrite(c.in, relation)
		if err != nil || !found || got != c.want {
			t.Errorf("Rewrite(%q) = %q, %v, %v\nwant %q", c.in, got, found, err, c.want)
		}
	}
}

func TestRewriteLeavesOtherTextsAlone(t *testing.T) {
	for _, in := range []string{
		"SELECT 1",
		"SELECT 'relchain_history(''a'')'",              // a string
		`SELECT * FROM "Relchain_History"('a')`,         // another function
		"SELECT * FROM public.relchain_history('a')",    // a qualified one
		"SELECT * FROM relchain_history('a'); SELECT 1", // two statements: the read path refuses them
		"SELECT * FROM relchain_history('a'",            // no statement: the database says why
	} {
		got, found, err := Rewrite(in, func(Call) (string, error) { t.Fatalf("relation called for %q", in); return "", nil })
		if err != nil || found || got != in {
			t.Errorf("Rewrite(%q) = %q, %v, %v; want it unchanged", in, got, found, err)
		}
	}
}

func TestRewriteRefusesOtherForms(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT relchain_history('a')":                                  "is a relation",
		"SELECT * FROM relchain_history()":                              "takes 1 or 2 arguments, not 0",
		"SELECT * FROM relchain_history('a', 1, 2)":                     "takes 1 or 2 arguments, not 3",
		"SELECT * FROM relchain_history($1)":                            "first argument must be a table name",
		"SELECT * FROM relchain_history(acct)":                          "first argument must be a table name",
		"SELECT * FROM relchain_history('a', -1)":                       "non-negative integer",
		"SELECT * FROM relchain_history('a', '7')":                      "non-negative integer",
		"SELECT * FROM relchain_history('a', $1)":                       "non-negative integer",
		"SELECT * FROM relchain_history('a') WITH ORDINALITY":           "WITH ORDINALITY",
		"SELECT * FROM ROWS FROM (relchain_history('a'))":               "ROWS FROM",
		"SELECT * FROM relchain_history('a') AS x(a int)":               "column definition list",
		"SELECT * FROM acct WHERE id IN (SELECT relchain_history('a'))": "is a relation",
	} {
		_, _, err := Rewrite(in, relation)
		if !errors.Is(err, ErrCall) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "SELECT * FROM relchain_history('accounts'[, 1200])") {
			t.Errorf("Rewrite(%q) = %v; want ErrCall saying %q and the accepted form", in, err, want)
		}
	}
}

func TestRewritePassesTheRelationsError(t *testing.T) {
	boom := errors.New("no history")
	if _, _, err := Rewrite("SELECT * FROM relchain_history('a')", func(Call) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the relation's", err)
	}
	_, _, err := Rewrite("SELECT * FROM relchain_history('a')", func(Call) (string, error) { return "DELETE FROM acct", nil })
	if !errors.Is(err, ErrCall) || !strings.Contains(err.Error(), "not one SELECT") {
		t.Fatalf("a relation that is not a SELECT: %v", err)
	}
}
