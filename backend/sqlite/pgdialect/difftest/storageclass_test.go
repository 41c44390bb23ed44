package difftest

import (
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// storageClass is the SQLite storage class every non-NULL value of a
// column of type t has when the translation wrote it: the digests, the
// dumps and the operators rely on it (an integer in a float8 column
// would divide as an integer; a REAL-affinity column turned -0 into 0).
// "" for a type the check does not know.
func storageClass(t pgdialect.Type) string {
	switch {
	case strings.HasPrefix(t.Name, "_"):
		return "text" // PostgreSQL's array text (arrays.go)
	}
	switch t.Name {
	case "int2", "int4", "int8", "bool":
		return "integer"
	case "float4", "float8":
		return "real"
	case "bytea":
		return "blob"
	case "numeric", "text", "varchar", "bpchar", "date", "timestamp", "timestamptz", "json", "jsonb", "uuid":
		return "text"
	}
	return ""
}

// storageViolations lists, for every table the dialect created, the
// columns holding a value of another storage class than their type's.
func (e *liteEngine) storageViolations() ([]string, error) {
	tables, err := e.column(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, table := range tables {
		cols, err := e.pairs(`SELECT name, type FROM pragma_table_info(?) ORDER BY cid`, table)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			typ, ok := pgdialect.ParseDeclaredType(c[1])
			class := storageClass(typ)
			if !ok || class == "" {
				continue
			}
			q := fmt.Sprintf(`SELECT group_concat(DISTINCT typeof(%[1]s)) FROM %[2]s WHERE typeof(%[1]s) NOT IN ('null', '%[3]s')`, quote(c[0]), quote(table), class)
			bad, err := e.column(q)
			if err != nil {
				return nil, err
			}
			if len(bad) > 0 && bad[0] != "" {
				out = append(out, fmt.Sprintf("%s.%s (%s, declared %q) holds %s values, not only %s", table, c[0], typ.Name, c[1], bad[0], class))
			}
		}
	}
	return out, nil
}

// column is the first column of a query's rows, as text.
func (e *liteEngine) column(sql string, args ...any) ([]string, error) {
	rows, err := e.pairs(sql, args...)
	var out []string
	for _, r := range rows {
		out = append(out, r[0])
	}
	return out, err
}

// pairs is the first two columns (the second "" when there is one) of a
// query's rows, as text.
func (e *liteEngine) pairs(sql string, args ...any) ([][2]string, error) {
	st, _, err := e.conn.Prepare(sql)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", sql, err)
	}
	defer st.Close()
	for i, a := range args {
		if err := st.BindText(i+1, a.(string)); err != nil {
			return nil, err
		}
	}
	var out [][2]string
	for st.Step() {
		r := [2]string{st.ColumnText(0)}
		if st.ColumnCount() > 1 {
			r[1] = st.ColumnText(1)
		}
		out = append(out, r)
	}
	return out, st.Err()
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
