package client

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	ics23 "github.com/cosmos/ics23/go"

	"github.com/relchain/relchain/rowcanon"
)

// CanonicalValue converts v, a value of a column of PostgreSQL type typ
// (api.QueryResponse.Types), to its canonical form (rowcanon). v is a
// rowcanon.Value (kept), a Go value of the type's kind (int, int64,
// float64, string, []byte, bool, time.Time, [16]byte), a json.Number, or
// a string in the type's input syntax (numbers, dates "2006-01-02",
// timestamps RFC 3339, uuids).
func CanonicalValue(typ string, v any) (rowcanon.Value, error) {
	if cv, ok := v.(rowcanon.Value); ok {
		return cv, nil
	}
	switch typ {
	case "int2", "int4", "int8":
		return canonInt(v)
	case "numeric":
		return rowcanon.Numeric(fmt.Sprint(v))
	case "float4", "float8":
		f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("%v is not a %s: %w", v, typ, err)
		}
		return rowcanon.Float(f), nil
	case "text", "varchar", "bpchar":
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		return rowcanon.Text(s)
	case "bytea":
		return canonBytes(v)
	case "bool":
		b, err := strconv.ParseBool(fmt.Sprint(v))
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("%v is not a boolean: %w", v, err)
		}
		return rowcanon.Bool(b), nil
	case "date", "timestamp", "timestamptz":
		return canonTime(typ, v)
	case "uuid":
		return canonUUID(v)
	}
	return rowcanon.Value{}, fmt.Errorf("type %q has no canonical key form", typ)
}

func canonInt(v any) (rowcanon.Value, error) {
	switch x := v.(type) {
	case int:
		return rowcanon.Int(int64(x)), nil
	case int32:
		return rowcanon.Int(int64(x)), nil
	case int64:
		return rowcanon.Int(x), nil
	case json.Number:
		v = x.String()
	}
	n, err := strconv.ParseInt(strings.TrimSpace(fmt.Sprint(v)), 10, 64)
	if err != nil {
		return rowcanon.Value{}, fmt.Errorf("%v is not an integer: %w", v, err)
	}
	return rowcanon.Int(n), nil
}

func canonBytes(v any) (rowcanon.Value, error) {
	switch x := v.(type) {
	case []byte:
		return rowcanon.Bytes(x), nil
	case string:
		b, err := hex.DecodeString(strings.TrimPrefix(x, `\x`))
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("bytea %q is not \\x and hex digits: %w", x, err)
		}
		return rowcanon.Bytes(b), nil
	}
	return rowcanon.Value{}, fmt.Errorf("%v (%T) is not a bytea", v, v)
}

func canonTime(typ string, v any) (rowcanon.Value, error) {
	t, ok := v.(time.Time)
	if !ok {
		s := fmt.Sprint(v)
		var err error
		if t, err = time.Parse("2006-01-02", s); err != nil {
			if t, err = time.Parse(time.RFC3339Nano, s); err != nil {
				if t, err = time.Parse("2006-01-02 15:04:05.999999", s); err != nil {
					return rowcanon.Value{}, fmt.Errorf("%q is not a %s (2006-01-02, RFC 3339): %w", s, typ, err)
				}
			}
		}
	}
	if typ == "date" {
		return rowcanon.DateOf(t)
	}
	return rowcanon.TimestampOf(t)
}

func canonUUID(v any) (rowcanon.Value, error) {
	if b, ok := v.([16]byte); ok {
		return rowcanon.UUID(b), nil
	}
	s := strings.ReplaceAll(fmt.Sprint(v), "-", "")
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 {
		return rowcanon.Value{}, fmt.Errorf("%v is not a uuid", v)
	}
	var u [16]byte
	copy(u[:], b)
	return rowcanon.UUID(u), nil
}

// exOf is an existence proof's key and value, or nil.
func exOf(ex *ics23.ExistenceProof) *struct{ k, v []byte } {
	if ex == nil {
		return nil
	}
	return &struct{ k, v []byte }{ex.Key, ex.Value}
}
