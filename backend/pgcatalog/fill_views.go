package pgcatalog

// fillCatalogViews adds the rows of pg_catalog's views over the Schema:
// pg_tables, pg_views, pg_indexes, pg_sequences, pg_stat_user_tables.
func fillCatalogViews(w *writer, m *model) {
	for _, r := range m.rels {
		switch r.kind {
		case "r":
			w.insert("pg_catalog.pg_tables", row{"schemaname": "public", "tablename": r.name,
				"tableowner": m.s.User, "hasindexes": len(r.indexes) > 0})
			w.insert("pg_catalog.pg_stat_user_tables", row{"relid": r.oid, "schemaname": "public",
				"relname": r.name})
		case "v":
			w.insert("pg_catalog.pg_views", row{"schemaname": "public", "viewname": r.name,
				"viewowner": m.s.User, "definition": r.view.Definition})
		case "i":
			def, _ := m.indexDef(r.oid, 0)
			w.insert("pg_catalog.pg_indexes", row{"schemaname": "public", "tablename": r.index.table.name,
				"indexname": r.name, "indexdef": def})
		case "S":
			q := r.seq
			w.insert("pg_catalog.pg_sequences", row{"schemaname": "public", "sequencename": r.name,
				"sequenceowner": m.s.User, "data_type": typeOid(q.Type), "start_value": q.Start,
				"min_value": q.Min, "max_value": q.Max, "increment_by": q.Increment, "cycle": q.Cycle,
				"cache_size": 1, "last_value": nil})
		}
	}
}
