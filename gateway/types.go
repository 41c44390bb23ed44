package gateway

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// PostgreSQL type OIDs of the type names the node reports (api's type
// vocabulary). A name not here travels as text.
var oidOf = map[string]uint32{
	"bool": 16, "bytea": 17, "int8": 20, "int2": 21, "int4": 23, "text": 25,
	"json": 114, "float4": 700, "float8": 701, "bpchar": 1042, "varchar": 1043,
	"date": 1082, "time": 1083, "timestamp": 1114, "timestamptz": 1184,
	"interval": 1186, "timetz": 1266, "numeric": 1700, "uuid": 2950, "jsonb": 3802,
	"name": 19, "oid": 26, "char": 18, "regclass": 2205, "regtype": 2206,
	"int2vector": 22, "oidvector": 30, "xid": 28, "cid": 29, "tid": 27,
	"_text": 1009, "_int2": 1005, "_int4": 1007, "_int8": 1016, "_oid": 1028, "_name": 1003,
	"_char": 1002, "_bool": 1000, "_float4": 1021, "_float8": 1022, "_varchar": 1015,
	"_bytea": 1001, "_bpchar": 1014, "_date": 1182, "_time": 1183, "_timetz": 1270,
	"_timestamp": 1115, "_timestamptz": 1185, "_interval": 1187, "_numeric": 1231,
	"_uuid": 2951, "_json": 199, "_jsonb": 3807,
	"aclitem": 1033, "_aclitem": 1034, "pg_node_tree": 194, "regproc": 24,
}

// sentAsItself are the types whose OID a column is announced with on every
// network; any other type (arrays, catalog types, time, interval) is
// announced as text and its values sent as their text, which every client
// reads.
var sentAsItself = map[uint32]bool{16: true, 17: true, 19: true, 20: true, 21: true, 23: true, 25: true,
	114: true, 700: true, 701: true, 1042: true, 1043: true, 1082: true, 1114: true, 1184: true,
	1700: true, 2950: true, 3802: true}

// sentAsItselfNative are announced as themselves too where the database's
// values are PostgreSQL's own text (dialect.Wire.NativeTypes):
// time, timetz, interval and the arrays of the vocabulary's types. Another
// database's TIME (MySQL's is a duration) or array-like text stays text.
var sentAsItselfNative = map[uint32]bool{1083: true, 1266: true, 1186: true,
	1000: true, 1001: true, 1005: true, 1007: true, 1009: true, 1014: true, 1015: true, 1016: true,
	1021: true, 1022: true, 1115: true, 1182: true, 1183: true, 1185: true, 1187: true, 1231: true,
	1270: true, 2951: true, 199: true, 3807: true,
	1003: true} // name[]: the catalogs' column lists (Django's get_constraints reads array(attname))

// wireColumns turns names, type names and type modifiers (nil, or -1 for
// none) into pgwire columns; native says the database's values are
// PostgreSQL's own (sentAsItselfNative).
func wireColumns(names, types []string, typmods []int32, native bool) []pgwire.Column {
	cols := make([]pgwire.Column, len(names))
	for i, n := range names {
		oid := uint32(25)
		if i < len(types) {
			if o := oidOf[types[i]]; sentAsItself[o] || native && sentAsItselfNative[o] {
				oid = o
			}
		}
		cols[i] = pgwire.Column{Name: n, OID: oid}
		if oid != 25 && i < len(typmods) && typmods[i] >= 0 {
			cols[i].Typmod, cols[i].HasTypmod = typmods[i], true
		}
	}
	return cols
}

// paramOID is the OID a parameter of type t is announced with. Arrays of
// time, timetz and interval are announced as unknown (the client sends
// text, which PostgreSQL reads): pgwire decodes binary arrays of the
// other types only, and a client told their OID may send binary.
func paramOID(t string) uint32 {
	switch t {
	case "_time", "_timetz", "_interval":
		return 0
	}
	return oidOf[t]
}

// describedColumns are a description's columns as wireColumns takes them.
func describedColumns(cols []api.ColumnType) (names, types []string, typmods []int32) {
	names, types, typmods = make([]string, len(cols)), make([]string, len(cols)), make([]int32, len(cols))
	for i, c := range cols {
		names[i], types[i], typmods[i] = c.Name, c.Type, -1
		if c.Typmod != nil {
			typmods[i] = *c.Typmod
		}
	}
	return names, types, typmods
}

