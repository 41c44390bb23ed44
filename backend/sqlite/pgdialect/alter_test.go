package pgdialect

import (
	"reflect"
	"strings"
	"testing"
)

// schemaCatalog adds the schema texts ALTER TABLE rebuilds from.
type schemaCatalog struct {
	staticCatalog
	sql     map[string]string
	indexes map[string][]string
}

func (c schemaCatalog) TableSQL(table string) (string, []string, bool) {
	s, ok := c.sql[table]
	return s, c.indexes[table], ok
}

var alterCatalog = schemaCatalog{
	staticCatalog: staticCatalog{
		"acct":   {col("id", "int4", -1), col("owner", "varchar", 24), col("n", "int4", -1)},
		"parent": {col("id", "int4", -1)},
		"child":  {col("id", "int4", -1), col("parent", "int4", -1)},
	},
	sql: map[string]string{
		"acct":   `CREATE TABLE "acct" ("id" int4 serial acct_id_seq NOT NULL, "owner" varchar(20) DEFAULT ('x'), "n" int4 CONSTRAINT "acct_n_uq" UNIQUE, CONSTRAINT "acct_n_check" CHECK (("n" >= 0)))`,
		"parent": `CREATE TABLE "parent" ("id" int4 PRIMARY KEY NOT NULL)`,
		"child":  `CREATE TABLE "child" ("id" int4 PRIMARY KEY NOT NULL, "parent" int4 REFERENCES "parent" ("id") ON DELETE SET NULL, UNIQUE ("id", "parent"))`,
	},
	indexes: map[string][]string{"acct": {`CREATE INDEX "acct_owner_idx" ON "acct" ("owner")`}},
}

// The schema text is split into its elements and written back verbatim.
func TestParseCreateRoundTrips(t *testing.T) {
	for table, create := range alterCatalog.sql {
		elems, ok := parseCreate(create)
		if !ok {
			t.Fatalf("%s: not parsed", table)
		}
		var parts []string
		for _, e := range elems {
			parts = append(parts, joinTokens(e.tokens))
		}
		if got := `CREATE TABLE "` + table + `" (` + strings.Join(parts, ", ") + ")"; got != create {
			t.Errorf("round trip\n got %s\nwant %s", got, create)
		}
	}
	for _, bad := range []string{`CREATE TABLE "t" ("a" int4`, `CREATE INDEX "i" ON "t" ("a")`, `CREATE TABLE "t" ("a" int4, )`} {
		if _, ok := parseCreate(bad); ok {
			t.Errorf("%s: parsed", bad)
		}
	}
}

// Constraints are found under their names: explicit ones, and
// PostgreSQL's defaults for unnamed keys and foreign keys.
func TestConstraintNames(t *testing.T) {
	al, err := (&translator{cat: alterCatalog}).loadAlteration("child", alterCatalog.staticCatalog["child"])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range al.elems {
		got = append(got, al.constraintNames(e)...)
	}
	if want := []string{"child_pkey", "child_parent_fkey", "child_id_parent_key"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	ts, ok := withoutClause(al.elems[1].tokens, "child_parent_fkey", al)
	if !ok || joinTokens(ts) != `"parent" int4` {
		t.Errorf("REFERENCES clause removed: %q %v", joinTokens(ts), ok)
	}
}

// The statements of a rebuild, in order; a change here is a change of
// the translation's rules.
func TestAlterRebuildStatements(t *testing.T) {
	tr, err := Translate("ALTER TABLE acct ALTER COLUMN owner SET NOT NULL, ADD PRIMARY KEY (id)", alterCatalog)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`SELECT pg_raise('23502', 'column "owner" of relation "acct" contains null values', "id") FROM (SELECT "id" AS "id", "owner" AS "owner", "n" AS "n" FROM "acct") WHERE "owner" IS NULL`,
		`SELECT pg_raise('23505', 'could not create unique index "acct_pkey"', count(*)) FROM (SELECT "id" AS "id", "owner" AS "owner", "n" AS "n" FROM "acct") WHERE "id" IS NOT NULL GROUP BY "id" HAVING count(*) > 1`,
		`CREATE TABLE "acct~new" ("id" int4 serial acct_id_seq NOT NULL, "owner" varchar(20) DEFAULT ('x') NOT NULL, "n" int4 CONSTRAINT "acct_n_uq" UNIQUE, CONSTRAINT "acct_n_check" CHECK (("n" >= 0)), CONSTRAINT "acct_pkey" PRIMARY KEY ("id"))`,
		`INSERT INTO "acct~new" ("id", "owner", "n") SELECT "id", "owner", "n" FROM "acct"`,
		`DROP TABLE "acct"`,
		`ALTER TABLE "acct~new" RENAME TO "acct"`,
		`CREATE INDEX "acct_owner_idx" ON "acct" ("owner")`,
	}
	if !reflect.DeepEqual(tr.Statements, want) {
		t.Errorf("statements\n got %q\nwant %q", tr.Statements, want)
	}
	if !tr.DDL {
		t.Error("not DDL")
	}
	tr, err = Translate("ALTER TABLE parent ALTER COLUMN id DROP DEFAULT", alterCatalog)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		`CREATE TABLE "parent~new" ("id" int4 PRIMARY KEY NOT NULL)`,
		`INSERT INTO "parent~new" ("id") SELECT "id" FROM "parent"`,
		`CREATE TABLE "child~new" ("id" int4 PRIMARY KEY NOT NULL, "parent" int4 REFERENCES "parent~new" ("id") ON DELETE SET NULL, UNIQUE ("id", "parent"))`,
		`INSERT INTO "child~new" ("id", "parent") SELECT "id", "parent" FROM "child"`,
		`DROP TABLE "child"`,
		`DROP TABLE "parent"`,
		`ALTER TABLE "parent~new" RENAME TO "parent"`,
		`ALTER TABLE "child~new" RENAME TO "child"`,
	}
	if !reflect.DeepEqual(tr.Statements, want) {
		t.Errorf("a referenced table's rebuild\n got %q\nwant %q", tr.Statements, want)
	}
}

