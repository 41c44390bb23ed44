package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/relchain/relchain/sqlcheck/conflict"
)

// conflictCatalogSQL describes every user table for conflict analysis, in
// one query on committed state: its name as the gate's Analysis.Writes
// spells it (public unqualified), its primary key's columns with their
// kinds, the other columns that alone are unique (conflict.Table.Unique:
// a unique index on that column alone, not partial, without expression,
// of the type's default operator class, not deferrable) with their kinds,
// whether another unique index or constraint exists, whether
// something opaque runs on it (a trigger other than relchain's capture
// triggers, a rule, row-level security), the tables a foreign key links it
// to in either direction, and the sequences its defaults draw from
// (sync_sequences made serial and identity defaults
// relchain.nextval('s'::regclass)), qualified as tables are. Opaque
// also covers a partitioned table or one with inheritance (a statement
// on one reaches the others' rows) and a default, generated column,
// CHECK or index expression that calls a user routine (it may read any
// table).
const conflictCatalogSQL = `WITH t AS (
	SELECT c.oid, CASE WHEN n.nspname = 'public' THEN c.relname::text ELSE n.nspname || '.' || c.relname END AS name
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p') AND c.relpersistence <> 't'
		AND n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema', 'pg_toast')
		AND n.nspname NOT LIKE 'pg\_%'),
col AS (
	SELECT a.attrelid, a.attnum, a.attname::text AS name, CASE
			WHEN a.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN 1
			WHEN a.atttypid IN ('text'::regtype, 'varchar'::regtype)
				AND coalesce((SELECT co.collisdeterministic FROM pg_catalog.pg_collation co
					WHERE co.oid = CASE WHEN a.attcollation = 0 THEN 100 ELSE a.attcollation END), true) THEN 2
			ELSE 0 END AS kind
	FROM pg_catalog.pg_attribute a WHERE a.attrelid IN (SELECT oid FROM t) AND a.attnum > 0 AND NOT a.attisdropped)
SELECT t.name,
	coalesce((SELECT pg_catalog.array_agg(a.name ORDER BY k.ord)
		FROM pg_catalog.pg_index i, unnest(i.indkey) WITH ORDINALITY k(attnum, ord), col a
		WHERE i.indrelid = t.oid AND i.indisprimary AND a.attrelid = t.oid AND a.attnum = k.attnum), '{}'),
	coalesce((SELECT pg_catalog.array_agg(a.kind ORDER BY k.ord)
		FROM pg_catalog.pg_index i, unnest(i.indkey) WITH ORDINALITY k(attnum, ord), col a
		WHERE i.indrelid = t.oid AND i.indisprimary AND a.attrelid = t.oid AND a.attnum = k.attnum), '{}'),
	coalesce(u.names, '{}'), coalesce(u.kinds, '{}'),
	NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = t.oid AND i.indisunique AND NOT i.indisprimary)
		AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint x WHERE x.conrelid = t.oid AND x.contype = 'x'),
	EXISTS (SELECT 1 FROM pg_catalog.pg_trigger g WHERE g.tgrelid = t.oid AND NOT g.tgisinternal
			AND g.tgname NOT LIKE 'relchain\_%')
		OR EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r WHERE r.ev_class = t.oid)
		OR (SELECT c.relrowsecurity OR c.relkind = 'p' FROM pg_catalog.pg_class c WHERE c.oid = t.oid)
		OR EXISTS (SELECT 1 FROM pg_catalog.pg_inherits h WHERE h.inhrelid = t.oid OR h.inhparent = t.oid)
		OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_proc p ON p.oid = d.refobjid
			WHERE d.refclassid = 'pg_catalog.pg_proc'::regclass
				AND p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'relchain'::regnamespace)
				AND (d.classid = 'pg_catalog.pg_attrdef'::regclass
						AND d.objid IN (SELECT ad.oid FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = t.oid)
					OR d.classid = 'pg_catalog.pg_constraint'::regclass
						AND d.objid IN (SELECT x.oid FROM pg_catalog.pg_constraint x WHERE x.conrelid = t.oid)
					OR d.classid = 'pg_catalog.pg_class'::regclass
						AND d.objid IN (SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid = t.oid))),
	coalesce((SELECT pg_catalog.array_agg(DISTINCT o.name ORDER BY o.name)
		FROM pg_catalog.pg_constraint f JOIN t o ON o.oid = CASE WHEN f.conrelid = t.oid THEN f.confrelid ELSE f.conrelid END
		WHERE f.contype = 'f' AND (f.conrelid = t.oid OR f.confrelid = t.oid) AND o.oid <> t.oid), '{}'),
	coalesce((SELECT pg_catalog.array_agg(DISTINCT CASE WHEN sn.nspname = 'public' THEN s.relname::text
			ELSE sn.nspname || '.' || s.relname END)
		FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'
		JOIN pg_catalog.pg_namespace sn ON sn.oid = s.relnamespace
		JOIN pg_catalog.pg_attrdef ad ON ad.oid = d.objid
		WHERE d.classid = 'pg_catalog.pg_attrdef'::regclass AND d.refclassid = 'pg_catalog.pg_class'::regclass
			AND ad.adrelid = t.oid), '{}')
FROM t LEFT JOIN LATERAL (
	SELECT pg_catalog.array_agg(uc.name ORDER BY uc.name) AS names, pg_catalog.array_agg(uc.kind ORDER BY uc.name) AS kinds
	FROM (SELECT DISTINCT a.name, a.kind FROM pg_catalog.pg_index i JOIN col a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
		WHERE i.indrelid = t.oid AND i.indisunique AND NOT i.indisprimary AND i.indnkeyatts = 1
			AND i.indexprs IS NULL AND i.indpred IS NULL AND i.indimmediate AND i.indisvalid
			AND (SELECT oc.opcdefault FROM pg_catalog.pg_opclass oc WHERE oc.oid = i.indclass[0])) uc) u ON true
ORDER BY t.name`

