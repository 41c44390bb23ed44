package dialect

// dialects are the databases relchain runs on, the default first. Adding a
// database adds its entry here (and its Driver in backend/registry, with
// the same Name).
var dialects = []Dialect{
	{Name: "sqlite",
		Wire: Wire{Placeholders: PlaceholdersNumbered,
			CatalogHint: "List tables with SQLite's own SQL: SELECT name, sql FROM sqlite_schema WHERE type = 'table'."},
		// PostgreSQL's SQL translated onto SQLite: $n placeholders and
		// PostgreSQL's quoting; its catalog queries are answered by the
		// emulated catalog (backend/pgcatalog) on the read path, and its
		// values are PostgreSQL's text (arrays as '{a,b}').
		Translates:        SQLPostgres,
		TranslatedWire:    Wire{DollarQuotes: true, Placeholders: PlaceholdersDollar, PGCatalog: true, NativeTypes: true},
		PostgresByDefault: true},
	{Name: "postgres", Server: true, DSNTemplate: "postgres://user@127.0.0.1:5432/relchain_{node}?sslmode=disable",
		Wire: Wire{DollarQuotes: true, PGCatalog: true, NativeTypes: true}, PostgresByDefault: true},
	{Name: "mysql", Server: true, DSNTemplate: "root@tcp(127.0.0.1:3306)/relchain_{node}",
		// PostgreSQL's catalogs are emulated (backend/pgcatalog, from
		// MySQL's schema: backend/mysql's schemaOf).
		Wire: Wire{Placeholders: PlaceholdersOrdered, PGCatalog: true},
		// PostgreSQL's SQL translated onto MariaDB (backend/mysql/pgdialect):
		// $n placeholders, PostgreSQL's quoting, values rendered in
		// PostgreSQL's text forms by their PostgreSQL types.
		Translates:           SQLPostgres,
		TranslatedWire:       Wire{DollarQuotes: true, Placeholders: PlaceholdersDollar, PGCatalog: true, NativeTypes: true},
		DDLCommitsImplicitly: true,
		SchemaJudged:         true},
}
