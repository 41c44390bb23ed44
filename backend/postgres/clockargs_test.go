package postgres

import "testing"

func TestClockArgWord(t *testing.T) {
	for s, want := range map[string]string{
		"now":                    "now",
		" NoW UTC ":              "now",
		"today 10:00":            "today",
		"yesterday allballs":     "yesterday",
		"Tomorrow":               "tomorrow",
		"{now,2020-01-01}":       "now",
		`{"2020-01-01","Today"}`: "today",
		"[2020-01-01,now)":       "now",
		"(3,now,,)":              "now",
		"2024-01-01T00:00:00Z":   "",
		"nowhere":                "",
		"knowledge":              "",
		"todays":                 "",
		"":                       "",
		"épocanow":               "",
	} {
		if got := clockArgWord(s); got != want {
			t.Errorf("clockArgWord(%q) = %q, want %q", s, got, want)
		}
	}
}
