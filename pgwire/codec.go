package pgwire

import (
	"database/sql/driver"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// timetz and its array, which pgtype has no codec for.
const (
	oidTimetz      = 1266
	oidTimetzArray = 1270
)

// Wire format codes.
const (
	formatText   int16 = 0
	formatBinary int16 = 1
)

// wireOID is the OID sent for a type a Session left as 0: text, which every client can read
// and which makes clients send the parameter as a string.
func wireOID(oid uint32) uint32 {
	if oid == 0 {
		return pgtype.TextOID
	}
	return oid
}

// isTextLike reports types whose text and binary forms are the same UTF-8 bytes (jsonb adds a
// version byte in binary), so values are rendered as text without pgtype.
func isTextLike(oid uint32) bool {
	switch oid {
	case 0, pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.UnknownOID,
		pgtype.JSONOID, pgtype.JSONBOID, pgtype.XMLOID, pgtype.QCharOID:
		return true
	}
	return false
}

// typeSize is RowDescription's typlen for the common fixed-size types, -1 otherwise.
func typeSize(oid uint32) int16 {
	switch oid {
	case pgtype.BoolOID, pgtype.QCharOID:
		return 1
	case pgtype.Int2OID:
		return 2
	case pgtype.Int4OID, pgtype.Float4OID, pgtype.DateOID, pgtype.OIDOID:
		return 4
	case pgtype.Int8OID, pgtype.Float8OID, pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.TimeOID:
		return 8
	case oidTimetz:
		return 12
	case pgtype.UUIDOID, pgtype.IntervalOID:
		return 16
	case pgtype.NameOID:
		return 64
	}
	return -1
}

// rowDescription describes cols with the format formatFor(i) for column i.
func rowDescription(cols []Column, formatFor func(i int) int16) *pgproto3.RowDescription {
	fields := make([]pgproto3.FieldDescription, len(cols))
	for i, col := range cols {
		oid := wireOID(col.OID)
		mod := int32(-1)
		if col.HasTypmod {
			mod = col.Typmod
		}
		fields[i] = pgproto3.FieldDescription{
			Name: []byte(col.Name), DataTypeOID: oid, DataTypeSize: typeSize(oid),
			TypeModifier: mod, Format: formatFor(i),
		}
	}
	return &pgproto3.RowDescription{Fields: fields}
}

// decodeParam converts one Bind parameter into nil, string (text-like types), TextParam (any
// other type in text format: its text as sent, which the Session reads), or, in binary format,
// int64, float64, []byte, bool, time.Time or string (numeric, uuid: canonical text).
func decodeParam(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	if format == formatText && !isTextLike(oid) {
		return TextParam{OID: oid, Text: string(src), m: m}, nil
	}
	return decodeValue(m, oid, format, src)
}

// TextParam is a parameter a client sent in text format for a type that is not text-like:
// PostgreSQL reads such text with the type's input function, which accepts many forms
// ('2026-12-01 23:10:24.468 +00:00', 'yes', ' 42 ', '1.5e3', '{1,2}'), so the Session decides
// whether its database reads the text itself or Decode converts it.
type TextParam struct {
	OID  uint32
	Text string
	m    *pgtype.Map
}

// Decode converts the text as a Bind parameter of its type is decoded in binary format
// (int64, float64, bool, []byte, time.Time, or canonical text for numeric and uuid); times
// are read in the forms PostgreSQL clients send, with a T or a space, a zone as Z, +hh,
// +hh:mm or " +hh:mm".
func (p TextParam) Decode() (any, error) {
	m := p.m
	if m == nil {
		m = pgtype.NewMap()
	}
	return decodeValue(m, p.OID, formatText, []byte(p.Text))
}

func decodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if src == nil {
		return nil, nil
	}
	if isTextLike(oid) {
		if oid == pgtype.JSONBOID && format == formatBinary {
			if len(src) == 0 || src[0] != 1 {
				return nil, fmt.Errorf("unsupported jsonb binary version")
			}
			src = src[1:]
		}
		return string(src), nil
	}
	switch oid {
	case pgtype.BoolOID:
		return scanAs[bool](m, oid, format, src)
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID:
		return scanAs[int64](m, oid, format, src)
	case pgtype.Float4OID, pgtype.Float8OID:
		return scanAs[float64](m, oid, format, src)
	case pgtype.ByteaOID:
		b, err := scanAs[[]byte](m, oid, format, src)
		return append([]byte{}, b...), err
	case pgtype.NumericOID, pgtype.UUIDOID:
		return decodeAsText(m, oid, format, src)
	case pgtype.DateOID, pgtype.TimestampOID, pgtype.TimestamptzOID:
		return decodeTime(m, oid, format, src)
	}
	if format == formatText {
		return string(src), nil
	}
	if _, ok := arrayElem[oid]; ok {
		return arrayTextFromBinary(m, src)
	}
	return nil, fmt.Errorf("binary format for parameter type OID %d is not supported; send it as text", oid)
}

