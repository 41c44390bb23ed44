package pgcatalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The client corpus (testdata/clients, README.md there): the catalog
// SELECTs real clients send while reading a schema. This file loads it,
// declares its schema as a Schema and runs every entry on the Engine;
// clientspg_test.go compares the Engine's results with PostgreSQL's.

// clientEntry is one statement of the corpus.
type clientEntry struct {
	ID      string // <client>#<n>, n from 1 in file order
	Client  string
	Op      string    // the client operation that sent it
	SQL     string    // with {{class authors}}-style oid placeholders
	Params  []*string // the bound parameters' text (nil: NULL); nil when none
	Ordered bool      // the statement has a top-level ORDER BY
}

// loadClientCorpus reads every testdata/clients/<client>.sql but schema.sql.
func loadClientCorpus(t *testing.T) []clientEntry {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "clients", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var all []clientEntry
	for _, f := range files {
		client := strings.TrimSuffix(filepath.Base(f), ".sql")
		if client == "schema" {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := parseClientFile(client, string(text))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all = append(all, entries...)
	}
	if len(all) == 0 {
		t.Fatal("the client corpus is empty (testdata/clients/*.sql)")
	}
	return all
}

// parseClientFile parses one client's file: entries separated by "-- next"
// lines, each "-- <client> <operation>", an optional "-- parameters: …"
// and the statement.
func parseClientFile(client, text string) ([]clientEntry, error) {
	var out []clientEntry
	chunks := strings.Split(text, "\n-- next\n")
	for i, chunk := range chunks {
		lines := strings.Split(strings.TrimRight(chunk, "\n"), "\n")
		if i == 0 && len(lines) > 0 && !strings.HasPrefix(lines[0], "-- "+client+" ") {
			lines = lines[1:] // the file's header comment
		}
		e := clientEntry{ID: fmt.Sprintf("%s#%d", client, i+1), Client: client}
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "-- "+client+" ") {
			return nil, fmt.Errorf("entry %s: want a first line %q, got %q", e.ID, "-- "+client+" <operation>", lines)
		}
		e.Op = strings.TrimPrefix(lines[0], "-- "+client+" ")
		lines = lines[1:]
		if p, ok := strings.CutPrefix(lines[0], "-- parameters: "); ok {
			params, err := parseLoggedParams(p)
			if err != nil {
				return nil, fmt.Errorf("entry %s: %w", e.ID, err)
			}
			e.Params = params
			lines = lines[1:]
		}
		e.SQL = strings.Join(lines, "\n")
		if strings.TrimSpace(e.SQL) == "" {
			return nil, fmt.Errorf("entry %s: no statement", e.ID)
		}
		e.Ordered = hasTopLevelOrderBy(e.SQL)
		out = append(out, e)
	}
	return out, nil
}

// parseLoggedParams parses PostgreSQL's "parameters:" detail: "$1 = 'a”b',
// $2 = NULL", in order.
func parseLoggedParams(s string) ([]*string, error) {
	var out []*string
	for len(s) > 0 {
		want := fmt.Sprintf("$%d = ", len(out)+1)
		rest, ok := strings.CutPrefix(s, want)
		if !ok {
			return nil, fmt.Errorf("parameters: want %q at %q", want, s)
		}
		switch {
		case strings.HasPrefix(rest, "NULL"):
			out = append(out, nil)
			s = rest[len("NULL"):]
		case strings.HasPrefix(rest, "'"):
			v, n, err := unquoteLiteral(rest)
			if err != nil {
				return nil, fmt.Errorf("parameters: $%d: %w", len(out)+1, err)
			}
			out = append(out, &v)
			s = rest[n:]
		default:
			return nil, fmt.Errorf("parameters: $%d: want a quoted text or NULL at %q", len(out)+1, rest)
		}
		s = strings.TrimPrefix(s, ", ")
	}
	return out, nil
}

// quoted reads the SQL string literal at the start of s: its value and
// its length in s.
func unquoteLiteral(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), i + 1, nil
	}
	return "", 0, fmt.Errorf("unterminated quoted text %q", s)
}

// hasTopLevelOrderBy reports whether sql has an ORDER BY outside parentheses,
// string literals, quoted identifiers and comments: the order of its rows
// is then part of its result.
func hasTopLevelOrderBy(sql string) bool {
	depth := 0
	words := []string{}
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(sql[i+1:], c)
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return false
			}
			i += j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i:], "*/")
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && isSQLWordByte(c):
			j := i
			for j < len(sql) && isSQLWordByte(sql[j]) {
				j++
			}
			words = append(words, strings.ToLower(sql[i:j]))
			if n := len(words); n >= 2 && words[n-2] == "order" && words[n-1] == "by" {
				return true
			}
			i = j - 1
		}
	}
	return false
}

func isSQLWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// clientOIDPlaceholder is an oid of the schema's objects written symbolically in
// the corpus: {{class authors}}, {{type authors}}, {{constraint books_pkey}}.
var clientOIDPlaceholder = regexp.MustCompile(`\{\{(class|type|constraint) ([A-Za-z_0-9]+)\}\}`)

// putOIDs puts the oids of objects (symbol → oid, as clientObjectOIDs returns
// them inverted) in place of the placeholders of text.
func putOIDs(text string, oids map[string]string) (string, error) {
	var missing []string
	out := clientOIDPlaceholder.ReplaceAllStringFunc(text, func(p string) string {
		if oid, ok := oids[p]; ok {
			return oid
		}
		missing = append(missing, p)
		return p
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no object for %s in the catalog", strings.Join(missing, ", "))
	}
	return out, nil
}

// clientObjectQueries list the schema's objects by oid, each row (oid, symbol):
// the same texts run on PostgreSQL and on the Engine.
var clientObjectQueries = []string{
	`SELECT oid, '{{class ' || relname || '}}' FROM pg_catalog.pg_class WHERE relnamespace = 2200`,
	`SELECT oid, '{{type ' || typname || '}}' FROM pg_catalog.pg_type WHERE typnamespace = 2200`,
	`SELECT oid, '{{constraint ' || conname || '}}' FROM pg_catalog.pg_constraint WHERE connamespace = 2200`,
}

// clientObjectOIDs runs clientObjectQueries with query (a database's text results):
// oid → symbol.
func clientObjectOIDs(query func(sql string) (*clientResult, error)) (map[string]string, error) {
	oids := map[string]string{}
	for _, q := range clientObjectQueries {
		r, err := query(q)
		if err != nil {
			return nil, fmt.Errorf("list the schema's objects (%s): %w", q, err)
		}
		for _, row := range r.Rows {
			if len(row) != 2 || row[0] == nil || row[1] == nil {
				return nil, fmt.Errorf("list the schema's objects (%s): row %v", q, row)
			}
			oids[*row[0]] = *row[1]
		}
	}
	return oids, nil
}

func invertMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

// clientResult is a result as PostgreSQL's text output shows it: column
// names and pg_type names, and each value's text (nil: NULL).
type clientResult struct {
	Names []string
	Types []string
	// Typmods are the columns' type modifiers (-1 none), compared with
	// the types.
	Typmods []int32
	Rows    [][]*string
}

// engineClientResult renders an Engine result as PostgreSQL's text output would.
func engineClientResult(r *Result) *clientResult {
	out := &clientResult{}
	for _, c := range r.Columns {
		out.Names = append(out.Names, c.Name)
		out.Types = append(out.Types, c.Type)
		out.Typmods = append(out.Typmods, c.Typmod)
	}
	for _, row := range r.Rows {
		cells := make([]*string, len(row))
		for i, v := range row {
			typ := "" // a row wider than its columns: compareClientResults reports the columns
			if i < len(out.Types) {
				typ = out.Types[i]
			}
			cells[i] = engineCellText(v, typ)
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

func engineCellText(v any, typ string) *string {
	var s string
	switch v := v.(type) {
	case nil:
		return nil
	case bool:
		s = map[bool]string{true: "t", false: "f"}[v]
	case int64:
		s = strconv.FormatInt(v, 10)
	case float64:
		s = strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		s = v
	case []byte:
		s = string(v)
		if typ == "bytea" {
			s = fmt.Sprintf(`\x%x`, v)
		}
	default:
		s = fmt.Sprintf("%v (a %T: not a value Result may hold)", v, v)
	}
	return &s
}

// clientsDatabase is the database the corpus was captured in.
const clientsDatabase = "shop"

// clientsSchema is testdata/clients/schema.sql as a backend would describe
// it to New; user is the session's role.
func clientsSchema(user string) *Schema {
	serial := func(seq string) Column {
		return Column{Name: "id", Type: "int4", Typmod: -1, NotNull: true, Default: "nextval('" + seq + "'::regclass)"}
	}
	varchar := func(name string, n int32, comment string) Column {
		return Column{Name: name, Type: "varchar", Typmod: n + 4, NotNull: true, Comment: comment}
	}
	price := Column{Name: "price", Type: "numeric", Typmod: (10<<16 | 2) + 4}
	return &Schema{
		Database: clientsDatabase,
		User:     user,
		Tables: []Table{{
			Name: "authors",
			Columns: []Column{serial("authors_id_seq"), varchar("name", 100, ""), varchar("email", 255, ""),
				{Name: "active", Type: "bool", Typmod: -1, NotNull: true, Default: "true"},
				{Name: "created_at", Type: "timestamptz", Typmod: -1, NotNull: true, Default: "now()"}},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "authors_pkey",
			Uniques: []Unique{{Name: "authors_email_key", Columns: []string{"email"}}},
			Comment: "People who write books",
		}, {
			Name: "books",
			Columns: []Column{serial("books_id_seq"),
				{Name: "author_id", Type: "int4", Typmod: -1, NotNull: true},
				varchar("title", 200, "Title as printed"), price,
				{Name: "in_print", Type: "bool", Typmod: -1, Default: "false"},
				{Name: "published_at", Type: "timestamptz", Typmod: -1}},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "books_pkey",
			Indexes: []Index{{Name: "books_title_idx", Columns: []string{"title"}}},
			ForeignKeys: []ForeignKey{{Name: "books_author_id_fkey", Columns: []string{"author_id"},
				RefTable: "authors", RefColumns: []string{"id"}, OnUpdate: 'a', OnDelete: 'c'}},
			Checks: []Check{{Name: "books_price_check", Expr: "(price >= (0)::numeric)"}},
		}},
		Views: []View{{
			Name: "books_in_print",
			Columns: []Column{{Name: "id", Type: "int4", Typmod: -1}, {Name: "title", Type: "varchar", Typmod: 204},
				{Name: "price", Type: "numeric", Typmod: (10<<16 | 2) + 4}},
			Definition: " SELECT books.id,\n    books.title,\n    books.price\n   FROM books\n  WHERE books.in_print;",
		}},
		Sequences: []Sequence{
			{Name: "authors_id_seq", Type: "int4", Start: 1, Increment: 1, Min: 1, Max: 1<<31 - 1, OwnedByTable: "authors", OwnedByColumn: "id"},
			{Name: "books_id_seq", Type: "int4", Start: 1, Increment: 1, Min: 1, Max: 1<<31 - 1, OwnedByTable: "books", OwnedByColumn: "id"},
			{Name: "invoice_seq", Type: "int8", Start: 1000, Increment: 1, Min: 1, Max: 1<<63 - 1},
		},
	}
}

// clientEngine runs corpus entries on an Engine of clientsSchema.
type clientEngine struct {
	e    *Engine
	oids map[string]string // oid → symbol
	err  error             // listing the objects failed: every entry with a placeholder fails
}

func newClientEngine(t *testing.T, user string) *clientEngine {
	t.Helper()
	e, err := New(clientsSchema(user))
	if err != nil {
		t.Fatalf("New(clientsSchema): %v", err)
	}
	t.Cleanup(func() { e.Close() })
	r := &clientEngine{e: e}
	r.oids, r.err = clientObjectOIDs(func(sql string) (*clientResult, error) { return r.query(sql, nil) })
	return r
}

func (r *clientEngine) query(sql string, params []*string) (*clientResult, error) {
	args := make([]any, len(params))
	for i, p := range params {
		if p != nil {
			args[i] = *p
		}
	}
	res, err := r.e.Query(context.Background(), sql, args)
	if err != nil {
		return nil, err
	}
	return engineClientResult(res), nil
}

// run runs one entry, its placeholders resolved to the Engine's oids.
func (r *clientEngine) run(e clientEntry) (*clientResult, error) {
	sql, params, err := resolveClientEntry(e, r.oids, r.err)
	if err != nil {
		return nil, err
	}
	if !Wants(sql) {
		return nil, fmt.Errorf("Wants refuses it")
	}
	return r.query(sql, params)
}

// resolveClientEntry puts a database's oids (oid → symbol, or the error that
// listing them gave) into an entry's statement and parameters.
func resolveClientEntry(e clientEntry, oids map[string]string, listErr error) (string, []*string, error) {
	if !clientOIDPlaceholder.MatchString(e.SQL) && !strings.Contains(fmt.Sprint(paramTexts(e.Params)), "{{") {
		return e.SQL, e.Params, nil
	}
	if listErr != nil {
		return "", nil, listErr
	}
	bySymbol := invertMap(oids)
	sql, err := putOIDs(e.SQL, bySymbol)
	if err != nil {
		return "", nil, err
	}
	params := make([]*string, len(e.Params))
	for i, p := range e.Params {
		if p == nil {
			continue
		}
		v, err := putOIDs(*p, bySymbol)
		if err != nil {
			return "", nil, err
		}
		params[i] = &v
	}
	return sql, params, nil
}

func paramTexts(ps []*string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// clientCounts tallies pass/fail per client, printed as one line each.
type clientCounts map[string][2]int

func (c clientCounts) add(client string, ok bool) {
	n := c[client]
	if ok {
		n[0]++
	} else {
		n[1]++
	}
	c[client] = n
}

func (c clientCounts) String() string {
	clients := make([]string, 0, len(c))
	for k := range c {
		clients = append(clients, k)
	}
	sort.Strings(clients)
	var b strings.Builder
	for _, k := range clients {
		fmt.Fprintf(&b, "  %-11s %3d pass %3d fail\n", k, c[k][0], c[k][1])
	}
	return b.String()
}

// TestClientCorpusOnEngine: the Engine answers every catalog query of the
// corpus without an error (Wants accepting it first).
func TestClientCorpusOnEngine(t *testing.T) {
	entries := loadClientCorpus(t)
	r := newClientEngine(t, "postgres")
	counts := clientCounts{}
	var failed []string
	for _, e := range entries {
		_, err := r.run(e)
		counts.add(e.Client, err == nil)
		if err != nil {
			failed = append(failed, fmt.Sprintf("  %-14s %-40.40s %s", e.ID, e.Op, firstLineOf(err.Error())))
		}
	}
	t.Logf("per client:\n%s", counts)
	if len(failed) > 0 {
		t.Errorf("%d of %d corpus entries fail on the Engine:\n%s", len(failed), len(entries), strings.Join(failed, "\n"))
	}
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func TestParseLoggedParams(t *testing.T) {
	got, err := parseLoggedParams(`$1 = 'a''b', $2 = NULL, $3 = ''`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] == nil || *got[0] != "a'b" || got[1] != nil || got[2] == nil || *got[2] != "" {
		t.Fatalf("parseLoggedParams = %v", paramTexts(got))
	}
	for _, bad := range []string{`$2 = 'x'`, `$1 = 'x`, `$1 = 12`} {
		if _, err := parseLoggedParams(bad); err == nil {
			t.Errorf("parseLoggedParams(%q) accepted it", bad)
		}
	}
}

func TestHasTopLevelOrderBy(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1 ORDER BY 1":                                     true,
		"select a from t\norder\n  by a":                          true,
		"SELECT array(SELECT x FROM y ORDER BY x) FROM t":         false,
		"SELECT 'order by' FROM t":                                false,
		`SELECT "order" FROM t -- order by` + "\n":                false,
		"SELECT 1 /* order by */":                                 false,
		"SELECT a FROM (SELECT a FROM t ORDER BY a) s ORDER BY a": true,
		"SELECT string_agg(x, ',' ORDER BY x) FROM t":             false,
		"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1":        true,
		"SELECT a, row_number() OVER (ORDER BY a) FROM t":         false,
	} {
		if got := hasTopLevelOrderBy(sql); got != want {
			t.Errorf("hasTopLevelOrderBy(%q) = %v, want %v", sql, got, want)
		}
	}
}

// TestClientCorpusParses: every file of the corpus parses, every entry is
// a SELECT of one client operation, and every placeholder names an object
// of clientsSchema.
func TestClientCorpusParses(t *testing.T) {
	entries := loadClientCorpus(t)
	objects := clientSchemaObjects(clientsSchema("postgres"))
	for _, e := range entries {
		head := strings.ToLower(strings.TrimSpace(e.SQL))
		if !strings.HasPrefix(head, "select") && !strings.HasPrefix(head, "with") {
			t.Errorf("%s (%s) is not a SELECT: %.60q", e.ID, e.Op, e.SQL)
		}
		for _, p := range clientOIDPlaceholder.FindAllString(e.SQL+strings.Join(paramTexts(e.Params), " "), -1) {
			if !objects[p] {
				t.Errorf("%s: placeholder %s names no object of clientsSchema", e.ID, p)
			}
		}
	}
}

// clientSchemaObjects are the placeholders naming s's objects.
func clientSchemaObjects(s *Schema) map[string]bool {
	objects := map[string]bool{}
	add := func(kind string, names ...string) {
		for _, n := range names {
			objects["{{"+kind+" "+n+"}}"] = true
		}
	}
	for _, tb := range s.Tables {
		add("class", tb.Name, tb.PrimaryKeyName)
		add("type", tb.Name)
		add("constraint", tb.PrimaryKeyName)
		for _, u := range tb.Uniques {
			add("class", u.Name)
			add("constraint", u.Name)
		}
		for _, ix := range tb.Indexes {
			add("class", ix.Name)
		}
		for _, fk := range tb.ForeignKeys {
			add("constraint", fk.Name)
		}
		for _, c := range tb.Checks {
			add("constraint", c.Name)
		}
	}
	for _, v := range s.Views {
		add("class", v.Name)
		add("type", v.Name)
	}
	for _, q := range s.Sequences {
		add("class", q.Name)
		add("type", q.Name)
	}
	return objects
}
