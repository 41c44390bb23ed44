package mysql

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
)

var _ backend.CanonicalKeyReader = (*Backend)(nil)

// CanonicalRowsByKey implements backend.CanonicalKeyReader, on a reader
// connection in one consistent snapshot of committed state (START
// TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY) that also reads the
// height, as Query's does. The keys are decoded and checked against the
// table's primary key before any row is read; their values are the
// parameters of reads by primary key (readByKey, shared with the block's
// CanonicalDelta), and a row answers a key only if its own canonical key
// is that key: a row equal to it under the column's collation ('A', 'a ')
// is not its row. The readers' statement time limit stays: each read is
// at most keysPerRead keys.
func (b *Backend) CanonicalRowsByKey(ctx context.Context, table string, keys [][]byte) ([][]byte, int64, error) {
	if len(keys) > backend.MaxCanonicalKeys {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %d keys, at most %d", table, len(keys), backend.MaxCanonicalKeys)
	}
	conn, height, err := b.snapshot(ctx, b.readers)
	if err != nil {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: snapshot: %w", table, err)
	}
	defer b.endSnapshot(conn)
	t, err := b.canonColumns(ctx, conn, table)
	if err != nil {
		return nil, 0, err
	}
	reads, err := t.keyReads(keys)
	if err != nil {
		return nil, 0, err
	}
	found, err := t.readByKey(ctx, conn, reads)
	if err != nil {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %w", table, err)
	}
	images := make([][]byte, len(keys))
	for i, k := range keys {
		images[i] = bytes.Clone(found[string(k)]) // a duplicate key gets a slice of its own
	}
	return images, height, nil
}

// keyReads decodes keys into the reads that find their rows, each key
// once, sorted by key. A key no row of the table can hold (a numeric
// wider than DECIMAL's, a NaN) has no read: it is absent.
func (t canonTable) keyReads(keys [][]byte) ([]recordKey, error) {
	seen := map[string]bool{}
	var reads []recordKey
	for _, k := range keys {
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		args, storable, err := t.keyArgs(k)
		if err != nil {
			return nil, err
		}
		if storable {
			reads = append(reads, recordKey{key: string(k), args: args})
		}
	}
	sort.Slice(reads, func(i, j int) bool { return reads[i].key < reads[j].key })
	return reads, nil
}

// keyArgs decodes key into the parameters that find its row, one per key
// column, refusing a key that does not fit t's primary key.
func (t canonTable) keyArgs(key []byte) (args []any, storable bool, err error) {
	vals, err := rowcanon.DecodeKey(key)
	if err != nil {
		return nil, false, keyMismatch(t.name, key, err)
	}
	if len(vals) != len(t.pk) {
		return nil, false, keyMismatch(t.name, key, fmt.Errorf("%d values for a primary key of %d columns", len(vals), len(t.pk)))
	}
	args, storable = make([]any, len(vals)), true
	for n, i := range t.pk {
		c := t.cols[i]
		arg, ok, err := keyArg(c, vals[n])
		if err != nil {
			return nil, false, keyMismatch(t.name, key, fmt.Errorf("column %s: %w", c.name, err))
		}
		args[n], storable = arg, storable && ok
	}
	return args, storable, nil
}

// maxKeyShown bounds the bytes of a key an error shows in hex.
const maxKeyShown = 64

// keyMismatch is the error of key, which does not fit table's primary key.
func keyMismatch(table string, key []byte, err error) error {
	shown := fmt.Sprintf("%x", key)
	if len(key) > maxKeyShown {
		shown = fmt.Sprintf("%x… (%d bytes)", key[:maxKeyShown], len(key))
	}
	return fmt.Errorf("canonical rows of %s: key %s: %w: %w", table, shown, backend.ErrKeyMismatch, err)
}

// keyKinds is the rowcanon kind each column kind's values have.
var keyKinds = [...]rowcanon.Kind{
	kindInt: rowcanon.KindInt, kindUnsigned: rowcanon.KindNumeric, kindNumeric: rowcanon.KindNumeric,
	kindFloat: rowcanon.KindFloat, kindChar: rowcanon.KindText, kindText: rowcanon.KindText,
	kindBytes: rowcanon.KindBytes, kindDate: rowcanon.KindDate, kindTimestamp: rowcanon.KindTimestamp,
	kindBool: rowcanon.KindBool,
}

// maxDecimalText bounds the text of a numeric a DECIMAL(65, 30) or a
// BIGINT UNSIGNED can hold (65 digits, a sign and a point).
const maxDecimalText = 67

// keyArg is the parameter that finds key column c's value v, and whether
// the column can hold v at all. v of a kind c's values never have is an
// error.
func keyArg(c canonColumn, v rowcanon.Value) (arg any, storable bool, err error) {
	if int(c.kind) >= len(keyKinds) || c.kind == kindNone || v.Kind() != keyKinds[c.kind] {
		return nil, false, fmt.Errorf("a %s value for a column of type %s", v.Kind(), c.shown)
	}
	switch v.Kind() {
	case rowcanon.KindInt:
		return v.AsInt(), true, nil
	case rowcanon.KindNumeric:
		return v.AsString(), len(v.AsString()) <= maxDecimalText, nil
	case rowcanon.KindFloat:
		f := v.AsFloat()
		return f, !math.IsNaN(f) && !math.IsInf(f, 0), nil
	case rowcanon.KindText:
		if c.kind == kindChar { // CHAR's key is padded; MySQL stores it stripped
			return strings.TrimRight(v.AsString(), " "), true, nil
		}
		return v.AsString(), true, nil
	case rowcanon.KindBytes:
		return append([]byte{}, v.AsString()...), true, nil
	case rowcanon.KindDate:
		return v.String(), true, nil
	case rowcanon.KindBool: // stored as TINYINT(1): 1 or 0
		if v.AsBool() {
			return int64(1), true, nil
		}
		return int64(0), true, nil
	}
	// KindTimestamp, in the session's zone +00:00.
	return time.UnixMicro(v.AsMicros()).UTC().Format("2006-01-02 15:04:05.000000"), true, nil
}
