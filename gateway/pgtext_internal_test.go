package gateway

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// The expected texts are PostgreSQL 15's (SELECT x::float8 / ::float4 with
// extra_float_digits 1); test/gateway_types_test.go compares with the
// server itself.
func TestFormatFloatIsPostgres(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		{1.5, 64, "1.5"}, {0, 64, "0"}, {math.Copysign(0, -1), 64, "-0"}, {math.NaN(), 64, "NaN"},
		{math.Inf(1), 64, "Infinity"}, {math.Inf(-1), 32, "-Infinity"}, {1e15, 64, "1e+15"},
		{123456789012345, 64, "123456789012345"}, {1e16, 64, "1e+16"}, {0.0001, 64, "0.0001"}, {1e-5, 64, "1e-05"},
		{5e-324, 64, "5e-324"}, {0.30000000000000004, 64, "0.30000000000000004"}, {1e100, 64, "1e+100"}, {-1.5, 64, "-1.5"},
		{0.1, 32, "0.1"}, {1e6, 32, "1e+06"}, {123456, 32, "123456"}, {100000, 32, "100000"},
		{float64(float32(3.4028235e38)), 32, "3.4028235e+38"}, {float64(float32(1.17549435e-38)), 32, "1.1754944e-38"},
	} {
		if got := formatFloat(c.f, c.bits); got != c.want {
			t.Errorf("formatFloat(%v, %d) = %q, want %q", c.f, c.bits, got, c.want)
		}
	}
}

// Dates from SQLite and MySQL (RFC 3339, a T, Z) come out in PostgreSQL's
// form; PostgreSQL's own text passes unchanged.
func TestDateTimeText(t *testing.T) {
	for _, c := range []struct {
		oid      uint32
		in, want string
	}{
		{oidTimestamptz, "2026-12-01 23:09:33.293245+00", "2026-12-01 23:09:33.293245+00"},
		{oidTimestamptz, "2026-12-01T23:09:33.293245Z", "2026-12-01 23:09:33.293245+00"},
		{oidTimestamptz, "2026-12-01T23:09:33+02:00", "2026-12-01 21:09:33+00"},
		{oidTimestamptz, "0044-03-15 12:00:00+00 BC", "0044-03-15 12:00:00+00 BC"},
		{oidTimestamp, "2026-12-01T23:09:33.500", "2026-12-01 23:09:33.5"},
		{oidTimestamp, "2026-12-01 23:09:33", "2026-12-01 23:09:33"},
		{oidDate, "2026-12-01T00:00:00Z", "2026-12-01"},
		{oidDate, "infinity", "infinity"},
	} {
		got, err := dateTimeText(c.oid, c.in)
		if err != nil || got != c.want {
			t.Errorf("dateTimeText(%d, %q) = %q, %v; want %q", c.oid, c.in, got, err, c.want)
		}
	}
	if _, err := dateTimeText(oidDate, "soon"); err == nil {
		t.Error("dateTimeText accepted soon")
	}
}

// On a PostgreSQL network a text parameter goes to PostgreSQL as sent,
// an MDY date in ISO order; clock words are refused on every network.
func TestParamArg(t *testing.T) {
	tp := func(oid uint32, s string) pgwire.TextParam { return pgwire.TextParam{OID: oid, Text: s} }
	for _, c := range []struct {
		p    pgwire.TextParam
		want string
	}{
		{tp(oidTimestamptz, "2026-12-01 23:10:24.468 +00:00"), "2026-12-01 23:10:24.468 +00:00"},
		{tp(oidTimestamptz, "12/01/2026 23:10"), "2026-12-01 23:10"},
		{tp(oidDate, "1-2-26"), "2026-01-02"},
		{tp(oidDate, "01/02/99"), "1999-01-02"},
		{tp(oidDate, "2026-12-01"), "2026-12-01"},
		{tp(oidInt4, " 42 "), " 42 "},
		{tp(oidBool, "yes"), "yes"},
	} {
		got, err := paramArg(c.p, c.p.OID, true)
		if err != nil || !reflect.DeepEqual(got, txn.Text(c.want)) {
			t.Errorf("paramArg(%q) = %v, %v; want %q", c.p.Text, got, err, c.want)
		}
	}
	for _, native := range []bool{true, false} {
		for _, w := range []string{"now", "Today", "tomorrow 10:00", "yesterday", "epoch now"} {
			_, err := paramArg(tp(oidTimestamptz, w), oidTimestamptz, native)
			if pe, ok := err.(*pgwire.Error); !ok || pe.Code != "0A000" {
				t.Errorf("paramArg(%q, native %v) = %v, want 0A000", w, native, err)
			}
		}
	}
	// Elsewhere the text is decoded: Sequelize's form reads as a time.
	got, err := paramArg(tp(oidTimestamptz, "2026-12-01 23:10:24.468 +00:00"), oidTimestamptz, false)
	if want := txn.Text(formatTime(time.Date(2026, 12, 1, 23, 10, 24, 468e6, time.UTC))); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("decoded Sequelize timestamp = %v, %v; want %v", got, err, want)
	}
	if _, err := paramArg(tp(oidInt4, "x"), oidInt4, false); err == nil {
		t.Error("an invalid integer decoded")
	}
}

// Array parameters are announced as themselves where pgwire decodes
// their binary form (pgx sends []int32 so), else as unknown (text).
func TestArrayParameterOIDs(t *testing.T) {
	if paramOID("_int4") != 1007 || paramOID("_interval") != 0 || paramOID("int4") != 23 || paramOID("timestamptz") != 1184 {
		t.Errorf("paramOID: _int4 %d, _interval %d, int4 %d, timestamptz %d", paramOID("_int4"), paramOID("_interval"),
			paramOID("int4"), paramOID("timestamptz"))
	}
}
