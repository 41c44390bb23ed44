package sqlstore

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/statedigest"
)

// Rows is a result being read, as both database/sql and pgx give it.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// LoadSums reads rows of (table name, encoded sum) into Tables.
func LoadSums(rows Rows) (statedigest.Tables, error) {
	tables := make(statedigest.Tables)
	for rows.Next() {
		var name string
		var raw []byte
		if err := rows.Scan(&name, &raw); err != nil {
			return nil, fmt.Errorf("load table sums: %w", err)
		}
		s, err := statedigest.Load(raw)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		tables[name] = &s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load table sums: %w", err)
	}
	return tables, nil
}

// LoadSystem reads rows of (key, value) into a map; an empty value is an
// empty slice, never nil.
func LoadSystem(rows Rows) (map[string][]byte, error) {
	out := make(map[string][]byte)
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if v == nil {
			v = []byte{}
		}
		out[string(k)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// SortedKeys is kv's keys in order: SaveSystem writes them so, the same
// on every node.
func SortedKeys(kv map[string][]byte) []string {
	keys := make([]string, 0, len(kv))
	for key := range kv {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

// NextSums is the state digest's first step in a block: when the block
// changed the schema (rescan), every table's sum from scan, once clear has
// deleted the stored ones, all of them changed; otherwise the stored sums
// from load with delta folded in, and the tables delta changed. The
// changed names come sorted, for the caller to store.
func NextSums(rescan bool, delta backend.TableDelta, scan, load func() (statedigest.Tables, error), clear func() error) (statedigest.Tables, []string, error) {
	if !rescan {
		tables, err := load()
		if err != nil {
			return nil, nil, err
		}
		return tables, delta.Apply(tables), nil
	}
	tables, err := scan()
	if err != nil {
		return nil, nil, fmt.Errorf("rescan after a schema change: %w", err)
	}
	if err := clear(); err != nil {
		return nil, nil, err
	}
	changed := make([]string, 0, len(tables))
	for name := range tables {
		changed = append(changed, name)
	}
	slices.Sort(changed)
	return tables, changed, nil
}

// CompareRows orders two result rows by their values' text forms (text
// gives a value's form, or null), column by column, NULL first: the order
// both backends give rows a statement returns in no order of its own.
func CompareRows[V any](a, b []V, text func(V) (form []byte, null bool)) int {
	for i := range a {
		ta, na := text(a[i])
		tb, nb := text(b[i])
		switch {
		case na && nb:
			continue
		case na:
			return -1
		case nb:
			return 1
		}
		if c := bytes.Compare(ta, tb); c != 0 {
			return c
		}
	}
	return 0
}

// ReadSystem is a backend's LoadSystem once it has queried the (key,
// value) rows of its system table: queryErr is the query's error; dialect
// names the backend in errors. The caller closes rows.
func ReadSystem(dialect string, rows Rows, queryErr error) (map[string][]byte, error) {
	if queryErr != nil {
		return nil, fmt.Errorf("%s: load system state: %w", dialect, queryErr)
	}
	kv, err := LoadSystem(rows)
	if err != nil {
		return nil, fmt.Errorf("%s: load system state: %w", dialect, err)
	}
	return kv, nil
}

// SplitSystem is what SaveSystem writes of kv: the keys to delete (those
// with a nil value) and the keys and values to upsert, each in key order,
// so that every node writes in the same order.
func SplitSystem(kv map[string][]byte) (delKeys, upKeys, upVals [][]byte) {
	for _, key := range SortedKeys(kv) {
		if v := kv[key]; v == nil {
			delKeys = append(delKeys, []byte(key))
		} else {
			upKeys, upVals = append(upKeys, []byte(key)), append(upVals, v)
		}
	}
	return delKeys, upKeys, upVals
}