// DROP COLUMN drops a plain index on the column with it, as PostgreSQL
// does (Django's RemoveField of a foreign key leaves the key's index); an
// expression or partial index on it is refused.
func TestDropColumnDropsItsIndexes(t *testing.T) {
	cat := alterCatalog
	cat.indexes = map[string][]string{"acct": {
		`CREATE INDEX "acct_owner_idx" ON "acct" ("owner")`,
		`CREATE UNIQUE INDEX "acct_n_owner_idx" ON "acct" ("n", "owner" DESC)`,
		`CREATE INDEX "acct_n_idx" ON "acct" ("n")`,
	}}
	tr, err := Translate("ALTER TABLE acct DROP COLUMN owner", cat)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Statements[len(tr.Statements)-1]; got != `CREATE INDEX "acct_n_idx" ON "acct" ("n")` || strings.Contains(strings.Join(tr.Statements, ";"), "owner_idx") {
		t.Errorf("statements %q: want the indexes on owner gone and acct_n_idx re-created", tr.Statements)
	}
	for _, ix := range []string{`CREATE INDEX "acct_lower" ON "acct" (lower("owner"))`, `CREATE INDEX "acct_part" ON "acct" ("n") WHERE "owner" IS NOT NULL`} {
		cat.indexes = map[string][]string{"acct": {ix}}
		if _, err := Translate("ALTER TABLE acct DROP COLUMN owner", cat); !errIs(err, "0A000") || !strings.Contains(err.Error(), "expression or partial index") {
			t.Errorf("%s: DROP COLUMN gave %v, want the refusal", ix, err)
		}
	}
}

func TestAlterRefusesAndErrs(t *testing.T) {
	cases := []struct{ sql, code, mention string }{
		{"ALTER TABLE acct ALTER COLUMN id TYPE int8", "0A000", "serial"},
		{"ALTER TABLE acct ALTER COLUMN owner TYPE varchar(0)", "22023", "length"},
		{"ALTER TABLE acct ALTER COLUMN owner TYPE int4", "42804", "owner"},
		{"ALTER TABLE child ALTER COLUMN parent TYPE text", "0A000", "FOREIGN KEY"},
		{"ALTER TABLE parent ALTER COLUMN id TYPE text", "0A000", "FOREIGN KEY"},
		{"ALTER TABLE acct ALTER COLUMN n TYPE int8", "0A000", "CHECK"},
		{"ALTER TABLE acct ALTER COLUMN n TYPE int8, DROP COLUMN owner", "0A000", "other subcommands"},
		{"ALTER TABLE acct DROP COLUMN n", "0A000", "constraint"},
		{"ALTER TABLE acct ALTER COLUMN id SET DEFAULT 1", "0A000", "serial"},
		{"ALTER TABLE acct ADD CONSTRAINT acct_n_check CHECK (n < 5)", "42710", "already exists"},
		{"ALTER TABLE acct ADD UNIQUE (n) DEFERRABLE", "0A000", "deferrable"},
		{"ALTER TABLE acct ADD CHECK (n > 0) NOT VALID", "0A000", "NOT VALID"},
		{"ALTER TABLE acct DROP CONSTRAINT nosuch", "42704", "does not exist"},
		{"ALTER TABLE acct ALTER COLUMN nosuch DROP NOT NULL", "42703", "nosuch"},
		{"ALTER TABLE child ALTER COLUMN id DROP NOT NULL", "42P16", "primary key"},
		{"ALTER TABLE child ADD PRIMARY KEY (parent)", "42P16", "multiple primary keys"},
		{"ALTER TABLE parent DROP CONSTRAINT parent_pkey", "0A000", "reference"},
		{"ALTER TABLE acct ALTER COLUMN owner SET STATISTICS 10", "0A000", "SetStatistics"},
		{"ALTER TABLE IF EXISTS nosuch DROP COLUMN n", "0A000", "IF EXISTS"},
		{"ALTER TABLE nosuch DROP COLUMN n", "42P01", "nosuch"},
	}
	for _, c := range cases {
		_, err := Translate(c.sql, alterCatalog)
		if !errIs(err, c.code) || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: %v, want %s mentioning %q", c.sql, err, c.code, c.mention)
		}
	}
}

