package backend

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// CanonicalReader is implemented by a backend that can read a table's
// committed rows as canonical rows (package rowcanon), the same on every
// engine: the first step of issue 36's authenticated state (a statetree
// per table keyed by primary key) and of issue 37's mixed networks. It is
// optional and not yet part of consensus: nothing above backend/ calls it.
//
// CanonicalRows calls fn once for each row of table (its name in the
// postgres dialect, unqualified, as the catalog spells it) with the row's
// key (rowcanon.EncodeKey of its primary-key values, in the key's column
// order) and image (rowcanon.EncodeRow of every column). Rows are
// visited in any order: the trie built from them is history independent,
// so their order cannot change a root. The slices are fn's until it
// returns only. An error of fn ends the read and is returned, wrapped.
//
// Refused, before fn is called: a table without a primary key
// (ErrNoPrimaryKey, naming the table) and a table with a column whose
// declared type has no canonical form (ErrNoCanonicalForm, naming the
// column and its type). A stored value outside its kind's domain (a
// timestamp before year 1, numeric NaN, text holding U+0000) is an error
// naming its column, never a silently different value.
type CanonicalReader interface {
	CanonicalRows(ctx context.Context, table string, fn func(key, image []byte) error) error
}

// ErrNoPrimaryKey: a table without a primary key has no canonical keys.
var ErrNoPrimaryKey = errors.New("table has no primary key")

// ErrNoCanonicalForm: a column's type has no canonical form (rowcanon's
// DESIGN.md §7 lists them).
var ErrNoCanonicalForm = errors.New("type has no canonical form")

// NoPrimaryKey is the error for table without a primary key.
func NoPrimaryKey(table string) error {
	return fmt.Errorf("canonical rows of %s: %w", table, ErrNoPrimaryKey)
}

// NoCanonicalForm is the error for column of type typ (as the dialect
// spells it) in table.
func NoCanonicalForm(table, column, typ string) error {
	return fmt.Errorf("canonical rows of %s: column %s of type %s: %w", table, column, typ, ErrNoCanonicalForm)
}

// CanonicalRow encodes one row of table: the key from the values of the
// key's columns (pk, indexes into cols in key order) and the image from
// every column.
func CanonicalRow(table string, cols []rowcanon.Column, pk []int) (key, image []byte, err error) {
	vals := make([]rowcanon.Value, len(pk))
	for i, k := range pk {
		vals[i] = cols[k].Value
	}
	if key, err = rowcanon.EncodeKey(vals); err != nil {
		return nil, nil, fmt.Errorf("canonical rows of %s: key: %w", table, err)
	}
	if image, err = rowcanon.EncodeRow(table, cols); err != nil {
		return nil, nil, fmt.Errorf("canonical rows of %s: %w", table, err)
	}
	return key, image, nil
}

// TableRoot is the root of table's statetree: every row's key with the
// leaf hash of its image (rowcanon.LeafHash), as r reads them.
func TableRoot(ctx context.Context, r CanonicalReader, table string) (statetree.Root, error) {
	tr := statetree.New()
	err := r.CanonicalRows(ctx, table, func(key, image []byte) error {
		return tr.Set(key, rowcanon.LeafHash(image))
	})
	if err != nil {
		return statetree.Root{}, fmt.Errorf("table root of %s: %w", table, err)
	}
	return tr.Commit(), nil
}

// CanonicalUUID is a uuid from PostgreSQL's text of it (8-4-4-4-12 hex
// digits), which the engines store or print alike.
func CanonicalUUID(s string) (rowcanon.Value, error) {
	var u [16]byte
	h := strings.ReplaceAll(s, "-", "")
	if len(s) != 36 || len(h) != 32 {
		return rowcanon.Value{}, fmt.Errorf("uuid %q is not 8-4-4-4-12 hex digits", s)
	}
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return rowcanon.Value{}, fmt.Errorf("uuid %q: %w", s, err)
	}
	return rowcanon.UUID(u), nil
}