// wireRows converts the node's JSON values for cols' types, in place.
func wireRows(cols []pgwire.Column, rows [][]any) error {
	for _, row := range rows {
		for i, v := range row {
			if i >= len(cols) {
				return fmt.Errorf("a row has %d values for %d columns", len(row), len(cols))
			}
			w, err := wireValue(cols[i].OID, v)
			if err != nil {
				return fmt.Errorf("column %q: %w", cols[i].Name, err)
			}
			row[i] = w
		}
	}
	return nil
}

// wireValue converts one JSON value (nil, bool, json.Number, string; a
// byte string arrives base64-encoded) to what pgwire encodes for oid: a
// Go value pgtype renders as PostgreSQL does (integers, booleans, bytes),
// or the value's PostgreSQL text (pgwire parses it for binary format).
func wireValue(oid uint32, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch oid {
	case oidBool:
		return toBool(v)
	case oidInt8, oidInt2, oidInt4:
		return toInt(v)
	case oidFloat4, oidFloat8:
		f, err := toFloat(v)
		if err != nil {
			return nil, err
		}
		if oid == oidFloat4 {
			return formatFloat(f, 32), nil
		}
		return formatFloat(f, 64), nil
	case oidBytea:
		return toBytes(v)
	case oidDate, oidTimestamp, oidTimestamptz:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a date or time", v)
		}
		return dateTimeText(oid, s)
	}
	return toText(v), nil
}

func toText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "t"
		}
		return "f"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func toBool(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case json.Number:
		return x.String() != "0", nil
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil && (x == "t" || x == "f") {
			return x == "t", nil
		}
		return b, err
	}
	return nil, fmt.Errorf("%v is not a boolean", v)
}

func toInt(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, nil
		}
		f, err := x.Float64()
		if err != nil || f != math.Trunc(f) {
			return nil, fmt.Errorf("%s is not an integer", x)
		}
		return int64(f), nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case string:
		return strconv.ParseInt(strings.TrimSpace(x), 10, 64)
	}
	return nil, fmt.Errorf("%v is not an integer", v)
}

func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case json.Number:
		return x.Float64()
	case string:
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return strconv.ParseFloat(strings.TrimSpace(x), 64)
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// toBytes decodes a byte string: JSON carries []byte as base64.
func toBytes(v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return []byte(toText(v)), nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return []byte(s), nil
}

// timeLayouts are the forms dates and timestamps come in from the three
// backends.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999-07",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"}

// argOf converts a decoded Bind or query parameter to an envelope
// argument. Times travel as text in ISO 8601, which all three backends
// read.
func argOf(v any) (txn.Arg, error) {
	switch x := v.(type) {
	case nil:
		return txn.Null(), nil
	case int64:
		return txn.Int(x), nil
	case float64:
		return txn.Float(x), nil
	case string:
		return txn.Text(x), nil
	case []byte:
		return txn.Bytes(x), nil
	case bool:
		return txn.Bool(x), nil
	case time.Time:
		return txn.Text(formatTime(x)), nil
	}
	return txn.Arg{}, fmt.Errorf("a parameter of type %T is not supported", v)
}

// dateArg is a date parameter's argument: the day only.
func dateArg(v any) (txn.Arg, error) {
	if t, ok := v.(time.Time); ok {
		return txn.Text(t.Format("2006-01-02")), nil
	}
	return argOf(v)
}

// formatTime renders t for a backend: UTC offsets only when not UTC (a
// zone of offset zero, as a parsed "+00:00" gives, is UTC).
func formatTime(t time.Time) string {
	if _, off := t.Zone(); off == 0 {
		t = t.UTC()
		return t.Format("2006-01-02 15:04:05.999999")
	}
	return t.Format("2006-01-02 15:04:05.999999Z07:00")
}

// queryArg converts an envelope argument for the query path's JSON.
func queryArg(a txn.Arg) (any, error) {
	if a.Kind == txn.KindBytes {
		return nil, refused("byte-string (bytea) parameters in reads are not supported yet: inline them as a literal")
	}
	return a.Value(), nil
}