func scanAs[T any](m *pgtype.Map, oid uint32, format int16, src []byte) (T, error) {
	var v T
	err := m.Scan(oid, format, src, &v)
	return v, err
}

// decodeAsText validates a numeric or uuid and returns its canonical text (numeric: exact).
func decodeAsText(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	var valuer driver.Valuer
	if oid == pgtype.NumericOID {
		var n pgtype.Numeric
		if err := m.Scan(oid, format, src, &n); err != nil {
			return nil, err
		}
		valuer = n
	} else {
		var u pgtype.UUID
		if err := m.Scan(oid, format, src, &u); err != nil {
			return nil, err
		}
		valuer = u
	}
	v, err := valuer.Value()
	if err != nil {
		return nil, err
	}
	return fmt.Sprint(v), nil
}

// decodeTime returns a time.Time, or "infinity"/"-infinity" as text. Text that the type's
// own parser rejects is retried as timestamptz, which is what clients send for untyped
// time.Time parameters; like PostgreSQL, date keeps the day and timestamp the wall clock.
func decodeTime(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if format == formatText {
		src = spaceForT(src)
	}
	v, err := decodeWithCodec(m, oid, format, src)
	if err != nil && format == formatText && oid != pgtype.TimestamptzOID {
		if alt, altErr := decodeWithCodec(m, pgtype.TimestamptzOID, format, src); altErr == nil {
			v, err = alt, nil
			if t, ok := alt.(time.Time); ok {
				v = wallClock(t, oid)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if inf, ok := v.(pgtype.InfinityModifier); ok {
		return inf.String(), nil
	}
	return v, nil
}

// spaceForT turns ISO 8601's "2020-01-02T03:04:05" into PostgreSQL's
// "2020-01-02 03:04:05", which pgx's text parsers require. PostgreSQL
// accepts both, and node-postgres sends every JavaScript Date with the T
// ("2020-01-02T03:04:05.000+00:00").
func spaceForT(src []byte) []byte {
	out := src
	if len(src) > 10 && src[10] == 'T' {
		out = append([]byte{}, src...)
		out[10] = ' '
	}
	// Sequelize writes a space before the zone ("… 23:10:24.468 +00:00"), which PostgreSQL
	// accepts and pgx's parsers do not; "Z" is +00.
	if m := spacedZone.FindSubmatchIndex(out); m != nil {
		out = append(append([]byte{}, out[:m[2]]...), out[m[3]:]...)
	}
	if n := len(out); n > 19 && out[n-1] == 'Z' && out[n-2] >= '0' && out[n-2] <= '9' {
		out = append(append([]byte{}, out[:n-1]...), "+00"...)
	}
	return out
}

// spacedZone is a numeric zone after a space at the end of a timestamp; group 1 is the space.
var spacedZone = regexp.MustCompile(`[0-9]( )[+-][0-9]{2}(:?[0-9]{2}){0,2}$`)

func decodeWithCodec(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	typ, ok := m.TypeForOID(oid)
	if !ok {
		return nil, fmt.Errorf("no codec for type OID %d", oid)
	}
	return typ.Codec.DecodeValue(m, oid, format, src)
}

// wallClock reinterprets t's date (and for timestamp its clock) in UTC, dropping the zone.
func wallClock(t time.Time, oid uint32) time.Time {
	if oid == pgtype.DateOID {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// encodeValue renders v for a column of type oid in the requested format. nil → NULL.
func encodeValue(m *pgtype.Map, oid uint32, format int16, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if b, ok := v.([]byte); ok && b == nil {
		return nil, nil
	}
	oid = wireOID(oid)
	if isTextLike(oid) {
		out := make([]byte, 0, 16)
		if oid == pgtype.JSONBOID && format == formatBinary {
			out = append(out, 1)
		}
		return append(out, renderText(v)...), nil
	}
	if s, ok := v.(string); ok {
		if format == formatText {
			return append(make([]byte, 0, len(s)), s...), nil
		}
		// A string for a non-text column is that type's text form: parse it, send binary.
		if out, ok, err := binaryFromText(oid, s); ok {
			if err != nil {
				return nil, fmt.Errorf("value %q is not valid for type OID %d: %w", s, oid, err)
			}
			return out, nil
		}
		typ, ok := m.TypeForOID(oid)
		if !ok {
			return nil, fmt.Errorf("no binary encoding for type OID %d", oid)
		}
		parsed, err := typ.Codec.DecodeValue(m, oid, formatText, []byte(s))
		if err != nil {
			return nil, fmt.Errorf("value %q is not valid for type OID %d: %w", s, oid, err)
		}
		v = parsed
	}
	buf, err := m.Encode(oid, format, v, make([]byte, 0, 16))
	if err != nil {
		return nil, fmt.Errorf("encoding %T for type OID %d: %w", v, oid, err)
	}
	return buf, nil
}

// renderText is the text a Go value has in a text-typed column.
func renderText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format("2006-01-02 15:04:05.999999Z07:00")
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}
