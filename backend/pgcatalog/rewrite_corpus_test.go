package pgcatalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// corpusEntry is one catalog query of testdata/clients (README.md there):
// its id, text and parameters (nil a NULL).
type corpusEntry struct {
	id, sql string
	params  []*string
}

// corpusDir is the client corpus (PGCAT_CORPUS_DIR overrides it).
func corpusDir() string {
	if d := os.Getenv("PGCAT_CORPUS_DIR"); d != "" {
		return d
	}
	return filepath.Join("testdata", "clients")
}

var (
	corpusOid   = regexp.MustCompile(`\{\{(class|type|constraint) ([a-z_]+)\}\}`)
	corpusParam = regexp.MustCompile(`\$\d+ = (NULL|'((?:[^']|'')*)')`)
)

// loadCorpus reads every entry of the corpus.
func loadCorpus(t *testing.T) []corpusEntry {
	t.Helper()
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
		n := 0
		for _, e := range strings.Split(string(b), "\n-- next\n") {
			ce := parseEntry(e)
			if ce.sql == "" {
				continue
			}
			n++
			ce.id = fmt.Sprintf("%s#%03d", client, n)
			out = append(out, ce)
		}
	}
	return out
}

// parseEntry reads one entry: its comment lines (the parameters among
// them), then the statement.
func parseEntry(e string) corpusEntry {
	var ce corpusEntry
	var body []string
	for _, l := range strings.Split(e, "\n") {
		if strings.HasPrefix(l, "-- ") && len(body) == 0 {
			if p, ok := strings.CutPrefix(l, "-- parameters: "); ok {
				for _, m := range corpusParam.FindAllStringSubmatch(p, -1) {
					if m[1] == "NULL" {
						ce.params = append(ce.params, nil)
						continue
					}
					s := strings.ReplaceAll(m[2], "''", "'")
					ce.params = append(ce.params, &s)
				}
			}
			continue
		}
		body = append(body, l)
	}
	ce.sql = strings.TrimSpace(strings.Join(body, "\n"))
	return ce
}

// withOids puts the Engine's oids of the objects an entry names.
func withOids(t *testing.T, e *Engine, sql string) string {
	return corpusOid.ReplaceAllStringFunc(sql, func(m string) string {
		p := corpusOid.FindStringSubmatch(m)
		q := map[string]string{
			"class":      "SELECT oid FROM pg_class WHERE relname = $1",
			"type":       "SELECT oid FROM pg_type WHERE typname = $1",
			"constraint": "SELECT oid FROM pg_constraint WHERE conname = $1",
		}[p[1]]
		res, err := e.Query(context.Background(), q, []any{p[2]})
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("the oid of %s: %v %v", m, res, err)
		}
		return strconv.FormatInt(res.Rows[0][0].(int64), 10)
	})
}

// catalogGap reports whether err names a relation, column or function
// the catalog does not emulate (Relations and Functions list them): such
// an entry is the catalog's gap, not the rewriting's.
func catalogGap(err error) bool {
	var pe *Error
	if !errors.As(err, &pe) {
		return false
	}
	if name, ok := strings.CutPrefix(pe.Message, "function "); ok && pe.Code == "42883" {
		_, known := Functions[strings.TrimSuffix(name, " does not exist")]
		return !known
	}
	return pe.Code == "42P01" || pe.Code == "42703"
}

// TestCorpusRewrites: every client query of the corpus is wanted and
// rewrites, but for those reading what the catalog does not emulate.
func TestCorpusRewrites(t *testing.T) {
	entries := loadCorpus(t)
	if len(entries) == 0 {
		t.Skip("no corpus in " + corpusDir())
	}
	gaps := 0
	for _, e := range entries {
		sql := corpusOid.ReplaceAllString(e.sql, "16384")
		_, err := rewrite(sql)
		switch {
		case catalogGap(err):
			gaps++
			t.Logf("%s: %v", e.id, err)
		case err != nil:
			t.Errorf("%s: %v\n%s", e.id, err, sql)
		case !Wants(sql):
			t.Errorf("%s: rewrites but is not wanted\n%s", e.id, sql)
		}
	}
	t.Logf("%d of %d entries rewrite; %d read relations or columns not emulated", len(entries)-gaps, len(entries), gaps)
}

