package sqlite

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/backend/postgres/pggate"
)

// LIMIT without ORDER BY in the postgres dialect. PostgreSQL's gate
// accepts a SELECT with LIMIT and no ORDER BY over tables that have a key
// (pggate: "Key order for LIMIT without ORDER BY"): the statement runs
// ordered by its tables' keys, so every node keeps the same rows (Django's
// .get(), knex's .first() inside a transaction). As on PostgreSQL storage
// the keys are read in the block's db-transaction (a key an earlier
// statement of the block added counts) and pggate.OrderLimits writes the
// ORDER BY before the translation. A table's key is its primary key, or
// else its unique index without a predicate or expressions whose columns
// are all NOT NULL, the one with the fewest columns, ties broken by the
// index's name as PostgreSQL names it (the emulated catalog's names).

// keyOrdered is text (sql as PostgreSQL's gate rewrote it) with its LIMITs
// without ORDER BY ordered by their tables' keys read on c, when the gate
// found such a LIMIT in sql; text as it is otherwise. A table without a
// key is the statement's error, as on PostgreSQL storage.
func keyOrdered(c *sqlite3.Conn, sql, text string) (string, error) {
	if !pggate.KeyOrdered(sql) {
		return text, nil
	}
	out, _, err := pggate.OrderLimits(text, sqliteKeys(c), true)
	if err == nil {
		return out, nil
	}
	if be := backend.AsError(err); be != nil {
		return "", be
	}
	var fault *keyLookupError
	if errors.As(err, &fault) {
		return "", fmt.Errorf("postgres dialect: key lookup: %w", fault.err) // the node's, never a verdict
	}
	return "", &backend.Error{Class: backend.ClassPermission, SQLState: "42P10", Message: err.Error()}
}

// keyLookupError is a failure to read the schema while looking a key up:
// the node's fault.
type keyLookupError struct{ err error }

func (e *keyLookupError) Error() string { return e.err.Error() }

// readKeyOrdered is a read's text with its LIMITs without ORDER BY over
// keyed tables ordered by their keys, so that every node answers the same
// rows, as on PostgreSQL storage; one no key orders is left as it is (a
// read decides nothing). The keys come from the committed schema the
// catalog's cached Engine was built from: no schema read per query.
func (b *Backend) readKeyOrdered(r *sqlite3.Conn, text string) string {
	if !mayLimit(text) || !pggate.HasUnorderedLimit(text) {
		return text
	}
	e, err := b.acquireCatalog(r)
	if err != nil {
		return text
	}
	defer b.releaseCatalog(e)
	keyed, _, err := pggate.OrderLimits(text, schemaKeys(func() (*pgcatalog.Schema, error) { return e.schema, nil }), false)
	if err != nil {
		return text
	}
	return keyed
}

// mayLimit is a cheap test before pggate.HasUnorderedLimit's parse: a
// text without the words LIMIT, OFFSET or FETCH keeps no rows by them.
func mayLimit(text string) bool {
	l := strings.ToLower(text)
	return strings.Contains(l, "limit") || strings.Contains(l, "offset") || strings.Contains(l, "fetch")
}

// sqliteKeys is a pggate.KeyFunc over c's schema, as the emulated catalog
// describes it (schemaOf), read once when first asked.
func sqliteKeys(c *sqlite3.Conn) pggate.KeyFunc {
	var s *pgcatalog.Schema
	return schemaKeys(func() (*pgcatalog.Schema, error) {
		if s != nil {
			return s, nil
		}
		var err error
		s, err = schemaOf(c)
		return s, err
	})
}

// schemaKeys is a pggate.KeyFunc over the schema schemaFn returns, as the
// emulated catalog describes it (PostgreSQL's names of the constraints and
// indexes, which break ties as PostgreSQL's rule does).
func schemaKeys(schemaFn func() (*pgcatalog.Schema, error)) pggate.KeyFunc {
	return func(space, name string, _ bool) ([]string, error) {
		if space != "" && space != "public" {
			return nil, &backend.Error{Class: backend.ClassOfSQLState("42P01"), SQLState: "42P01", Message: fmt.Sprintf("relation %q does not exist", space+"."+name)}
		}
		schema, err := schemaFn()
		if err != nil {
			return nil, &keyLookupError{err}
		}
		for _, t := range schema.Tables {
			if t.Name == name {
				return tableKey(t), nil
			}
		}
		return nil, &backend.Error{Class: backend.ClassOfSQLState("42P01"), SQLState: "42P01", Message: fmt.Sprintf("relation %q does not exist", name)}
	}
}

// tableKey is t's primary key, or else its unique constraint or index over
// NOT NULL columns with the fewest columns, ties broken by name; none if
// it has neither.
func tableKey(t pgcatalog.Table) []string {
	if len(t.PrimaryKey) > 0 {
		return t.PrimaryKey
	}
	notNull := map[string]bool{}
	for _, c := range t.Columns {
		notNull[c.Name] = c.NotNull
	}
	type key struct {
		name string
		cols []string
	}
	var keys []key
	for _, u := range t.Uniques {
		keys = append(keys, key{u.Name, u.Columns})
	}
	for _, ix := range t.Indexes {
		if ix.Unique {
			keys = append(keys, key{ix.Name, ix.Columns})
		}
	}
	keys = slices.DeleteFunc(keys, func(k key) bool {
		return len(k.cols) == 0 || slices.ContainsFunc(k.cols, func(c string) bool { return !notNull[c] })
	})
	if len(keys) == 0 {
		return nil
	}
	slices.SortFunc(keys, func(a, b key) int {
		if n := len(a.cols) - len(b.cols); n != 0 {
			return n
		}
		return strings.Compare(a.name, b.name)
	})
	return keys[0].cols
}