// A foreign key's deferrability reaches SQLite's DDL, whether the grammar
// gives it on the constraint or after it: SQLite defers a DEFERRABLE
// INITIALLY DEFERRED key, the backend checks it at the tx's end. Other
// deferrable constraints are refused; misplaced or contradictory
// attributes fail as PostgreSQL's parse analysis fails them (42601).
func TestDeferrableForeignKeysReachSQLite(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"CREATE TABLE u (x int4 REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)", "DEFERRABLE INITIALLY DEFERRED"},
		{"CREATE TABLE u (x int4 REFERENCES parent (id) INITIALLY DEFERRED)", "DEFERRABLE INITIALLY DEFERRED"},
		{"CREATE TABLE u (x int4 REFERENCES parent (id) ON DELETE CASCADE DEFERRABLE)", "ON DELETE CASCADE DEFERRABLE INITIALLY IMMEDIATE"},
		{"CREATE TABLE u (x int4, FOREIGN KEY (x) REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)", "DEFERRABLE INITIALLY DEFERRED"},
		{"CREATE TABLE u (x int4, FOREIGN KEY (x) REFERENCES parent (id) DEFERRABLE INITIALLY IMMEDIATE)", "DEFERRABLE INITIALLY IMMEDIATE"},
		{"ALTER TABLE child ADD CONSTRAINT c_fk FOREIGN KEY (parent) REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED", "DEFERRABLE INITIALLY DEFERRED"},
		{"CREATE TABLE u (x int4 REFERENCES parent (id) NOT DEFERRABLE INITIALLY IMMEDIATE)", ""},
		{"CREATE TABLE u (x int4 UNIQUE NOT DEFERRABLE)", ""},
	} {
		tr, err := Translate(c.sql, alterCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		s := strings.Join(tr.Statements, "; ")
		if c.want == "" && strings.Contains(s, "DEFERRABLE") || c.want != "" && !strings.Contains(s, c.want) {
			t.Errorf("%s: %s, want %q", c.sql, s, c.want)
		}
	}
	for _, sql := range []string{
		"CREATE TABLE u (x int4 UNIQUE DEFERRABLE)",
		"CREATE TABLE u (x int4 NOT NULL PRIMARY KEY INITIALLY DEFERRED)",
		"CREATE TABLE u (x int4, UNIQUE (x) DEFERRABLE)",
		"ALTER TABLE child ADD UNIQUE (parent) DEFERRABLE INITIALLY DEFERRED",
	} {
		if _, err := Translate(sql, alterCatalog); !errIs(err, "0A000") || !strings.Contains(err.Error(), "deferrable") {
			t.Errorf("%s: %v, want the deferrable refusal", sql, err)
		}
	}
	for _, c := range []struct{ sql, msg string }{
		{"CREATE TABLE u (x int4 NOT NULL DEFERRABLE)", "misplaced DEFERRABLE clause"},
		{"CREATE TABLE u (x int4 DEFAULT 1 INITIALLY DEFERRED)", "misplaced INITIALLY DEFERRED clause"},
		{"CREATE TABLE u (x int4 REFERENCES parent (id) DEFERRABLE NOT DEFERRABLE)", "multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed"},
		{"CREATE TABLE u (x int4 REFERENCES parent (id) INITIALLY DEFERRED INITIALLY IMMEDIATE)", "multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed"},
		{"CREATE TABLE u (x int4 REFERENCES parent (id) NOT DEFERRABLE INITIALLY DEFERRED)", "constraint declared INITIALLY DEFERRED must be DEFERRABLE"},
		{"CREATE TABLE u (x int4 REFERENCES parent (id) INITIALLY DEFERRED NOT DEFERRABLE)", "constraint declared INITIALLY DEFERRED must be DEFERRABLE"},
	} {
		if _, err := Translate(c.sql, alterCatalog); !errIs(err, "42601") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want 42601 %q", c.sql, err, c.msg)
		}
	}
}

