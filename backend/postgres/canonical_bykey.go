package postgres

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
)

var _ backend.CanonicalKeyReader = (*Backend)(nil)

// CanonicalRowsByKey implements backend.CanonicalKeyReader, in a
// snapshotTx (the height read in the same snapshot). The keys are
// decoded and checked against the key columns in Go, then sent as
// canonKeyRows sends a block's: one array text per key column, a
// parameter of the column's type's array, in one statement (canonKeySQL's
// rowsSQL). Each row read is matched to the keys by its own canonical
// key, so a key the database merely compares equal to (char(n) without
// its padding) is no row's.
func (b *Backend) CanonicalRowsByKey(ctx context.Context, table string, keys [][]byte) ([][]byte, int64, error) {
	if len(keys) > backend.MaxCanonicalKeys {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: %d keys, at most %d", table, len(keys), backend.MaxCanonicalKeys)
	}
	tx, height, err := b.snapshotTx(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("canonical rows of %s by key: begin: %w", table, err)
	}
	defer tx.Rollback(context.Background())
	cols, pk, err := canonColumns(ctx, tx, table)
	if err != nil {
		return nil, 0, err
	}
	args, err := keyParams(table, cols, pk, keys)
	if err != nil {
		return nil, 0, err
	}
	found := map[string][]byte{}
	if len(args[0]) > 0 {
		if found, err = canonRowsOfKeys(ctx, tx.Conn().PgConn(), table, cols, pk, textArrays(args)); err != nil {
			return nil, 0, err
		}
	}
	images := make([][]byte, len(keys))
	given := map[string]bool{}
	for i, k := range keys {
		images[i] = found[string(k)]
		if given[string(k)] { // a duplicate key: an image of its own
			images[i] = bytes.Clone(images[i])
		}
		given[string(k)] = true
	}
	return images, height, nil
}

// keyParams decodes each key (once per distinct key) and returns, per
// key column, the texts of its values as the column's type reads them.
// A key that does not fit the key columns is an error wrapping
// backend.ErrKeyMismatch.
func keyParams(table string, cols []canonColumn, pk []int, keys [][]byte) ([][][]byte, error) {
	params := make([][][]byte, len(pk))
	seen := map[string]bool{}
	for _, key := range keys {
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		vals, err := rowcanon.DecodeKey(key)
		if err == nil && len(vals) != len(pk) {
			err = fmt.Errorf("%d values, the primary key has %d columns", len(vals), len(pk))
		}
		for i := 0; err == nil && i < len(pk); i++ {
			var p []byte
			if p, err = keyParam(cols[pk[i]], vals[i]); err == nil {
				params[i] = append(params[i], p)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("canonical rows of %s by key: key %s: %w: %w", table, keyHex(key), backend.ErrKeyMismatch, err)
		}
	}
	return params, nil
}

// keyHex is key in hex, its first 64 bytes only when it is longer.
func keyHex(key []byte) string {
	if len(key) > 64 {
		return hex.EncodeToString(key[:64]) + fmt.Sprintf("… (%d bytes)", len(key))
	}
	return hex.EncodeToString(key)
}

// canonKinds maps the types canonExpr reads to their kind in rowcanon.
var canonKinds = map[string]rowcanon.Kind{
	"bool": rowcanon.KindBool, "int2": rowcanon.KindInt, "int4": rowcanon.KindInt, "int8": rowcanon.KindInt,
	"numeric": rowcanon.KindNumeric, "float4": rowcanon.KindFloat, "float8": rowcanon.KindFloat,
	"text": rowcanon.KindText, "varchar": rowcanon.KindText, "bpchar": rowcanon.KindText,
	"bytea": rowcanon.KindBytes, "date": rowcanon.KindDate, "timestamp": rowcanon.KindTimestamp,
	"timestamptz": rowcanon.KindTimestamp, "uuid": rowcanon.KindUUID, "json": rowcanon.KindJSON,
}

// keyParam is v as the input text of column c's type, or an error when
// c cannot hold it (another kind, an integer or float4 out of range).
// The session's TimeZone and DateStyle do not change what it reads as.
func keyParam(c canonColumn, v rowcanon.Value) ([]byte, error) {
	if k, ok := canonKinds[c.typ]; !ok || k != v.Kind() {
		return nil, fmt.Errorf("column %s of type %s cannot hold a %s", c.name, c.shown, v.Kind())
	}
	switch i := v.AsInt(); c.typ {
	case "int2", "int4":
		if c.typ == "int2" && int64(int16(i)) != i || int64(int32(i)) != i {
			return nil, fmt.Errorf("column %s of type %s cannot hold %d", c.name, c.shown, i)
		}
	case "float4":
		if f := v.AsFloat(); !math.IsNaN(f) && float64(float32(f)) != f {
			return nil, fmt.Errorf("column %s of type %s cannot hold %v", c.name, c.shown, f)
		}
	}
	return []byte(keyParamText(c.typ, v)), nil
}

// keyParamText is v, of the kind of type typ, as typ's input reads it.
func keyParamText(typ string, v rowcanon.Value) string {
	switch v.Kind() {
	case rowcanon.KindFloat:
		f := v.AsFloat()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "Infinity"
		case math.IsInf(f, -1):
			return "-Infinity"
		case typ == "float4":
			return strconv.FormatFloat(f, 'g', -1, 32)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case rowcanon.KindBytes:
		return `\x` + hex.EncodeToString([]byte(v.AsString()))
	case rowcanon.KindText:
		return v.AsString()
	case rowcanon.KindDate:
		return time.Unix(v.AsDays()*86400, 0).UTC().Format("2006-01-02")
	case rowcanon.KindTimestamp:
		ts := time.UnixMicro(v.AsMicros()).UTC().Format("2006-01-02 15:04:05.999999")
		if typ == "timestamptz" {
			return ts + "+00"
		}
		return ts
	}
	return v.String() // bool, int, numeric, uuid: in PostgreSQL's syntax
}

// canonRowsOfKeys runs canonKeySQL's rowsSQL on pc with args (one array
// text per key column) and returns the image of each row read by its
// canonical key.
func canonRowsOfKeys(ctx context.Context, pc *pgconn.PgConn, table string, cols []canonColumn, pk []int, args [][]byte) (map[string][]byte, error) {
	_, rowsSQL := canonKeySQL(table, cols, pk)
	rr := pc.ExecParams(ctx, rowsSQL, args, nil, make([]int16, len(args)), nil)
	found := map[string][]byte{}
	row := make([]rowcanon.Column, len(cols))
	var verr error
	for verr == nil && rr.NextRow() {
		var key, image []byte
		if key, image, verr = canonRowOf(table, cols, pk, rr.Values(), row); verr == nil {
			found[string(key)] = image
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, fmt.Errorf("canonical rows of %s by key: %w", table, err)
	}
	if verr != nil {
		return nil, fmt.Errorf("canonical rows of %s: %w", table, verr)
	}
	return found, nil
}
