package sqlite

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/sqlcheck"
)

// plainConn is a connection with SQLite's own functions.
func plainConn(t *testing.T) *sqlite3.Conn {
	t.Helper()
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rewrittenConn is a connection with the rewritten functions, reading rw.
func rewrittenConn(t *testing.T) (*sqlite3.Conn, *rewriter) {
	t.Helper()
	c := plainConn(t)
	rw := newRewriter()
	t.Cleanup(rw.close)
	if err := initConn(c, rw, false); err != nil {
		t.Fatal(err)
	}
	return c, rw
}

// row returns the first row of sql, each value typed as "type:text".
func row(t *testing.T, c *sqlite3.Conn, sql string, args ...any) []string {
	t.Helper()
	st, _, err := c.Prepare(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer st.Close()
	for i, a := range args {
		switch a := a.(type) {
		case string:
			st.BindText(i+1, a)
		case []byte:
			st.BindBlob(i+1, a)
		case float64:
			st.BindFloat(i+1, a)
		case int64:
			st.BindInt64(i+1, a)
		}
	}
	if !st.Step() {
		t.Fatalf("%s: no row: %v", sql, st.Err())
	}
	out := make([]string, st.ColumnCount())
	for i := range out {
		switch st.ColumnType(i) {
		case sqlite3.FLOAT:
			out[i] = fmt.Sprintf("float:%v", st.ColumnFloat(i)) // exact
		default:
			out[i] = st.ColumnType(i).String() + ":" + st.ColumnText(i)
		}
	}
	return out
}

// nowCalls are calls reading 'now' in every form SQLite knows, with the
// modifiers that behave differently for 'now' than for other values.
var nowCalls = []string{
	"date()", "time()", "datetime()", "julianday()", "unixepoch()",
	"date('now')", "time('NOW')", "datetime('nOw')", "julianday('now')", "unixepoch('now')",
	"current_date", "current_time", "current_timestamp", "CURRENT_TIMESTAMP",
	"datetime('subsec')", "time('SUBSECOND')", "unixepoch('subsec')", "julianday('subsecond')",
	"strftime('%Y-%m-%d %H:%M:%f')", "strftime('%s %S %J %j %W %w %u %H %k %I %l %p %P %R %T %F %e %d %m %M %Y %%')",
	"strftime('%f', 'now')", "strftime('%s', 'subsec')", "strftime('%G %V %U %C %y %b %a', 'now')",
	"datetime('now', 'subsec')", "unixepoch('now', 'subsec')", "time('now', 'subsecond')",
	"datetime('now', '+1 day')", "datetime('now', '-3 hours', '+90 minutes')", "datetime('now', '+1.5 seconds', 'subsec')",
	"datetime('now', 'start of month')", "datetime('now', 'start of year')", "datetime('now', 'start of day')",
	"date('now', 'weekday 0')", "date('now', 'weekday 3')", "date('now', 'weekday 6')",
	"datetime('now', '+1 month')", "datetime('now', '-13 months')", "datetime('now', '+2 years')", "datetime('now', '+1.7 months')",
	"datetime('now', 'auto')", "datetime('now', 'julianday')", "datetime('now', 'unixepoch')", "datetime('subsec', 'auto')",
	"datetime('now', 'ceiling')", "datetime('now', 'floor')", "datetime('now', '+1 month', 'floor')",
	"datetime('now', '+0001-02-03')", "datetime('now', '-0001-02-03 04:05:06.789')", "datetime('now', '+04:05')",
	"datetime('now', 'start of month', '+1 month', '-1 day', 'subsec')", "datetime('now', 'bogus')",
	"timediff('now', '2000-01-01')", "timediff('2030-06-15 12:00', 'now')", "timediff('now', 'now')", "timediff('subsec', '2000-02-29')",
	"julianday() - julianday('2000-01-01')", "datetime(unixepoch(), 'unixepoch')", "datetime(julianday())",
	"date('now', NULL)", "date('now', 5)", "date('now', '+1 day', '+1 day', '+1 day', '+1 day', '+1 day', '+1 day')",
}

// TestNowMatchesBuiltin: with env.Time equal to the instant SQLite's own
// functions read in the same statement, every call returns exactly what the
// built-in returns (type and value).
func TestNowMatchesBuiltin(t *testing.T) {
	plain := plainConn(t)
	rc, rw := rewrittenConn(t)
	for _, call := range nowCalls {
		for range 3 {
			got := row(t, plain, "SELECT strftime('%Y-%m-%d %H:%M:%f', 'now'), "+call)
			now, err := time.Parse("2006-01-02 15:04:05.000", got[0][len("TEXT:"):])
			if err != nil {
				t.Fatal(err)
			}
			now = now.Add(time.Duration(time.Now().Nanosecond() % int(time.Millisecond))) // sub-millisecond noise
			rw.setEnv(sqlcheck.Env{Time: now})
			want := got[1]
			if r := row(t, rc, "SELECT "+call)[0]; r != want {
				t.Errorf("%s at %s: rewritten %s, built-in %s", call, now.Format(time.RFC3339Nano), r, want)
			}
		}
	}
}

// TestNowFormatting compares the rewritten functions at many instants (every
// millisecond of a few seconds, and instants across the years) with the
// built-ins given the same instant as a julian day number, which SQLite
// formats by the same path as 'now'.
func TestNowFormatting(t *testing.T) {
	plain := plainConn(t)
	rc, rw := rewrittenConn(t)
	var instants []time.Time
	base := time.Date(2024, 2, 29, 23, 59, 57, 0, time.UTC)
	for ms := 0; ms < 3100; ms += 7 {
		instants = append(instants, base.Add(time.Duration(ms)*time.Millisecond+999*time.Microsecond))
	}
	for y := 1; y <= 9999; y += 97 {
		instants = append(instants, time.Date(y, time.Month(1+y%12), 1+y%28, y%24, y%60, y%60, (y%1000)*int(time.Millisecond), time.UTC))
	}
	instants = append(instants, time.Time{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC))
	calls := []string{"datetime(%s, 'subsec')", "time(%s, 'subsec')", "date(%s)", "strftime('%%f %%S %%s %%J', %s)", "julianday(%s)", "unixepoch(%s, 'subsec')", "datetime(%s)", "unixepoch(%s)"}
	for _, at := range instants {
		rw.setEnv(sqlcheck.Env{Time: at})
		ms := at.UnixMilli() + 210866760000000 // julian day 2440587.5 is the Unix epoch
		jd := float64(ms) / 86400000.0
		if int64(jd*86400000.0+0.5) != ms {
			t.Fatalf("%v: julian day %v does not round-trip", at, jd)
		}
		for _, c := range calls {
			got := row(t, rc, "SELECT "+fmt.Sprintf(c, "'now'"))[0]
			want := row(t, plain, "SELECT "+fmt.Sprintf(c, "?1"), jd)[0]
			if got != want {
				t.Errorf("%s at %s: rewritten %s, built-in %s", c, at.Format(time.RFC3339Nano), got, want)
			}
		}
	}
}

// TestClockWordMatchesBuiltin: the rewritten functions treat exactly the
// time values as 'now' that make SQLite's built-in read the clock.
func TestClockWordMatchesBuiltin(t *testing.T) {
	plain := plainConn(t)
	values := []any{"now", "NOW", "nOw", " now", "now ", "\tnow", "now\n", "now()", "+now", "nowx", "no", "n0w",
		"subsec", "SUBSEC", "subsecond", "SubSecond", "subsecs", " subsec", "ſubsec", "noẇ", "now\x00later", "subsec\x00",
		"today", "current_timestamp", "localtime", "'now'", "", "0", "now-1", "2024-01-01", "12:00",
		[]byte("now"), []byte("NOW\x00junk"), []byte("subsecond"), []byte{0x6e, 0x6f, 0x77, 0xff}, 1.5, int64(7)}
	for _, v := range values {
		var a helperArg
		switch v := v.(type) {
		case string:
			a = helperArg{typ: sqlite3.TEXT, b: []byte(v)}
		case []byte:
			a = helperArg{typ: sqlite3.BLOB, b: v}
		case float64:
			a = helperArg{typ: sqlite3.FLOAT, f: v}
		case int64:
			a = helperArg{typ: sqlite3.INTEGER, i: v}
		}
		// The built-in reads the clock iff its result moves with it.
		first := row(t, plain, "SELECT julianday(?1), unixepoch(?1, 'subsec')", v)
		time.Sleep(3 * time.Millisecond)
		second := row(t, plain, "SELECT julianday(?1), unixepoch(?1, 'subsec')", v)
		reads := first[0] != second[0]
		if got := clockWord(a) != ""; got != reads {
			t.Errorf("%q: rewritten reads it as the clock: %v, SQLite: %v (%v then %v)", v, got, reads, first, second)
		}
	}
}

// The rewritten functions give the same results whatever the process's
// time zone, and refuse the modifiers that would read it.
func TestRewrittenIgnoreTimeZone(t *testing.T) {
	rc, rw := rewrittenConn(t)
	rw.setEnv(sqlcheck.Env{Time: time.Date(2024, 3, 31, 1, 30, 0, 0, time.UTC)})
	q := "SELECT " + strings.Join(nowCalls[:40], ", ")
	local := time.Local
	defer func() { time.Local = local }()
	time.Local = time.UTC
	utc := row(t, rc, q)
	for _, tz := range []string{"Pacific/Chatham", "America/St_Johns", "Asia/Kathmandu", "Europe/Berlin"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			loc = time.FixedZone(tz, 13*3600+45*60)
		}
		time.Local = loc
		if got := row(t, rc, q); strings.Join(got, "|") != strings.Join(utc, "|") {
			t.Errorf("TZ %s: %v, UTC: %v", tz, got, utc)
		}
		for _, m := range []string{"localtime", "utc", "LOCALTIME", " Utc"} {
			st, _, err := rc.Prepare("SELECT datetime('2024-01-01 12:00', ?1)")
			if err != nil {
				t.Fatal(err)
			}
			st.BindText(1, m)
			st.Step()
			if err := st.Err(); err == nil || !strings.Contains(err.Error(), gateMessage) {
				t.Errorf("modifier %q in TZ %s: %v, want the gate's refusal", m, tz, err)
			}
			st.Close()
		}
	}
}

// random() and randomblob() follow the documented derivation exactly.
func TestRandomDerivation(t *testing.T) {
	rc, rw := rewrittenConn(t)
	env := sqlcheck.NewEnv(time.Unix(1700000000, 0), []byte("hash"), 7)
	rw.setEnv(env)
	got := row(t, rc, "SELECT random(), hex(randomblob(11)), random(), hex(randomblob(0))")
	rw.setEnv(env)
	again := row(t, rc, "SELECT random(), hex(randomblob(11)), random(), hex(randomblob(0))")
	if strings.Join(got, "|") != strings.Join(again, "|") {
		t.Fatalf("same env, different values: %v, %v", got, again)
	}
	g := newRewriter().rng
	g.Seed(env.Seed)
	r1 := int64(g.Uint64())
	if r1 < 0 {
		r1 = -(r1 & math.MaxInt64)
	}
	var blob []byte
	for range 2 {
		v := g.Uint64()
		for i := range 8 {
			blob = append(blob, byte(v>>(8*i)))
		}
	}
	r2 := int64(g.Uint64())
	if r2 < 0 {
		r2 = -(r2 & math.MaxInt64)
	}
	b3 := byte(g.Uint64())
	want := []string{fmt.Sprintf("INTEGER:%d", r1), fmt.Sprintf("TEXT:%X", blob[:11]), fmt.Sprintf("INTEGER:%d", r2), fmt.Sprintf("TEXT:%02X", b3)}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("random values %v, want %v", got, want)
	}
}
