package gateway

import (
	"reflect"
	"testing"
)

// The options startup parameter (libpq's PGOPTIONS) sets settings as
// PostgreSQL reads it: -c name=value, -cname=value, --name=value, escaped
// spaces, dashes in names read as underscores; other switches ignored.
func TestStartupOptions(t *testing.T) {
	for in, want := range map[string][][2]string{
		"":                                      nil,
		"-c relchain.copy_split_transaction=on": {{"relchain.copy_split_transaction", "on"}},
		"-cstatement_timeout=5s  --search-path=public": {{"statement_timeout", "5s"}, {"search_path", "public"}},
		`-c application_name=my\ app -F -c x`:          {{"application_name", "my app"}},
		"-c":                                           nil,
		"-c =novalue --noequals":                       nil,
	} {
		if got := startupOptions(in); !reflect.DeepEqual(got, want) {
			t.Errorf("startupOptions(%q) = %q, want %q", in, got, want)
		}
	}
}
