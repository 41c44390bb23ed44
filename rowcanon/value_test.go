package rowcanon

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestNumericIsNormalised(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "+0.000": "0", "0e99": "0", ".5": "0.5", "5.": "5",
		"1.50": "1.5", "001.500": "1.5", "-1.50": "-1.5", "15e-1": "1.5", "1E3": "1000",
		"1.2e+2": "120", "-0.00120": "-0.0012", "100": "100", "12345678901234567890.10": "12345678901234567890.1",
	} {
		v, err := Numeric(in)
		if err != nil || v.AsString() != want {
			t.Errorf("Numeric(%q) = %q, %v; want %q", in, v.AsString(), err, want)
		}
	}
}

func TestNumericRefusesBadSyntaxAndRange(t *testing.T) {
	for _, in := range []string{"", "-", ".", "+.", "1..2", "1.2.3", "1e", "1e+", "e5", "NaN", "Infinity", "-inf", " 1", "1 ", "0x10", "1_000",
		"1e131072", "1e-16384", "-1e-16384", "1e2147483648", strings.Repeat("9", 131073)} {
		if v, err := Numeric(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("Numeric(%q) = %.40s, %v; want ErrInvalid", in, v, err)
		}
	}
	// the ends of the range: 131072 digits before the point, 16383 after
	for _, in := range []string{"1e131071", "-9.9e131071", "1e-16383", strings.Repeat("9", 131072) + "." + strings.Repeat("9", 16383)} {
		if _, err := Numeric(in); err != nil {
			t.Errorf("Numeric(%.40q): %v", in, err)
		}
	}
}

func TestTextAndJSONRefuseWhatNoEngineShares(t *testing.T) {
	for _, s := range []string{"\xff", "a\x00b", "\xc3"} {
		if _, err := Text(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("Text(%q) = %v, want ErrInvalid", s, err)
		}
	}
	for _, s := range []string{"", "{", "{'a': 1}", "\xff", "[1,]"} {
		if _, err := JSON(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("JSON(%q) = %v, want ErrInvalid", s, err)
		}
	}
	if v, err := JSON(` {"b":1, "a":2} `); err != nil || v.AsString() != ` {"b":1, "a":2} ` {
		t.Errorf("JSON keeps its text as given: %q, %v", v.AsString(), err)
	}
}

func TestDatesAndTimestampsInRange(t *testing.T) {
	for _, d := range []int64{MinDate - 1, MaxDate + 1, math.MinInt64, math.MaxInt64} {
		if _, err := Date(d); !errors.Is(err, ErrInvalid) {
			t.Errorf("Date(%d) = %v, want ErrInvalid", d, err)
		}
	}
	for _, us := range []int64{MinTimestamp - 1, MaxTimestamp + 1} {
		if _, err := Timestamp(us); !errors.Is(err, ErrInvalid) {
			t.Errorf("Timestamp(%d) = %v, want ErrInvalid", us, err)
		}
	}
	lo := mustValue(t)(Date(MinDate))
	hi := mustValue(t)(Timestamp(MaxTimestamp))
	if lo.String() != "0001-01-01" || hi.String() != "9999-12-31 23:59:59.999999Z" {
		t.Errorf("range ends: %s, %s", lo, hi)
	}
	zone := time.FixedZone("x", 5*3600)
	ts := mustValue(t)(TimestampOf(time.Date(2024, 2, 29, 5, 30, 0, 1000, zone)))
	if ts.String() != "2024-02-29 00:30:00.000001Z" {
		t.Errorf("TimestampOf is the instant in UTC: %s", ts)
	}
	if _, err := TimestampOf(time.Date(2024, 1, 1, 0, 0, 0, 1, time.UTC)); !errors.Is(err, ErrInvalid) {
		t.Errorf("TimestampOf a nanosecond = %v, want ErrInvalid", err)
	}
	if d := mustValue(t)(DateOf(time.Date(2024, 2, 29, 23, 0, 0, 0, zone))); d.String() != "2024-02-29" || d.AsDays() != 19782 {
		t.Errorf("DateOf: %s (%d days)", d, d.AsDays())
	}
}

func TestFloatKeepsInfinitiesAndOneNaN(t *testing.T) {
	nan := Float(math.Float64frombits(0xFFF8000000000123))
	if math.Float64bits(nan.AsFloat()) != canonicalNaN || nan.String() != "NaN" {
		t.Errorf("NaN: %x %s", math.Float64bits(nan.AsFloat()), nan)
	}
	if s := Float(math.Inf(-1)).String(); s != "-Infinity" {
		t.Errorf("-Inf: %s", s)
	}
	if z := Float(math.Copysign(0, -1)); !math.Signbit(z.AsFloat()) || z.String() != "-0" {
		t.Errorf("-0 keeps its sign in a value: %s", z)
	}
}
