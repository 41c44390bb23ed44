package mysql

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck/conflict"
)

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

// conflictTriggersSQL lists the tables with a trigger other than
// relchain's capture triggers.
const conflictTriggersSQL = `SELECT DISTINCT EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS
	WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME NOT LIKE 'relchain\_%'`

// conflictRoutinesSQL names the database's stored functions and
// procedures (conflict.Catalog.Routine).
const conflictRoutinesSQL = `SELECT DISTINCT LOWER(ROUTINE_NAME) FROM information_schema.ROUTINES
	WHERE ROUTINE_SCHEMA = DATABASE()`

// ConflictCatalog returns the committed schema as conflict analysis needs
// it (sqlcheck/conflict), in the postgres dialect's terms: the schema the
// emulated PostgreSQL catalog shows (schemaOf: the tables under the names
// the gate's Analysis.Writes spells, the columns' PostgreSQL types from
// their pg: comments), read on a read snapshot. Only int2, int4 and int8
// key columns refine to keys: a text key is table-wide, since MariaDB's
// utf8mb4_bin pads spaces ('a' and 'a ' are one key there, two for the
// analysis). A table with a user trigger, or with an AUTO_INCREMENT
// column (a counter the serial order decides; the postgres dialect makes
// none, native DDL may), is opaque; a CHECK calls no user routine (the
// dialect translates none). In the mysql dialect it fails: the analysis
// parses PostgreSQL's SQL only.
func (b *Backend) ConflictCatalog(ctx context.Context) (conflict.Catalog, error) {
	if !b.opts.pg {
		return nil, fmt.Errorf("mysql: conflict catalog: %w: conflict analysis needs the postgres dialect", backend.ErrNoLanes)
	}
	gen := b.schemaGen.Load()
	b.conflictCat.Lock()
	defer b.conflictCat.Unlock()
	if b.conflictCat.memo != nil && b.conflictCat.gen == gen {
		return b.conflictCat.memo, nil
	}
	// On the internal pool, as the emulated catalog reads the schema
	// (schemaOf; catalogCache says what the readers' SELECT-only account
	// is not shown): a catalog missing a key would split txs that
	// conflict.
	conn, err := b.internal.Conn(ctx)
	if err != nil {
		return nil, unavailable(ctx, fmt.Errorf("mysql: conflict catalog: %w", err))
	}
	defer conn.Close()
	s, err := b.schemaOf(ctx, conn)
	if err != nil {
		return nil, unavailable(ctx, fmt.Errorf("mysql: conflict catalog: %w", err))
	}
	m := catalogMap{tables: map[string]conflict.Table{}, routines: map[string]bool{}}
	opaque := map[string]bool{}
	var name string
	if err := scanEach(ctx, conn, conflictTriggersSQL, []any{&name}, func() error { opaque[name] = true; return nil }); err != nil {
		return nil, unavailable(ctx, fmt.Errorf("mysql: conflict catalog: triggers: %w", err))
	}
	if err := scanEach(ctx, conn, conflictRoutinesSQL, []any{&name}, func() error { m.routines[name] = true; return nil }); err != nil {
		return nil, unavailable(ctx, fmt.Errorf("mysql: conflict catalog: routines: %w", err))
	}
	for _, seq := range s.Sequences {
		opaque[seq.OwnedByTable] = true
	}
	related := map[string][]string{}
	for _, t := range s.Tables {
		for _, fk := range t.ForeignKeys {
			if fk.RefTable != t.Name {
				related[t.Name] = append(related[t.Name], fk.RefTable)
				related[fk.RefTable] = append(related[fk.RefTable], t.Name)
			}
		}
	}
	for _, t := range s.Tables {
		ct := conflict.Table{Name: t.Name, Opaque: opaque[t.Name], KeyIsOnlyUnique: len(t.Uniques) == 0}
		for _, ix := range t.Indexes {
			if ix.Unique {
				ct.KeyIsOnlyUnique = false
			}
		}
		for _, k := range t.PrimaryKey {
			kind := conflict.KindOther
			for _, c := range t.Columns {
				if c.Name == k && (c.Type == "int2" || c.Type == "int4" || c.Type == "int8") {
					kind = conflict.KindInt
				}
			}
			ct.PrimaryKey = append(ct.PrimaryKey, conflict.Column{Name: k, Kind: kind})
		}
		if r := related[t.Name]; len(r) > 0 {
			slices.Sort(r)
			ct.Related = slices.Compact(r)
		}
		m.tables[t.Name] = ct
	}
	// Kept until a block's DDL (schemaGen; MariaDB commits DDL at once).
	// One memo per schema: its analyses hold until DDL.
	b.conflictCat.memo, b.conflictCat.gen = conflict.NewMemo(m), gen
	return b.conflictCat.memo, nil
}

// conflictCatalogCache is the conflict catalog of schema generation gen.
type conflictCatalogCache struct {
	sync.Mutex
	memo *conflict.Memo
	gen  uint64
}
