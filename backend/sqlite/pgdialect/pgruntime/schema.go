package pgruntime

import (
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

var _ pgdialect.Schema = (*catalog)(nil)

// TableSQL implements pgdialect.Schema: the CREATE TABLE text SQLite
// keeps for table and the CREATE INDEX texts of its named indexes (not
// those SQLite makes for PRIMARY KEY and UNIQUE), by name.
func (k *catalog) TableSQL(table string) (string, []string, bool) {
	if _, ok := k.Columns(table); !ok {
		return "", nil, false
	}
	st, _, err := k.c.Prepare(`SELECT type, sql FROM sqlite_schema WHERE tbl_name = ?1 AND type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type = 'index', name`)
	if k.failed(err) != nil {
		return "", nil, false
	}
	defer st.Close()
	if k.failed(st.BindText(1, table)) != nil {
		return "", nil, false
	}
	var create string
	var indexes []string
	for st.Step() {
		if st.ColumnText(0) == "table" {
			create = st.ColumnText(1)
		} else {
			indexes = append(indexes, st.ColumnText(1))
		}
	}
	if k.failed(st.Err()) != nil || create == "" {
		return "", nil, false
	}
	return create, indexes, true
}

var _ pgdialect.Tables = (*catalog)(nil)

// TableNames implements pgdialect.Tables: every table's name, sequences'
// included, relchain's and SQLite's own left out, sorted.
func (k *catalog) TableNames() []string {
	st, _, err := k.c.Prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'relchain\_%' ESCAPE '\' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if k.failed(err) != nil {
		return nil
	}
	defer st.Close()
	var out []string
	for st.Step() {
		out = append(out, st.ColumnText(0))
	}
	if k.failed(st.Err()) != nil {
		return nil
	}
	return out
}
