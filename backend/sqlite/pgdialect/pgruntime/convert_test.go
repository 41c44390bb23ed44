package pgruntime_test

import (
	"strings"
	"testing"
)

// pg_cast and pg_assign between text and varchar return a text that needs
// no change as the argument itself (sqlite3_result_value); the result is
// the same as the converted copy's: same bytes, a plain text (a JSON
// subtype does not pass through), and the length rules unchanged.
func TestTextConversionsKeepTheirValue(t *testing.T) {
	d := mustOpen(t)
	for _, c := range []struct{ sql, want string }{
		{"SELECT pg_assign('abcd', 'varchar', 'varchar', 8)", "abcd"},
		{"SELECT pg_assign('héllo', 'text', 'varchar', 9)", "héllo"},
		{"SELECT pg_assign('héllo!', 'text', 'varchar', 9)", "22001"},
		{"SELECT pg_cast('héllo!', 'text', 'varchar', 9)", "héllo"},
		{"SELECT pg_assign('abc   ', 'varchar', 'varchar', 7)", "abc"},
		{"SELECT pg_assign('abc', 'varchar', 'text', -1)", "abc"},
		{"SELECT typeof(pg_assign(12, 'text', 'varchar', 8))", "text"},
		{"SELECT pg_assign(CAST(x'ff41' AS TEXT), 'text', 'varchar', 6)", "\xffA"},
		{"SELECT json_array(pg_cast(json_object('a', 1), 'text', 'text', -1))", `["{\"a\":1}"]`},
		{"SELECT json_array(pg_assign(json_object('a', 1), 'text', 'varchar', 20))", `["{\"a\":1}"]`},
		{"SELECT pg_assign(NULL, 'text', 'varchar', 8) IS NULL", "1"},
	} {
		st, _, err := d.c.Prepare(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if st.Step() {
			got = st.ColumnText(0)
		}
		if err := st.Err(); err != nil {
			got = err.Error()
			if len(c.want) == 5 && len(got) >= 5 && !strings.Contains(got, c.want) {
				t.Errorf("%s: %v, want SQLSTATE %s", c.sql, err, c.want)
			}
			st.Close()
			continue
		}
		st.Close()
		if got != c.want {
			t.Errorf("%s = %q, want %q", c.sql, got, c.want)
		}
	}
}
