package sqlite

import (
	"strings"
	"testing"
)

// Variants of the order-sensitive forms, judged on the text alone.
func TestOrderRefusalVariants(t *testing.T) {
	for sql, want := range map[string]string{
		`SELECT 1`:                                     "",
		`SELECT a FROM t ORDER BY a LIMIT 1`:           "",
		`SELECT a FROM t LIMIT 1`:                      "LIMIT without ORDER BY",
		`SELECT a FROM t -- ORDER BY a` + "\n LIMIT 1": "LIMIT without ORDER BY",
		`SELECT 'ORDER BY' FROM t LIMIT 1`:             "LIMIT without ORDER BY",
		`SELECT "order" FROM t LIMIT 1`:                "LIMIT without ORDER BY",
		`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s LIMIT 10) SELECT i FROM s ORDER BY i`:                                  "LIMIT without ORDER BY",
		`SELECT a, (SELECT b FROM u ORDER BY b LIMIT 1) FROM t ORDER BY a LIMIT 2`:                                                             "",
		`SELECT a FROM t ORDER BY a; SELECT b FROM u LIMIT 1`:                                                                                  "LIMIT without ORDER BY",
		`CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT a FROM t ORDER BY a LIMIT 1; DELETE FROM u WHERE k IN (SELECT k FROM u LIMIT 1); END`: "LIMIT without ORDER BY",
		`SELECT "group_concat"(a) FROM t`:                                                                          "group_concat() without ORDER BY",
		`SELECT [string_agg](a, ',') FROM t`:                                                                       "string_agg() without ORDER BY",
		`SELECT group_concat(a) FILTER (WHERE a > 1) FROM t`:                                                       "group_concat() without ORDER BY",
		`SELECT group_concat(a) FILTER (WHERE a > 1) OVER () FROM t`:                                               "group_concat() without ORDER BY",
		`SELECT group_concat(a) FILTER (WHERE a > 1) OVER (ORDER BY k) FROM t`:                                     "",
		`SELECT group_concat((SELECT b FROM u ORDER BY b)) FROM t`:                                                 "group_concat() without ORDER BY",
		`SELECT group_concat(a ORDER BY k) FILTER (WHERE a > 1) FROM t`:                                            "",
		`SELECT ntile(2) OVER (PARTITION BY a) FROM t`:                                                             "ntile() without ORDER BY",
		`SELECT nth_value(a, 2) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t`: "",
		`SELECT rank() OVER (), count(*) OVER () FROM t`:                                                           "",
		`SELECT sum(a) OVER () FROM t`:                                                                             "",
		`SELECT x'6c696d6974', [limit] FROM t`:                                                                     "",
		`UPDATE t SET a = u.a FROM u WHERE u.k = t.k`:                                                              "UPDATE ... FROM",
		`WITH c AS (SELECT 1) UPDATE OR REPLACE t SET a = c.x FROM c`:                                              "UPDATE ... FROM",
		`UPDATE t SET a = (SELECT a FROM u WHERE u.k = t.k ORDER BY u.id LIMIT 1)`:                                 "",
		`INSERT INTO t SELECT * FROM u ORDER BY k ON CONFLICT DO UPDATE SET a = excluded.a`:                        "",
		`CREATE TRIGGER g AFTER UPDATE OF a ON t BEGIN DELETE FROM u WHERE k = NEW.k; END`:                         "",
		`CREATE TRIGGER g AFTER INSERT ON t BEGIN UPDATE u SET a = 1; SELECT 1 FROM u; END`:                        "",
		`CREATE TRIGGER g AFTER INSERT ON t BEGIN UPDATE u SET a = v.a FROM v; END`:                                "UPDATE ... FROM",
		`UPDATE s SET q = q - l.column2 FROM (VALUES (1, 2), (3, 4)) AS l WHERE s.id = l.column1`:                  "",
		`UPDATE s SET q = q - l.column2 FROM (VALUES (1, 2)) AS l, u WHERE s.id = l.column1`:                       "UPDATE ... FROM",
		`UPDATE s SET q = q - l.column2 FROM (VALUES (1, 2)) AS l JOIN u ON u.k = l.column1 WHERE s.id = u.k`:      "UPDATE ... FROM",
		`UPDATE s SET q = 1 FROM (SELECT k FROM u) AS l WHERE s.id = l.k`:                                          "UPDATE ... FROM",
		`UPDATE s SET q = 1 FROM (VALUES (1)) AS l WHERE s.id IN (SELECT k FROM u, w ORDER BY k)`:                  "",
	} {
		got := orderRefusal(sql)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", sql, got, want)
		}
	}
}