// refsCatalog is a schemaCatalog whose references are given.
type refsCatalog struct {
	schemaCatalog
	refs map[string][]string
}

func (c refsCatalog) ReferencedBy(table string) []string { return c.refs[table] }

// A rebuilt table's dependents (grandchildren too) are rebuilt with it
// and dropped referencing tables first; a cycle among them is refused;
// a self reference ON DELETE RESTRICT is guarded.
func TestAlterRebuildsDependents(t *testing.T) {
	cat := refsCatalog{
		schemaCatalog: schemaCatalog{
			staticCatalog: staticCatalog{
				"p": {col("id", "int4", -1), col("v", "text", -1)},
				"c": {col("id", "int4", -1), col("p", "int4", -1), col("up", "int4", -1)},
				"g": {col("id", "int4", -1), col("c", "int4", -1)},
			},
			sql: map[string]string{
				"p": `CREATE TABLE "p" ("id" int4 PRIMARY KEY NOT NULL, "v" text)`,
				"c": `CREATE TABLE "c" ("id" int4 PRIMARY KEY NOT NULL, "p" int4 REFERENCES "p" ("id") ON DELETE CASCADE, "up" int4 REFERENCES "c" ("id") ON DELETE RESTRICT)`,
				"g": `CREATE TABLE "g" ("id" int4 PRIMARY KEY NOT NULL, "c" int4 REFERENCES "c" ("id"), CONSTRAINT "g_p" FOREIGN KEY ("id") REFERENCES "p")`,
			},
			indexes: map[string][]string{"g": {`CREATE INDEX "g_c" ON "g" ("c")`}},
		},
		refs: map[string][]string{"p": {"c", "g"}, "c": {"g"}},
	}
	tr, err := Translate("ALTER TABLE p ALTER COLUMN v TYPE varchar(9)", cat)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`SELECT pg_raise('0A000', 'the postgres dialect on SQLite does not support ALTER TABLE (a rebuild) of c while its rows reference each other through a foreign key with ON DELETE RESTRICT', count(*)) FROM "c" WHERE "up" IS NOT NULL HAVING count(*) > 0`,
		`CREATE TABLE "p~new" ("id" int4 PRIMARY KEY NOT NULL, "v" varchar(9))`,
		`INSERT INTO "p~new" ("id", "v") SELECT "id", pg_assign("v", 'text', 'varchar', 13) FROM "p"`,
		`CREATE TABLE "c~new" ("id" int4 PRIMARY KEY NOT NULL, "p" int4 REFERENCES "p~new" ("id") ON DELETE CASCADE, "up" int4 REFERENCES "c~new" ("id") ON DELETE RESTRICT)`,
		`INSERT INTO "c~new" ("id", "p", "up") SELECT "id", "p", "up" FROM "c"`,
		`CREATE TABLE "g~new" ("id" int4 PRIMARY KEY NOT NULL, "c" int4 REFERENCES "c~new" ("id"), CONSTRAINT "g_p" FOREIGN KEY ("id") REFERENCES "p~new")`,
		`INSERT INTO "g~new" ("id", "c") SELECT "id", "c" FROM "g"`,
		`DROP TABLE "g"`,
		`DROP TABLE "c"`,
		`DROP TABLE "p"`,
		`ALTER TABLE "p~new" RENAME TO "p"`,
		`ALTER TABLE "c~new" RENAME TO "c"`,
		`ALTER TABLE "g~new" RENAME TO "g"`,
		`CREATE INDEX "g_c" ON "g" ("c")`,
	}
	if !reflect.DeepEqual(tr.Statements, want) {
		t.Errorf("statements\n got %q\nwant %q", tr.Statements, want)
	}
	cat.refs = map[string][]string{"p": {"c"}, "c": {"g"}, "g": {"c"}}
	if _, err := Translate("ALTER TABLE p ALTER COLUMN v TYPE varchar(9)", cat); !errIs(err, "0A000") || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("a cycle among the dependents: %v, want 0A000 naming the cycle", err)
	}
}
