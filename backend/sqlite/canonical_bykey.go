package sqlite

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
	"github.com/relchain/relchain/rowcanon"
)

var _ backend.CanonicalKeyReader = (*Backend)(nil)

// CanonicalRowsByKey implements backend.CanonicalKeyReader for a table of
// the postgres dialect: in one read transaction on a read connection, it
// reads the committed height (as Query does) and looks each key up with
// the table's lookup by key (lookupSQL, the one CanonicalDelta runs),
// images made as CanonicalRows makes them. The lookup is relchain's own
// text over catalog names, kept compiled on the read connection with its
// control statements (readCache.own): one per table and column list. Each key is decoded
// (rowcanon.DecodeKey) and checked against the key columns' kinds
// (canonKind), then its values are converted to the stored values the
// dialect would write for them (pgruntime.Param, as a parameter of the
// column's type): a value no row of the column can hold (an int8 beyond
// an int4 column) reads as absent.
func (b *Backend) CanonicalRowsByKey(ctx context.Context, table string, keys [][]byte) ([][]byte, int64, error) {
	if !b.opts.pg {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %w", table, errNotPostgres)
	}
	if len(keys) > backend.MaxCanonicalKeys {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %d keys, at most %d in one call", table, len(keys), backend.MaxCanonicalKeys)
	}
	r, err := b.reader(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %w", table, err)
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: begin: %w", table, err)
	}
	defer closeQuietly(func() error { return rc.exec("ROLLBACK") })
	state, err := rc.state()
	if err != nil {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %w", table, err)
	}
	cols, pk, err := canonColumns(r, table)
	if err != nil {
		return nil, 0, err
	}
	lookups, err := keysToLookUp(table, cols, pk, keys)
	if err != nil {
		return nil, 0, err
	}
	st, err := rc.own(lookupSQL(table, cols, pk))
	if err != nil {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %w", table, err)
	}
	images, err := lookupKeys(ctx, st, table, cols, pk, lookups)
	if err != nil {
		return nil, 0, err
	}
	return images, state.Height, nil
}

// keysToLookUp checks each key against table's key columns and converts
// its values to stored ones, in the order of keys.
func keysToLookUp(table string, cols []canonColumn, pk []int, keys [][]byte) ([]changedKey, error) {
	out := make([]changedKey, len(keys))
	for i, key := range keys {
		vals, err := storedKey(cols, pk, key)
		if err != nil {
			return nil, fmt.Errorf("canonical rows of %s by key: key %s: %w", table, keyHex(key), err)
		}
		out[i] = changedKey{key: key, vals: vals}
	}
	return out, nil
}

// storedKey is the stored values of key's columns, nil when no row can
// hold one of them; an error wrapping backend.ErrKeyMismatch when key does
// not decode into the key columns.
func storedKey(cols []canonColumn, pk []int, key []byte) ([]any, error) {
	cv, err := rowcanon.DecodeKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", backend.ErrKeyMismatch, err)
	}
	if len(cv) != len(pk) {
		return nil, fmt.Errorf("%w: %d values for %d key columns", backend.ErrKeyMismatch, len(cv), len(pk))
	}
	for i, k := range pk {
		if want, _ := canonKind(cols[k].typ.Name); cv[i].Kind() != want {
			return nil, fmt.Errorf("%w: a %s value for column %s (%s)", backend.ErrKeyMismatch, cv[i].Kind(), cols[k].name, want)
		}
	}
	return storedVals(cols, pk, cv), nil
}

// storedVals is the stored values of a key's values cv (their kinds
// checked), nil when a key column cannot hold its value (out of its
// type's range, or stored as NULL): no row has that key.
func storedVals(cols []canonColumn, pk []int, cv []rowcanon.Value) []any {
	vals := make([]any, len(pk))
	for i, k := range pk {
		v, err := storedValue(cv[i], cols[k].typ)
		if err != nil || v == nil {
			return nil
		}
		vals[i] = v
	}
	return vals
}

// storedValue is the value the dialect stores for v in a column of type
// t: v's PostgreSQL text (or binary value) read as a parameter of t
// (pgruntime.Param), an error when the column cannot hold it.
func storedValue(v rowcanon.Value, t pgdialect.Type) (any, error) {
	var p any
	switch v.Kind() {
	case rowcanon.KindBool:
		p = v.AsBool()
	case rowcanon.KindInt:
		p = v.AsInt()
	case rowcanon.KindFloat:
		p = v.AsFloat()
	case rowcanon.KindNumeric, rowcanon.KindText:
		p = v.AsString()
	case rowcanon.KindBytes:
		p = []byte(v.AsString())
	case rowcanon.KindDate:
		p = time.UnixMicro(0).UTC().AddDate(0, 0, int(v.AsDays())).Format("2006-01-02")
	case rowcanon.KindTimestamp:
		p = time.UnixMicro(v.AsMicros()).UTC().Format("2006-01-02 15:04:05.999999")
	case rowcanon.KindUUID:
		p = uuidText(v.AsString())
	default:
		return nil, fmt.Errorf("a %s value in a key", v.Kind())
	}
	return pgruntime.Param(t, p)
}

// uuidText is the 8-4-4-4-12 text of a uuid's 16 bytes.
func uuidText(b string) string {
	h := hex.EncodeToString([]byte(b))
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// keyHex names a key in an error: its hex, cut after 64 bytes.
func keyHex(key []byte) string {
	if len(key) > 64 {
		return fmt.Sprintf("%x… (%d bytes)", key[:64], len(key))
	}
	return fmt.Sprintf("%x", key)
}
