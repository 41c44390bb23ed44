package pgcatalog

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// The differential half of the client corpus: every entry on PostgreSQL
// (RELCHAIN_TEST_PG, a superuser's DSN on a private cluster) and on the
// Engine, results compared after the oids are normalized.

// clientPG runs corpus entries on a fresh database of schema.sql.
type clientPG struct {
	conn  *pgx.Conn
	user  string
	types map[uint32]string // pg_type oid → name
	oids  map[string]string // oid → symbol
}

// newClientPG creates the database clientsDatabase afresh on the server
// of dsn, with testdata/clients/schema.sql in it, and connects to it.
func newClientPG(t *testing.T, dsn string) *clientPG {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to RELCHAIN_TEST_PG: %v", err)
	}
	defer admin.Close(ctx)
	for _, q := range []string{"DROP DATABASE IF EXISTS " + clientsDatabase + " WITH (FORCE)", "CREATE DATABASE " + clientsDatabase} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { dropClientsDatabase(t, dsn) }) // after the connection's Close below
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = clientsDatabase
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to %s: %v", clientsDatabase, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	schema, err := os.ReadFile(filepath.Join("testdata", "clients", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().Exec(ctx, string(schema)).ReadAll(); err != nil {
		t.Fatalf("create the corpus schema: %v", err)
	}
	r := &clientPG{conn: conn, user: cfg.User, types: map[uint32]string{}}
	if err := r.loadTypes(ctx); err != nil {
		t.Fatal(err)
	}
	if r.oids, err = clientObjectOIDs(func(sql string) (*clientResult, error) { return r.query(sql, nil) }); err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	return r
}

// dropClientsDatabase drops clientsDatabase from the server of dsn.
func dropClientsDatabase(t *testing.T, dsn string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Errorf("drop %s: connect: %v", clientsDatabase, err)
		return
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+clientsDatabase+" WITH (FORCE)"); err != nil {
		t.Errorf("drop %s: %v", clientsDatabase, err)
	}
}

func (r *clientPG) loadTypes(ctx context.Context) error {
	rows, err := r.conn.Query(ctx, "SELECT oid, typname FROM pg_catalog.pg_type")
	if err != nil {
		return fmt.Errorf("read pg_type: %w", err)
	}
	var oid uint32
	var name string
	_, err = pgx.ForEachRow(rows, []any{&oid, &name}, func() error { r.types[oid] = name; return nil })
	if err != nil {
		return fmt.Errorf("read pg_type: %w", err)
	}
	return nil
}

