package mysqlgate

import (
	"strings"
	"testing"
)

// A block's refusal of a system schema keeps its text (a refused tx's
// result carries it, and the AppHash covers results); the read path's
// wording names the relation and the read allowlist.
func TestReadRefusalNamesTheSystemRelation(t *testing.T) {
	for _, c := range []struct{ sql, block, read string }{
		{"SELECT * FROM information_schema.PROCESSLIST", "system schema information_schema is not accessible to statements", "relation information_schema.PROCESSLIST is not on relchain's read allowlist"},
		{"SELECT User FROM `mysql`.`user`", "system schema mysql is not accessible to statements", "relation mysql.user is not on relchain's read allowlist"},
		{"SELECT 1 FROM t WHERE EXISTS (SELECT 1 FROM PERFORMANCE_SCHEMA.threads)", "system schema performance_schema is not accessible to statements", "relation performance_schema.threads is not on relchain's read allowlist"},
	} {
		if err := Check(c.sql); err == nil || err.Error() != c.block {
			t.Errorf("Check(%q) = %v; want exactly %q", c.sql, err, c.block)
		}
		if err := ReadRefusal(c.sql); err == nil || !strings.HasPrefix(err.Error(), c.read) {
			t.Errorf("ReadRefusal(%q) = %v; want %q", c.sql, err, c.read)
		}
	}
	for _, q := range []string{"SELECT 1", "SELECT SLEEP(1)", "SELECT * FROM t", "SELEC"} {
		if err := ReadRefusal(q); err != nil {
			t.Errorf("ReadRefusal(%q) = %v; want nil (no system relation)", q, err)
		}
	}
}