// TestCorpusRuns runs every corpus entry on an Engine of the corpus's
// schema (the results are compared with PostgreSQL's by the corpus's own
// test); PGCAT_CORPUS_SHOW=1 logs the rows.
func TestCorpusRuns(t *testing.T) {
	entries := loadCorpus(t)
	if len(entries) == 0 {
		t.Skip("no corpus in " + corpusDir())
	}
	e, err := New(rwCorpusSchema())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, ce := range entries {
		sql := withOids(t, e, ce.sql)
		args := make([]any, len(ce.params))
		for i, p := range ce.params {
			if p != nil {
				args[i] = *p
			}
		}
		res, err := e.Query(context.Background(), sql, args)
		switch {
		case catalogGap(err):
			t.Logf("%s: %v", ce.id, err)
		case err != nil:
			t.Errorf("%s: %v\n%s", ce.id, err, sql)
		case os.Getenv("PGCAT_CORPUS_SHOW") != "":
			t.Logf("%s: %d rows %v", ce.id, len(res.Rows), res.Rows)
		}
	}
}

// rwCorpusSchema is testdata/clients/schema.sql as a Schema.
func rwCorpusSchema() *Schema {
	return &Schema{Database: "shop", User: "postgres",
		Tables: []Table{{
			Name: "authors", Comment: "People who write books",
			Columns: []Column{
				{Name: "id", Type: "int4", Typmod: -1, NotNull: true, Default: "nextval('authors_id_seq'::regclass)"},
				{Name: "name", Type: "varchar", Typmod: 104, NotNull: true},
				{Name: "email", Type: "varchar", Typmod: 259, NotNull: true},
				{Name: "active", Type: "bool", Typmod: -1, NotNull: true, Default: "true"},
				{Name: "created_at", Type: "timestamptz", Typmod: -1, NotNull: true, Default: "now()"},
			},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "authors_pkey",
			Uniques: []Unique{{Name: "authors_email_key", Columns: []string{"email"}}},
		}, {
			Name: "books",
			Columns: []Column{
				{Name: "id", Type: "int4", Typmod: -1, NotNull: true, Default: "nextval('books_id_seq'::regclass)"},
				{Name: "author_id", Type: "int4", Typmod: -1, NotNull: true},
				{Name: "title", Type: "varchar", Typmod: 204, NotNull: true, Comment: "Title as printed"},
				{Name: "price", Type: "numeric", Typmod: (10<<16 | 2) + 4},
				{Name: "in_print", Type: "bool", Typmod: -1, Default: "false"},
				{Name: "published_at", Type: "timestamptz", Typmod: -1},
			},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "books_pkey",
			Indexes: []Index{{Name: "books_title_idx", Columns: []string{"title"}}},
			ForeignKeys: []ForeignKey{{Name: "books_author_id_fkey", Columns: []string{"author_id"},
				RefTable: "authors", RefColumns: []string{"id"}, OnDelete: 'c', OnUpdate: 'a'}},
			Checks: []Check{{Name: "books_price_check", Expr: "(price >= (0)::numeric)"}},
		}},
		Views: []View{{Name: "books_in_print",
			Definition: " SELECT books.id,\n    books.title,\n    books.price\n   FROM books\n  WHERE books.in_print;",
			Columns: []Column{{Name: "id", Type: "int4", Typmod: -1}, {Name: "title", Type: "varchar", Typmod: 204},
				{Name: "price", Type: "numeric", Typmod: (10<<16 | 2) + 4}}}},
		Sequences: []Sequence{
			{Name: "authors_id_seq", Type: "int4", Start: 1, Increment: 1, Min: 1, Max: 2147483647,
				OwnedByTable: "authors", OwnedByColumn: "id"},
			{Name: "books_id_seq", Type: "int4", Start: 1, Increment: 1, Min: 1, Max: 2147483647,
				OwnedByTable: "books", OwnedByColumn: "id"},
			{Name: "invoice_seq", Type: "int8", Start: 1000, Increment: 1, Min: 1, Max: 9223372036854775807},
		},
	}
}
