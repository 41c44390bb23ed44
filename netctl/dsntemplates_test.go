package netctl

import (
	"reflect"
	"strings"
	"testing"
)

// --dsn-template takes one DSN for every node on a server, or one
// ENGINE=DSN per server engine of a network over several engines.
func TestDSNTemplatesPerEngine(t *testing.T) {
	const pg, my = "postgres://a@h:5432/r_{node}?sslmode=disable", "root@tcp(h:3306)/r_{node}"
	tmpl, per, err := DSNTemplates([]string{pg}, nil)
	if err != nil || tmpl != pg || per != nil {
		t.Fatalf("one DSN: %q %q %v", tmpl, per, err)
	}
	backends := []string{"postgres", "postgres", "mysql", "sqlite"}
	tmpl, per, err = DSNTemplates([]string{"postgres=" + pg, "mysql=" + my}, backends)
	if err != nil || tmpl != "" || !reflect.DeepEqual(per, []string{pg, pg, my, ""}) {
		t.Fatalf("per engine: %q %q %v", tmpl, per, err)
	}
	for _, c := range []struct {
		values   []string
		backends []string
		want     string
	}{
		{[]string{pg, my}, backends, "given twice without ENGINE="},
		{[]string{"postgres=" + pg, "postgres=" + pg}, backends, "postgres= given twice"},
		{[]string{"postgres=" + pg, my}, backends, "not both"},
		{[]string{"mysql=" + my}, []string{"postgres", "sqlite"}, "no validator of --backends runs mysql"},
		{[]string{"mysql=" + my}, nil, "no validator of --backends runs mysql"},
	} {
		if _, _, err := DSNTemplates(c.values, c.backends); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DSNTemplates(%q, %q) = %v, want an error containing %q", c.values, c.backends, err, c.want)
		}
	}
}
