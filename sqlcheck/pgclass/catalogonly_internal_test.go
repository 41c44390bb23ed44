package pgclass

import "testing"

// TestCatalogOnly: only statements that read PostgreSQL's catalogs and
// call built-in functions are catalog-only; any user relation, user
// function or statement it cannot read is not (fail closed).
func TestCatalogOnly(t *testing.T) {
	for sql, want := range map[string]bool{
		// SQLAlchemy 1.4's dialect probe and has_table.
		"select relname from pg_class c join pg_namespace n on n.oid=c.relnamespace where pg_catalog.pg_table_is_visible(c.oid) and relname=$1":                      true,
		"SELECT pg_catalog.pg_class.relname FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace": true,
		// knex's hasTable.
		"select * from information_schema.tables where table_name = ? and table_schema = current_schema()":  false, // ? is not PostgreSQL
		"select * from information_schema.tables where table_name = $1 and table_schema = current_schema()": true,
		"select current_schema()":                                                                   true,
		"SELECT pg_backend_pid(), current_database()":                                               true,
		"with c as (select oid from pg_class) select * from c":                                      true,
		"with recursive c(n) as (select 1 union all select n+1 from c where n < 3) select * from c": true,
		"with c as (select * from c) select * from c":                                               false, // the inner c is a table
		"select * from t":           false,
		"select oid from t":         false,
		"select * from pg_class, t": false,
		"select * from pg_class where relname in (select name from users)": false,
		"select public.f()":                    false,
		"select myschema.f()":                  false,
		"select * from public.pg_x":            false,
		"select * from other.pg_class":         false,
		"select * from db.pg_catalog.pg_class": false,
		"select (with t as (select 1) select * from t), (select 1 from t)": false,
		"insert into t values (1)": false,
		"select 1; select 2":       false,
		"not sql at all":           false,
		"":                         false,
	} {
		if got := (Classifier{}).CatalogOnly(sql); got != want {
			t.Errorf("catalogOnly(%q) = %v, want %v", sql, got, want)
		}
	}
}
