package workload

import (
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/dialect"
)

// Every database relchain runs on is described to the lab, and the lab's
// constants name exactly package dialect's databases, in its order.
func TestEveryDatabaseIsDescribed(t *testing.T) {
	if m := Missing(databases); len(m) > 0 {
		t.Errorf("workload.databases has no entry for %v: describe the database to the lab", m)
	}
	if e := Extra(databases); len(e) > 0 {
		t.Errorf("workload.databases describes %v, which package dialect does not know", e)
	}
	if !slices.Equal(Dialects, dialect.Names()) {
		t.Errorf("workload.Dialects = %v, package dialect has %v", Dialects, dialect.Names())
	}
}

// Missing names a database a table lacks; Lookup's error names the table.
func TestMissingAndLookupNameTheGap(t *testing.T) {
	table := map[string]int{SQLite: 1, Postgres: 2}
	if got := Missing(table); !slices.Equal(got, []string{MySQL}) {
		t.Fatalf("Missing = %v, want [mysql]", got)
	}
	if _, err := Lookup(table, "planted", MySQL); err == nil || !strings.Contains(err.Error(), "planted") || !strings.Contains(err.Error(), `"mysql"`) {
		t.Fatalf("Lookup error = %v, want one naming the table and the dialect", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MustLookup of a missing entry did not panic")
		}
	}()
	MustLookup(table, "planted", MySQL)
}

// The placeholder styles come from package dialect.
func TestPlaceholderStylesFollowPackageDialect(t *testing.T) {
	for _, c := range []struct{ d, one, second string }{{SQLite, "?", "?2"}, {Postgres, "$1", "$2"}, {MySQL, "?", "?2"}} {
		if got := OnlyPlaceholder(c.d); got != c.one {
			t.Errorf("OnlyPlaceholder(%s) = %q, want %q", c.d, got, c.one)
		}
		if got := Placeholder(c.d, 2); got != c.second {
			t.Errorf("Placeholder(%s, 2) = %q, want %q", c.d, got, c.second)
		}
	}
	if Server(SQLite) || !Server(Postgres) || !Server(MySQL) {
		t.Error("Server: want sqlite a file, postgres and mysql servers")
	}
}