// conflictRoutinesSQL names the user functions and procedures of schema
// public: an unqualified call of one of those names may reach it rather
// than a built-in (conflict.Catalog.Routine).
const conflictRoutinesSQL = `SELECT DISTINCT p.proname::text FROM pg_catalog.pg_proc p
	WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`

// catalogMap is a conflict.Catalog from maps.
type catalogMap struct {
	tables   map[string]conflict.Table
	routines map[string]bool
}

func (m catalogMap) Table(name string) (conflict.Table, bool) {
	t, ok := m.tables[name]
	return t, ok
}

func (m catalogMap) Routine(name string) bool { return m.routines[name] }

// ConflictCatalog returns the committed schema as conflict analysis needs
// it (sqlcheck/conflict), read in one query on a reader connection and
// kept until a block changes the schema (schemaGen).
func (b *Backend) ConflictCatalog(ctx context.Context) (conflict.Catalog, error) {
	b.mu.Lock()
	gen := b.schemaGen
	if b.catalog != nil && b.catalogGen == gen {
		c := b.catalog
		b.mu.Unlock()
		return c, nil
	}
	b.mu.Unlock()
	m := catalogMap{tables: map[string]conflict.Table{}, routines: map[string]bool{}}
	if err := b.readRoutines(ctx, m.routines); err != nil {
		return nil, err
	}
	rows, err := b.pool.Query(ctx, conflictCatalogSQL)
	if err != nil {
		return nil, unavailable(ctx, fmt.Errorf("postgres: conflict catalog: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var t conflict.Table
		var cols, unique []string
		var kinds, uniqueKinds []int32
		if err := rows.Scan(&t.Name, &cols, &kinds, &unique, &uniqueKinds, &t.KeyIsOnlyUnique, &t.Opaque, &t.Related, &t.Sequences); err != nil {
			return nil, fmt.Errorf("postgres: conflict catalog: %w", err)
		}
		for i, c := range cols {
			t.PrimaryKey = append(t.PrimaryKey, conflict.Column{Name: c, Kind: conflict.Kind(kinds[i])})
		}
		for i, c := range unique {
			t.Unique = append(t.Unique, conflict.Column{Name: c, Kind: conflict.Kind(uniqueKinds[i])})
		}
		if len(t.Related) == 0 {
			t.Related = nil
		}
		if len(t.Sequences) == 0 {
			t.Sequences = nil
		}
		slices.Sort(t.Related)
		slices.Sort(t.Sequences)
		m.tables[t.Name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(ctx, fmt.Errorf("postgres: conflict catalog: %w", err))
	}
	memo := conflict.NewMemo(m) // one per schema: its analyses hold until DDL
	b.mu.Lock()
	if b.schemaGen == gen {
		b.catalog, b.catalogGen = memo, gen
	}
	b.mu.Unlock()
	return memo, nil
}

// readRoutines adds the names conflictRoutinesSQL reads to into.
func (b *Backend) readRoutines(ctx context.Context, into map[string]bool) error {
	rows, err := b.pool.Query(ctx, conflictRoutinesSQL)
	if err != nil {
		return unavailable(ctx, fmt.Errorf("postgres: conflict catalog: routines: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("postgres: conflict catalog: routines: %w", err)
		}
		into[name] = true
	}
	if err := rows.Err(); err != nil {
		return unavailable(ctx, fmt.Errorf("postgres: conflict catalog: routines: %w", err))
	}
	return nil
}
