package gateway

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// PostgreSQL type OIDs of the type names the node reports (api's type
// vocabulary). A name not here travels as text.
var oidOf = map[string]uint32{
	"bool": 16, "bytea": 17, "int8": 20, "int2": 21, "int4": 23, "text": 25,
	"json": 114, "float4": 700, "float8": 701, "bpchar": 1042, "varchar": 1043,
	"date": 1082, "time": 1083, "timestamp": 1114, "timestamptz": 1184,
	"interval": 1186, "numeric": 1700, "uuid": 2950, "jsonb": 3802,
	"name": 19, "oid": 26, "char": 18, "regclass": 2205, "regtype": 2206,
	"int2vector": 22, "oidvector": 30, "xid": 28, "cid": 29, "tid": 27,
	"_text": 1009, "_int2": 1005, "_int4": 1007, "_int8": 1016, "_oid": 1028, "_name": 1003,
	"_char": 1002, "_bool": 1000, "_float4": 1021, "_float8": 1022, "_varchar": 1015,
	"aclitem": 1033, "_aclitem": 1034, "pg_node_tree": 194, "regproc": 24,
}

// sentAsItself are the types whose OID a column is announced with; any
// other type (arrays, catalog types, time, interval) is announced as text
// and its values sent as their text, which every client reads.
var sentAsItself = map[uint32]bool{16: true, 17: true, 19: true, 20: true, 21: true, 23: true, 25: true,
	114: true, 700: true, 701: true, 1042: true, 1043: true, 1082: true, 1114: true, 1184: true,
	1700: true, 2950: true, 3802: true}

// wireColumns turns names and type names into pgwire columns.
func wireColumns(names, types []string) []pgwire.Column {
	cols := make([]pgwire.Column, len(names))
	for i, n := range names {
		oid := uint32(25)
		if i < len(types) && sentAsItself[oidOf[types[i]]] {
			oid = oidOf[types[i]]
		}
		cols[i] = pgwire.Column{Name: n, OID: oid}
	}
	return cols
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
// byte string arrives base64-encoded) to what pgwire encodes for oid.
func wireValue(oid uint32, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch oid {
	case 16:
		return toBool(v)
	case 20, 21, 23:
		return toInt(v)
	case 700, 701:
		return toFloat(v)
	case 17:
		return toBytes(v)
	case 1082, 1114, 1184:
		return toTime(v)
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

func toFloat(v any) (any, error) {
	switch x := v.(type) {
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
	return nil, fmt.Errorf("%v is not a number", v)
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

func toTime(v any) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%v is not a date or time", v)
	}
	if s == "infinity" || s == "-infinity" {
		return s, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%q is not a date or time the gateway understands", s)
}

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

// formatTime renders t for a backend: UTC offsets only when not UTC.
func formatTime(t time.Time) string {
	if t.Location() == time.UTC {
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