// query runs sql with its parameters sent as a client sends them: text,
// their types left to the server; results in text.
func (r *clientPG) query(sql string, params []*string) (*clientResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	values := make([][]byte, len(params))
	for i, p := range params {
		if p != nil {
			values[i] = []byte(*p)
		}
	}
	rr := r.conn.PgConn().ExecParams(ctx, sql, values, nil, nil, nil)
	out := &clientResult{}
	for _, fd := range rr.FieldDescriptions() {
		out.Names = append(out.Names, fd.Name)
		out.Types = append(out.Types, r.types[fd.DataTypeOID])
		out.Typmods = append(out.Typmods, fd.TypeModifier)
	}
	for rr.NextRow() {
		row := make([]*string, len(rr.Values()))
		for i, v := range rr.Values() {
			if v != nil {
				s := string(v)
				row[i] = &s
			}
		}
		out.Rows = append(out.Rows, row)
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	return out, nil
}

func (r *clientPG) run(e clientEntry) (*clientResult, error) {
	sql, params, err := resolveClientEntry(e, r.oids, nil)
	if err != nil {
		return nil, err
	}
	return r.query(sql, params)
}

// clientMaskedTypes are the column types whose values differ between two
// databases of the same schema: oids (past PostgreSQL's own, below 16384)
// and transaction ids.
var clientMaskedTypes = map[string]bool{"oid": true, "regclass": true, "regtype": true, "regproc": true,
	"regprocedure": true, "regnamespace": true, "regrole": true, "xid": true, "xid8": true}

var clientOIDToken = regexp.MustCompile(`\b\d{5,10}\b`)

// normalize makes r comparable across databases: an oid of the schema's
// objects (oids: oid → symbol) anywhere in a value becomes its symbol
// ({{class authors}}); a value of a masked type that is still an integer
// of 16384 or more (another object's oid: a database's) becomes <oid>,
// any xid <xid>. Other values, PostgreSQL's own oids among them, stay.
func normalizeClientResult(r *clientResult, oids map[string]string) *clientResult {
	out := &clientResult{Names: r.Names, Types: r.Types, Typmods: r.Typmods}
	for _, row := range r.Rows {
		cells := make([]*string, len(row))
		for i, v := range row {
			if v == nil {
				continue
			}
			s := clientOIDToken.ReplaceAllStringFunc(*v, func(tok string) string {
				if sym, ok := oids[tok]; ok {
					return sym
				}
				return tok
			})
			typ := ""
			if i < len(r.Types) {
				typ = r.Types[i]
			}
			if typ == "xid" || typ == "xid8" {
				s = "<xid>"
			} else if n, err := strconv.ParseInt(s, 10, 64); err == nil && clientMaskedTypes[typ] && n >= 16384 {
				s = "<oid>"
			}
			cells[i] = &s
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

// without blanks the named columns (allowed to differ) of r.
func withoutColumns(r *clientResult, cols map[string]bool) *clientResult {
	if len(cols) == 0 {
		return r
	}
	out := &clientResult{Names: r.Names, Types: append([]string(nil), r.Types...), Typmods: append([]int32(nil), r.Typmods...)}
	for i, n := range r.Names {
		if cols[n] && i < len(out.Types) && i < len(out.Typmods) {
			out.Types[i], out.Typmods[i] = "-", -1
		}
	}
	for _, row := range r.Rows {
		cells := append([]*string(nil), row...)
		for i := range cells {
			if i < len(r.Names) && cols[r.Names[i]] {
				cells[i] = nil
			}
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

// compareClientResults lists how got (the Engine's) differs from want
// (PostgreSQL's), both normalized: columns' names and types, the number of
// rows, then values (rows sorted first unless ordered).
func compareClientResults(want, got *clientResult, ordered bool) []string {
	if a, b := clientColumnsText(want), clientColumnsText(got); a != b {
		return []string{"columns: PostgreSQL (" + a + "), Engine (" + b + ")"}
	}
	if len(want.Rows) != len(got.Rows) {
		return []string{fmt.Sprintf("rows: PostgreSQL %d, Engine %d; PostgreSQL's first: %s; Engine's first: %s",
			len(want.Rows), len(got.Rows), clientRowsText(want.Rows, 3), clientRowsText(got.Rows, 3))}
	}
	w, g := want.Rows, got.Rows
	if !ordered {
		w, g = sortedClientRows(w), sortedClientRows(g)
	}
	var diffs []string
	for i := range w {
		if len(w[i]) != len(g[i]) || len(w[i]) != len(want.Names) {
			diffs = append(diffs, fmt.Sprintf("row %d: PostgreSQL %s, Engine %s", i+1, clientRowText(w[i]), clientRowText(g[i])))
			continue
		}
		for j := range w[i] {
			if a, b := clientCellText(w[i][j]), clientCellText(g[i][j]); a != b {
				diffs = append(diffs, fmt.Sprintf("row %d %s: PostgreSQL %s, Engine %s", i+1, want.Names[j], a, b))
			}
		}
	}
	if len(diffs) > 5 {
		diffs = append(diffs[:5], fmt.Sprintf("… %d more", len(diffs)-5))
	}
	return diffs
}

func clientColumnsText(r *clientResult) string {
	parts := make([]string, len(r.Names))
	for i, n := range r.Names {
		typ := "?"
		if i < len(r.Types) {
			typ = r.Types[i]
		}
		if i < len(r.Typmods) && r.Typmods[i] != -1 {
			typ += fmt.Sprintf("(typmod %d)", r.Typmods[i])
		}
		parts[i] = n + " " + typ
	}
	return strings.Join(parts, ", ")
}

func clientCellText(v *string) string {
	if v == nil {
		return "NULL"
	}
	return strconv.Quote(*v)
}

func clientRowText(row []*string) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = clientCellText(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func clientRowsText(rows [][]*string, n int) string {
	var parts []string
	for i, row := range rows {
		if i == n {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, clientRowText(row))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func sortedClientRows(rows [][]*string) [][]*string {
	out := append([][]*string(nil), rows...)
	sort.SliceStable(out, func(i, j int) bool { return clientRowText(out[i]) < clientRowText(out[j]) })
	return out
}

// knownClientDifference is one line of testdata/clients/known-differences.txt.
type knownClientDifference struct {
	ID, Column, Why string
	used            bool // its entry differed from PostgreSQL
}

// loadKnownClientDifferences reads the allow-list: "<entry id> <column or *>
// <why>" a line, # comments and blank lines skipped.
func loadKnownClientDifferences(t *testing.T) map[string][]*knownClientDifference {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "clients", "known-differences.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]*knownClientDifference{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 || strings.TrimSpace(f[2]) == "" {
			t.Fatalf("known-differences.txt:%d: want <entry id> <column or *> <why>, got %q", n, line)
		}
		out[f[0]] = append(out[f[0]], &knownClientDifference{ID: f[0], Column: f[1], Why: strings.TrimSpace(f[2])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClientCorpusStableOnPostgres: every corpus entry runs on
// PostgreSQL as captured, and two fresh databases of the schema (other
// oids) give the same results once normalized — the corpus, its
// parameters and placeholders, and the normalization the differential
// test relies on are sound.
func TestClientCorpusStableOnPostgres(t *testing.T) {
	dsn := pgtest.ServerDSN(t)
	entries := loadClientCorpus(t)
	first := map[string]*clientResult{}
	authors := map[string]bool{}  // the oid of authors in each round
	answered := map[string]bool{} // placeholder → an entry naming it had rows
	for round := range 2 {
		r := newClientPG(t, dsn)
		authors[invertMap(r.oids)["{{class authors}}"]] = true
		for _, e := range entries {
			res, err := r.run(e)
			if err != nil {
				t.Errorf("%s (%s): PostgreSQL: %v", e.ID, e.Op, err)
				continue
			}
			for _, p := range clientOIDPlaceholder.FindAllString(e.SQL+strings.Join(paramTexts(e.Params), " "), -1) {
				answered[p] = answered[p] || len(res.Rows) > 0
			}
			res = sessionRoleRows(normalizeClientResult(res, r.oids), r.user)
			if round == 0 {
				first[e.ID] = res
			} else if diffs := compareClientResults(first[e.ID], res, e.Ordered); len(diffs) > 0 {
				t.Errorf("%s (%s) differs between two databases of the schema: %s", e.ID, e.Op, strings.Join(diffs, "; "))
			}
		}
		r.conn.Close(context.Background())
	}
	for p, ok := range answered {
		if !ok {
			t.Errorf("no entry naming %s returns a row: is the oid put in right?", p)
		}
	}
	if len(authors) != 2 {
		t.Errorf("authors has the same oid in both databases (%v): the normalization went untested", authors)
	}
}

// TestClientCorpusMatchesPostgres: every corpus entry gives on the Engine
// what it gives on PostgreSQL — the same columns (names and types), rows
// and values, oids normalized — but for the differences
// known-differences.txt lists with their reasons (a line no entry needs
// any more fails the test too: the list only shrinks).
func TestClientCorpusMatchesPostgres(t *testing.T) {
	dsn := pgtest.ServerDSN(t)
	entries := loadClientCorpus(t)
	known := loadKnownClientDifferences(t)
	pg := newClientPG(t, dsn)
	eng := newClientEngine(t, pg.user)
	counts := clientCounts{}
	var report []string
	for _, e := range entries {
		status, diffs := diffClientEntry(t, e, pg, eng, known[e.ID])
		counts.add(e.Client, status != "FAIL")
		if status != "ok" {
			report = append(report, fmt.Sprintf("%-14s %-4s %-40.40s %s", e.ID, status, e.Op, strings.Join(diffs, "\n"+strings.Repeat(" ", 61))))
		}
	}
	t.Logf("per client:\n%s", counts)
	if len(report) > 0 {
		t.Logf("entries that differ (FAIL: not allowed; known: known-differences.txt):\n%s", strings.Join(report, "\n"))
	}
	for _, ks := range known {
		for _, k := range ks {
			if !k.used {
				t.Errorf("known-differences.txt: %s %s no longer differs: delete the line", k.ID, k.Column)
			}
		}
	}
	failed := 0
	for _, c := range counts {
		failed += c[1]
	}
	if failed > 0 {
		t.Errorf("%d of %d corpus entries differ from PostgreSQL (the table above)", failed, len(entries))
	}
}

// compareParamTypes compares the parameter types the Engine's Describe
// gives an entry with those PostgreSQL infers ("" when the same, or when
// the entry has no parameters): a client that binds typed values encodes
// them by the described types.
func compareParamTypes(e clientEntry, pg *clientPG, eng *clientEngine) string {
	if len(e.Params) == 0 {
		return ""
	}
	pgSQL, _, err := resolveClientEntry(e, pg.oids, nil)
	if err != nil {
		return "parameters: " + err.Error()
	}
	engSQL, _, err := resolveClientEntry(e, eng.oids, eng.err)
	if err != nil {
		return "parameters: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sd, err := pg.conn.PgConn().Prepare(ctx, "", pgSQL, nil)
	if err != nil {
		return "parameters: PostgreSQL: " + err.Error()
	}
	want := make([]string, len(sd.ParamOIDs))
	for i, oid := range sd.ParamOIDs {
		want[i] = pg.types[oid]
	}
	got, _, err := eng.e.Describe(engSQL)
	if err != nil {
		return "parameters: Engine's Describe: " + firstLineOf(err.Error())
	}
	if a, b := strings.Join(want, ", "), strings.Join(got, ", "); a != b {
		return "parameter types: PostgreSQL (" + a + "), Engine (" + b + ")"
	}
	return ""
}

// diffClientEntry runs e on both and returns "ok", "known" (differences all
// allowed) or "FAIL", with the differences.
func diffClientEntry(t *testing.T, e clientEntry, pg *clientPG, eng *clientEngine, known []*knownClientDifference) (string, []string) {
	want, err := pg.run(e)
	if err != nil {
		t.Errorf("%s (%s): PostgreSQL itself fails it (recapture the corpus?): %v", e.ID, e.Op, err)
		return "FAIL", []string{"PostgreSQL: " + err.Error()}
	}
	got, err := eng.run(e)
	if err != nil {
		return "FAIL", []string{"Engine: " + firstLineOf(err.Error())}
	}
	if d := compareParamTypes(e, pg, eng); d != "" {
		return "FAIL", []string{d}
	}
	want, got = normalizeClientResult(want, pg.oids), normalizeClientResult(got, eng.oids)
	diffs := compareClientResults(want, got, e.Ordered)
	if len(diffs) == 0 {
		return "ok", nil
	}
	for _, k := range known {
		k.used = true // the entry differs: its lines are not stale
	}
	allowed, systemRows := map[string]bool{}, false
	for _, k := range known {
		switch k.Column {
		case "*":
			return "known", diffs
		case systemRowsToken:
			systemRows = true
		default:
			allowed[k.Column] = true
		}
	}
	if len(allowed) == 0 && !systemRows {
		return "FAIL", diffs
	}
	want, got = withoutColumns(want, allowed), withoutColumns(got, allowed)
	ordered := e.Ordered
	if systemRows {
		// The schema's rows are compared as a set: among themselves a
		// listing orders them by oid (getTypeInfo), which the Engine
		// allocates in its own order.
		names := clientSchemaNames(clientsSchema(pg.user))
		want, got, ordered = schemaRows(want, names, pg.user), schemaRows(got, names, pg.user), false
	}
	if rest := compareClientResults(want, got, ordered); len(rest) > 0 {
		return "FAIL", rest
	}
	return "known", diffs
}

// sessionRoleRows keeps, of a role listing (a column of roleNameColumns),
// the session role's rows only, and of a database listing (datname, or
// psql's "Name" beside "Encoding") the corpus database's: roles and
// databases are the server's, and other tests sharing it create and drop
// theirs between two rounds.
func sessionRoleRows(r *clientResult, user string) *clientResult {
	keep, col := user, slices.IndexFunc(r.Names, func(n string) bool { return roleNameColumns[n] })
	if col < 0 {
		keep, col = clientsDatabase, slices.Index(r.Names, "datname")
		if col < 0 && slices.Contains(r.Names, "Encoding") {
			col = slices.Index(r.Names, "Name")
		}
	}
	if col < 0 {
		return r
	}
	out := &clientResult{Names: r.Names, Types: r.Types, Typmods: r.Typmods}
	for _, row := range r.Rows {
		if col < len(row) && row[col] != nil && *row[col] == keep {
			out.Rows = append(out.Rows, row)
		}
	}
	return out
}

// systemRowsToken, as the column of a known difference, allows the
// Engine's result to differ in rows that name none of the schema's objects
// (PostgreSQL's own relations, types, databases …); the rows that name one
// must still match.
const systemRowsToken = "system-rows"

// clientSchemaNames are the names of s's objects and database.
func clientSchemaNames(s *Schema) map[string]bool {
	names := map[string]bool{s.Database: true}
	for p := range clientSchemaObjects(s) {
		names[clientOIDPlaceholder.FindStringSubmatch(p)[2]] = true
	}
	return names
}

// roleNameColumns are the result columns that name a role in the role
// listings of the corpus (pg_roles.rolname, pg_user.usename, psql's).
var roleNameColumns = map[string]bool{"rolname": true, "usename": true, "Role name": true}

// schemaRows keeps the rows of r that name an object of the schema: a
// value that is one of names, or that holds an oid symbol of one; and a
// role listing's row of the session's role user (other roles come and go
// on a server other tests share).
func schemaRows(r *clientResult, names map[string]bool, user string) *clientResult {
	out := &clientResult{Names: r.Names, Types: r.Types, Typmods: r.Typmods}
rows:
	for _, row := range r.Rows {
		for i, v := range row {
			if v != nil && *v == user && i < len(r.Names) && roleNameColumns[r.Names[i]] {
				out.Rows = append(out.Rows, row)
				continue rows
			}
		}
		for _, v := range row {
			if v != nil && (names[*v] || strings.Contains(*v, "{{")) {
				out.Rows = append(out.Rows, row)
				break
			}
		}
	}
	return out
}

// TestNormalizeClientResult: the schema's oids become their symbols
// anywhere, other oids of 16384 or more become <oid> only in oid-typed
// columns, xids <xid>; PostgreSQL's own oids and other integers (a typmod)
// stay.
func TestNormalizeClientResult(t *testing.T) {
	s := func(v string) *string { return &v }
	r := &clientResult{
		Names: []string{"oid", "relname", "atttypmod", "conkey_rel", "frozen"},
		Types: []string{"oid", "name", "int4", "text", "xid"},
		Rows: [][]*string{
			{s("16390"), s("authors"), s("655366"), s("{16390,16400}"), s("731")},
			{s("16999"), s("pg_class"), s("-1"), nil, s("1")},
			{s("1259"), s("pg_class"), s("16999"), s("16999"), nil},
		},
	}
	got := normalizeClientResult(r, map[string]string{"16390": "{{class authors}}"})
	want := [][]string{
		{"{{class authors}}", "authors", "655366", "{{{class authors}},16400}", "<xid>"},
		{"<oid>", "pg_class", "-1", "NULL", "<xid>"},
		{"1259", "pg_class", "16999", "16999", "NULL"},
	}
	for i, row := range got.Rows {
		for j, v := range row {
			text := "NULL"
			if v != nil {
				text = *v
			}
			if text != want[i][j] {
				t.Errorf("row %d %s: %q, want %q", i+1, r.Names[j], text, want[i][j])
			}
		}
	}
}

// TestCompareClientResults: rows compared in order only when ordered;
// column types and type modifiers, row counts and values reported.
func TestCompareClientResults(t *testing.T) {
	s := func(v string) *string { return &v }
	res := func(typmod int32, rows ...[]*string) *clientResult {
		return &clientResult{Names: []string{"a"}, Types: []string{"varchar"}, Typmods: []int32{typmod}, Rows: rows}
	}
	x, y := []*string{s("x")}, []*string{s("y")}
	if d := compareClientResults(res(-1, x, y), res(-1, y, x), false); len(d) != 0 {
		t.Errorf("unordered: %v", d)
	}
	if d := compareClientResults(res(-1, x, y), res(-1, y, x), true); len(d) != 2 {
		t.Errorf("ordered: want the two rows reported, got %v", d)
	}
	if d := compareClientResults(res(7, x), res(-1, x), false); len(d) != 1 || !strings.Contains(d[0], "typmod 7") {
		t.Errorf("typmod: %v", d)
	}
	if d := compareClientResults(res(-1, x), res(-1, x, y), false); len(d) != 1 || !strings.HasPrefix(d[0], "rows: PostgreSQL 1, Engine 2") {
		t.Errorf("row count: %v", d)
	}
	if d := compareClientResults(res(-1, x), res(-1, []*string{nil}), false); len(d) != 1 || !strings.Contains(d[0], `PostgreSQL "x", Engine NULL`) {
		t.Errorf("NULL: %v", d)
	}
}

// TestSchemaRows: system-rows keeps the rows naming the schema's objects.
func TestSchemaRows(t *testing.T) {
	s := func(v string) *string { return &v }
	r := &clientResult{Names: []string{"schema", "name"}, Types: []string{"name", "name"}, Rows: [][]*string{
		{s("pg_catalog"), s("pg_class")}, {s("public"), s("books")}, {s("x"), s("{{type _authors}}")}, {nil, s("shop")},
		{s("me"), s("t")},
	}}
	got := schemaRows(r, clientSchemaNames(clientsSchema("me")), "me")
	if len(got.Rows) != 3 || *got.Rows[0][1] != "books" || *got.Rows[2][1] != "shop" {
		t.Errorf("schemaRows kept %s", clientRowsText(got.Rows, 10))
	}
	roles := &clientResult{Names: []string{"rolname", "rolsuper"}, Types: []string{"name", "bool"}, Rows: [][]*string{
		{s("pg_monitor"), s("f")}, {s("me"), s("t")}, {s("other"), s("f")},
	}}
	if got := schemaRows(roles, nil, "me"); len(got.Rows) != 1 || *got.Rows[0][0] != "me" {
		t.Errorf("schemaRows kept %s", clientRowsText(got.Rows, 10))
	}
}
