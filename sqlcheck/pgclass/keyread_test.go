package pgclass_test

import (
	"reflect"
	"testing"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// KeyRead recognises reads by key (points, composite points, ranges by
// BETWEEN or >= AND <=, literals, casts and $n) and nothing else.
func TestKeyRead(t *testing.T) {
	lit := func(s string) client.KeyTerm { return client.KeyTerm{Literal: s} }
	for _, c := range []struct {
		sql  string
		want client.KeyRead
	}{
		{"SELECT * FROM acct WHERE id = 3", client.KeyRead{Table: "acct", Eq: map[string]client.KeyTerm{"id": lit("3")}}},
		{"select owner, BAL from public.acct where ID = $2", client.KeyRead{Table: "acct", Columns: []string{"owner", "bal"}, Eq: map[string]client.KeyTerm{"id": {Param: 2}}}},
		{"SELECT a FROM t WHERE k1 = 'x' AND k2 = -7", client.KeyRead{Table: "t", Columns: []string{"a"}, Eq: map[string]client.KeyTerm{"k1": lit("x"), "k2": lit("-7")}}},
		{"SELECT * FROM t WHERE d = '2024-01-02'::date", client.KeyRead{Table: "t", Eq: map[string]client.KeyTerm{"d": lit("2024-01-02")}}},
		{"SELECT * FROM t WHERE id BETWEEN 2 AND $1", client.KeyRead{Table: "t", Eq: map[string]client.KeyTerm{}, RangeColumn: "id", Lo: lit("2"), Hi: client.KeyTerm{Param: 1}}},
		{"SELECT * FROM t WHERE id <= 9 AND id >= 2.5", client.KeyRead{Table: "t", Eq: map[string]client.KeyTerm{}, RangeColumn: "id", Lo: lit("2.5"), Hi: lit("9")}},
	} {
		got, ok := pgclass.Classifier{}.KeyRead(c.sql)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("KeyRead(%q) = %+v, %v; want %+v", c.sql, got, ok, c.want)
		}
	}
	for _, sql := range []string{
		"SELECT * FROM t", "SELECT * FROM t WHERE id > 3", "SELECT * FROM t WHERE id = 3 OR id = 4",
		"SELECT * FROM t WHERE id = 3 AND id = 4", "SELECT * FROM t WHERE id >= 3", "SELECT * FROM t WHERE a >= 1 AND b <= 2",
		"SELECT * FROM t WHERE id >= 1 AND id <= 2 AND k = 3", "SELECT count(*) FROM t WHERE id = 1",
		"SELECT * FROM t, u WHERE id = 1", "SELECT * FROM t WHERE id = 1 LIMIT 1", "SELECT * FROM t WHERE id = 1 ORDER BY id",
		"SELECT * FROM t WHERE id = NULL", "SELECT * FROM t WHERE id = 1 + 1", "SELECT x AS y FROM t WHERE id = 1",
		"SELECT * FROM other.t WHERE id = 1", "DELETE FROM t WHERE id = 1", "SELECT * FROM t WHERE id = 1; SELECT 1",
		"SELECT * FROM t WHERE id = 1 FOR UPDATE", "WITH w AS (SELECT 1) SELECT * FROM t WHERE id = 1", "not sql",
	} {
		if got, ok := (pgclass.Classifier{}).KeyRead(sql); ok {
			t.Errorf("KeyRead(%q) = %+v, want not a key read", sql, got)
		}
	}
}
