package rowcanon

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is the canonical type of a value. A column's kind is decided by its
// declared type in the postgres dialect, never by how an engine stores it:
// smallint, integer and bigint are all KindInt; numeric is KindNumeric even
// when the value is whole.
type Kind uint8

// The kinds. The zero Value is NULL.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindNumeric
	KindFloat
	KindText
	KindBytes
	KindDate
	KindTimestamp
	KindUUID
	KindJSON
)

var kindNames = [...]string{"null", "bool", "int", "numeric", "float", "text", "bytes", "date", "timestamp", "uuid", "json"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// ErrInvalid is wrapped by every error a constructor or a decoder returns
// for a value outside the model.
var ErrInvalid = errors.New("rowcanon: invalid value")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Value is one typed value. Values are built by the constructors, which
// validate and normalise, so two Values of equal SQL value are equal Go
// values (==), except float zeros, which keep their sign (a row image
// tells -0 from 0; a key does not).
type Value struct {
	kind Kind
	i    int64   // bool (0, 1), int, date (days), timestamp (µs), numeric (exponent)
	f    float64 // float
	s    string  // numeric (normalised text), text, bytes, uuid (16 bytes), json
}

// Ranges of dates and timestamps: years 0001 to 9999 of the proleptic
// Gregorian calendar, the range every engine and ISO 8601 share.
const (
	MinDate      = -719162            // 0001-01-01
	MaxDate      = 2932896            // 9999-12-31
	MinTimestamp = MinDate * usPerDay // 0001-01-01 00:00:00 UTC
	MaxTimestamp = (MaxDate+1)*usPerDay - 1
	usPerDay     = 86_400_000_000
)

// canonicalNaN is the one NaN of the model (every NaN is stored as it).
const canonicalNaN = 0x7FF8000000000000

// Null is SQL NULL.
func Null() Value { return Value{} }

// Bool is a boolean.
func Bool(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.i = 1
	}
	return v
}

// Int is an integer of any SQL integer type (widened to 64 bits).
func Int(i int64) Value { return Value{kind: KindInt, i: i} }

// Float is a float8 (a float4 widened exactly). Every NaN becomes the one
// canonical NaN; infinities are kept; -0 keeps its sign.
func Float(f float64) Value {
	if math.IsNaN(f) {
		f = math.Float64frombits(canonicalNaN)
	}
	return Value{kind: KindFloat, f: f}
}

// Text is a text value: valid UTF-8 without NUL (PostgreSQL's text cannot
// hold U+0000, so no row holding it is the same on every engine).
func Text(s string) (Value, error) {
	if err := checkText(s); err != nil {
		return Value{}, fmt.Errorf("text: %w", err)
	}
	return Value{kind: KindText, s: s}, nil
}

func checkText(s string) error {
	if !utf8.ValidString(s) {
		return invalid("not valid UTF-8: %q", truncate(s))
	}
	if strings.IndexByte(s, 0) >= 0 {
		return invalid("contains NUL: %q", truncate(s))
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Bytes is a bytea value (any bytes).
func Bytes(b []byte) Value { return Value{kind: KindBytes, s: string(b)} }

// Date is a date as days since 1970-01-01, within MinDate..MaxDate.
func Date(days int64) (Value, error) {
	if days < MinDate || days > MaxDate {
		return Value{}, fmt.Errorf("date: %w", invalid("%d days is outside 0001-01-01..9999-12-31", days))
	}
	return Value{kind: KindDate, i: days}, nil
}

// DateOf is the date of t's year, month and day (t's location is ignored).
func DateOf(t time.Time) (Value, error) {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return Date(d.Unix() / 86400)
}

// Timestamp is a timestamp or timestamptz as microseconds since
// 1970-01-01 00:00:00 UTC, within MinTimestamp..MaxTimestamp.
func Timestamp(us int64) (Value, error) {
	if us < MinTimestamp || us > MaxTimestamp {
		return Value{}, fmt.Errorf("timestamp: %w", invalid("%d µs is outside 0001-01-01..9999-12-31", us))
	}
	return Value{kind: KindTimestamp, i: us}, nil
}

// TimestampOf is the instant t, which must be a whole microsecond.
func TimestampOf(t time.Time) (Value, error) {
	if t.Nanosecond()%1000 != 0 {
		return Value{}, fmt.Errorf("timestamp: %w", invalid("%s is not a whole microsecond", t.Format(time.RFC3339Nano)))
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return Value{}, fmt.Errorf("timestamp: %w", invalid("%s is outside 0001-01-01..9999-12-31", t.UTC().Format(time.RFC3339Nano)))
	}
	return Timestamp(t.UnixMicro())
}

// UUID is a uuid from its 16 bytes.
func UUID(b [16]byte) Value { return Value{kind: KindUUID, s: string(b[:])} }

// JSON is a json value, its text as given (not normalised: PostgreSQL's
// json keeps its input text). A jsonb column passes the caller's
// canonical text of the jsonb value.
func JSON(s string) (Value, error) {
	if err := checkText(s); err != nil {
		return Value{}, fmt.Errorf("json: %w", err)
	}
	if !json.Valid([]byte(s)) {
		return Value{}, fmt.Errorf("json: %w", invalid("not valid JSON: %q", truncate(s)))
	}
	return Value{kind: KindJSON, s: s}, nil
}

// Kind is v's kind.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsBool, AsInt, AsFloat, AsString and AsDays read v's payload; they are
// meaningful for the kinds they name (AsInt: int; AsDays: date; AsMicros:
// timestamp; AsString: numeric text, text, bytes, uuid bytes, json).
func (v Value) AsBool() bool     { return v.i != 0 }
func (v Value) AsInt() int64     { return v.i }
func (v Value) AsFloat() float64 { return v.f }
func (v Value) AsString() string { return v.s }
func (v Value) AsDays() int64    { return v.i }
func (v Value) AsMicros() int64  { return v.i }

// String is v for humans, in PostgreSQL's output syntax where it has one.
func (v Value) String() string {
	switch v.kind {
	case KindNull:
		return "NULL"
	case KindBool:
		return strconv.FormatBool(v.AsBool())
	case KindInt:
		return strconv.FormatInt(v.i, 10)
	case KindFloat:
		return formatFloat(v.f)
	case KindNumeric, KindJSON:
		return v.s
	case KindText:
		return strconv.Quote(v.s)
	case KindBytes:
		return `\x` + hex.EncodeToString([]byte(v.s))
	case KindDate:
		return time.Unix(v.i*86400, 0).UTC().Format("2006-01-02")
	case KindTimestamp:
		return time.UnixMicro(v.i).UTC().Format("2006-01-02 15:04:05.999999Z")
	case KindUUID:
		h := hex.EncodeToString([]byte(v.s))
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	return v.kind.String()
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
