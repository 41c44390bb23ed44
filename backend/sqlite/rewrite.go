package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/sqlcheck"
)

// Clock and random functions, rewritten.
//
// SQLite's random(), randomblob() and its date/time functions reading 'now'
// differ between nodes. On the writer (and on the private connections that
// vet DDL) relchain registers functions of the same names and arities, which
// SQLite resolves before its built-ins. They read the tx's sqlcheck.Env, set
// by Block.Savepoint:
//
//   - random() and randomblob(N) draw from math/rand/v2's ChaCha8 seeded with
//     env.Seed, re-seeded at every Savepoint. random() is the next Uint64 as
//     int64, mapped like SQLite's own to -(r & MaxInt64) when negative (never
//     MinInt64); randomblob(N) is N bytes (N < 1 means 1, N above
//     SQLITE_LIMIT_LENGTH is SQLITE_TOOBIG, as in SQLite) taken from the
//     little-endian encodings of as many Uint64 as needed, the last one
//     truncated. ChaCha8's output stream is specified (C2SP chacha8rand), so
//     it does not change with the Go version.
//   - 'now' is env.Time, to the millisecond (truncated, as SQLite's own clock
//     is). date, time, datetime, julianday, unixepoch, strftime and timediff
//     replace a time value that SQLite would read as the clock ('now',
//     'subsec', 'subsecond' in any ASCII case, or the missing time value of
//     date() and friends and of strftime(F)) by env.Time as the text
//     'YYYY-MM-DD HH:MM:SS.SSS' (for 'subsec'/'subsecond', with a trailing
//     'subsec' modifier), then evaluate SQLite's own built-in with those
//     arguments on a private connection. current_date, current_time and
//     current_timestamp are date(now), time(now) and datetime(now). Every
//     other argument is passed through unchanged, with its type, so the
//     result is exactly what the built-in returns at that instant.
//   - The 'localtime' and 'utc' modifiers read the node's time zone (SQLite's
//     localtime_r is Go's time.Local in this build): any modifier containing
//     either word fails the statement with ClassPermission.
//
// The functions are registered without SQLITE_DETERMINISTIC (SQLite then
// never evaluates them while preparing a statement, and refuses them itself
// in index expressions, generated columns and ALTER TABLE ADD COLUMN
// defaults) and with SQLITE_INNOCUOUS (trusted_schema is OFF, and they are
// allowed in DEFAULTs, views and triggers). See DESIGN.md, "Rewritten
// clock and random functions".

// rewrittenFunctions are the built-ins the writer replaces: the gate accepts
// them in statements, DEFAULTs, view and trigger bodies, and refuses them in
// CHECK constraints, generated columns and indexes.
var rewrittenFunctions = setOf("random", "randomblob", "date", "time", "datetime", "julianday",
	"unixepoch", "strftime", "timediff", "current_date", "current_time", "current_timestamp")

// rewriter holds one connection's rewritten functions and the environment
// they read.
type rewriter struct {
	mu     sync.Mutex
	now    string    // env.Time as 'YYYY-MM-DD HH:MM:SS.SSS'
	nowAt  time.Time // the instant now renders
	rng    *rand.ChaCha8
	memo   map[string]string // zero-argument results for the current env
	helper *sqlite3.Conn     // evaluates SQLite's built-ins
	stmts  map[string]*sqlite3.Stmt
}

func newRewriter() *rewriter {
	r := &rewriter{rng: rand.NewChaCha8([32]byte{}), memo: make(map[string]string), stmts: make(map[string]*sqlite3.Stmt)}
	r.setEnv(sqlcheck.Env{})
	return r
}

// setEnv makes the functions read env from now on; the random generator
// starts over from env.Seed.
func (r *rewriter) setEnv(env sqlcheck.Env) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !env.Time.Equal(r.nowAt) || r.now == "" {
		// Every tx of a block has the block's time: render it once.
		r.now, r.nowAt = nowText(env.Time), env.Time
	}
	r.rng.Seed(env.Seed)
	clear(r.memo)
}

// nowText renders t as SQLite's 'now' would see it: UTC, milliseconds
// truncated.
func nowText(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d.%03d", t.Year(), int(t.Month()), t.Day(),
		t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/int(time.Millisecond))
}

func (r *rewriter) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.stmts {
		s.Close()
	}
	clear(r.stmts)
	if r.helper != nil {
		r.helper.Close()
		r.helper = nil
	}
}

// register installs the rewritten functions on c.
func (r *rewriter) register(c *sqlite3.Conn) error {
	const flags = sqlite3.INNOCUOUS
	fns := []struct {
		name string
		n    int
		fn   sqlite3.ScalarFunction
	}{
		{"random", 0, r.random},
		{"randomblob", 1, r.randomblob},
		{"date", -1, r.timeFunc("date")},
		{"time", -1, r.timeFunc("time")},
		{"datetime", -1, r.timeFunc("datetime")},
		{"julianday", -1, r.timeFunc("julianday")},
		{"unixepoch", -1, r.timeFunc("unixepoch")},
		{"strftime", -1, r.timeFunc("strftime")},
		{"timediff", 2, r.timeFunc("timediff")},
		{"current_date", 0, r.timeFunc("current_date")},
		{"current_time", 0, r.timeFunc("current_time")},
		{"current_timestamp", 0, r.timeFunc("current_timestamp")},
	}
	for _, f := range fns {
		if err := c.CreateFunction(f.name, f.n, flags, f.fn); err != nil {
			return fmt.Errorf("register %s(): %w", f.name, err)
		}
	}
	return nil
}

func (r *rewriter) random(ctx sqlite3.Context, _ ...sqlite3.Value) {
	r.mu.Lock()
	v := int64(r.rng.Uint64())
	r.mu.Unlock()
	if v < 0 {
		v = -(v & math.MaxInt64) // as SQLite: never MinInt64, so abs(random()) works
	}
	ctx.ResultInt64(v)
}

func (r *rewriter) randomblob(ctx sqlite3.Context, arg ...sqlite3.Value) {
	n := arg[0].Int64()
	if n < 1 {
		n = 1
	}
	if n > int64(ctx.Conn().Limit(sqlite3.LIMIT_LENGTH, -1)) {
		ctx.ResultError(sqlite3.TOOBIG)
		return
	}
	buf := make([]byte, (n+7)/8*8)
	r.mu.Lock()
	for i := 0; i < len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], r.rng.Uint64())
	}
	r.mu.Unlock()
	ctx.ResultBlob(buf[:n])
}

// errTimeZone is the refusal of a modifier that reads the node's time zone.
var errTimeZone = errors.New("refused by relchain's determinism and safety gate: the 'localtime' and 'utc' modifiers depend on the node's time zone")

// helperArg is one argument for the built-in, with its SQLite type.
type helperArg struct {
	typ sqlite3.Datatype
	i   int64
	f   float64
	b   []byte
}

func (r *rewriter) timeFunc(name string) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, arg ...sqlite3.Value) { r.evalTime(ctx, name, arg) }
}

// evalTime evaluates SQLite's built-in name with 'now' replaced by the env's
// time (see the comment at the top of this file).
func (r *rewriter) evalTime(ctx sqlite3.Context, name string, arg []sqlite3.Value) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(arg) == 0 {
		if v, ok := r.memo[name]; ok {
			ctx.ResultText(v)
			return
		}
	}
	builtin := builtinOf(name)
	if builtin == "strftime" && len(arg) == 0 {
		ctx.ResultNull() // as SQLite: strftime() without a format is NULL
		return
	}
	args, err := r.withClock(builtin, copyArgs(arg))
	if err != nil {
		ctx.ResultError(err)
		return
	}
	stmt, err := r.helperStmt(builtin, len(args))
	if err != nil {
		ctx.ResultError(err)
		return
	}
	defer stmt.Reset()
	if err := bindArgs(stmt, args); err != nil {
		ctx.ResultError(err)
		return
	}
	memo := ""
	if len(arg) == 0 {
		memo = name // zero-argument results are the same for the whole env
	}
	r.result(ctx, stmt, memo)
}

// builtinOf is the SQLite built-in a rewritten function evaluates:
// current_date, current_time and current_timestamp are date(now),
// time(now) and datetime(now).
func builtinOf(name string) string {
	switch name {
	case "current_date":
		return "date"
	case "current_time":
		return "time"
	case "current_timestamp":
		return "datetime"
	}
	return name
}

// copyArgs copies the function's arguments, with their types, out of
// SQLite's memory (with room for withClock to append two).
func copyArgs(arg []sqlite3.Value) []helperArg {
	args := make([]helperArg, len(arg), len(arg)+2)
	for i, v := range arg {
		a := helperArg{typ: v.Type()}
		switch a.typ {
		case sqlite3.INTEGER:
			a.i = v.Int64()
		case sqlite3.FLOAT:
			a.f = v.Float()
		case sqlite3.TEXT:
			a.b = append([]byte{}, v.RawText()...)
		case sqlite3.BLOB:
			a.b = append([]byte{}, v.RawBlob()...)
		}
		args[i] = a
	}
	return args
}

// withClock returns the arguments of builtin with every time value SQLite
// would read as the clock replaced by the env's time, or errTimeZone when a
// modifier reads the node's time zone. strftime's format comes first and
// must be present.
func (r *rewriter) withClock(builtin string, args []helperArg) ([]helperArg, error) {
	nowArg := helperArg{typ: sqlite3.TEXT, b: []byte(r.now)}
	if builtin == "timediff" {
		// Two time values, no modifiers.
		for i := range args {
			if clockWord(args[i]) != "" {
				args[i] = nowArg
			}
		}
		return args, nil
	}
	first := 0 // the index of the time value; the modifiers follow it
	if builtin == "strftime" {
		first = 1
	}
	subsec := false
	if len(args) == first {
		args = append(args, nowArg) // no time value means 'now'
	} else {
		switch clockWord(args[first]) {
		case "now":
			args[first] = nowArg
		case "subsec":
			args[first] = nowArg
			subsec = true
		}
	}
	for _, m := range args[first+1:] {
		if (m.typ == sqlite3.TEXT || m.typ == sqlite3.BLOB) && readsTimeZone(m.b) {
			return nil, errTimeZone
		}
	}
	if subsec {
		// useSubsec is only read when the result is formatted, and no
		// modifier but 'utc' (refused) clears it: appending it keeps every
		// other modifier at its position (SQLite checks some positions).
		args = append(args, helperArg{typ: sqlite3.TEXT, b: []byte("subsec")})
	}
	return args, nil
}

// bindArgs binds args, with their types, to the helper statement.
func bindArgs(stmt *sqlite3.Stmt, args []helperArg) error {
	for i, a := range args {
		var err error
		switch a.typ {
		case sqlite3.INTEGER:
			err = stmt.BindInt64(i+1, a.i)
		case sqlite3.FLOAT:
			err = stmt.BindFloat(i+1, a.f)
		case sqlite3.TEXT:
			err = stmt.BindRawText(i+1, a.b)
		case sqlite3.BLOB:
			err = stmt.BindBlob(i+1, a.b)
		default:
			err = stmt.BindNull(i + 1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// result runs the bound helper statement and returns its value, with its
// type, as the function's result; a text result is memoized under memo
// unless memo is "".
func (r *rewriter) result(ctx sqlite3.Context, stmt *sqlite3.Stmt, memo string) {
	if !stmt.Step() {
		if err := stmt.Err(); err != nil {
			ctx.ResultError(err)
		} else {
			ctx.ResultNull()
		}
		return
	}
	switch stmt.ColumnType(0) {
	case sqlite3.INTEGER:
		ctx.ResultInt64(stmt.ColumnInt64(0))
	case sqlite3.FLOAT:
		ctx.ResultFloat(stmt.ColumnFloat(0))
	case sqlite3.TEXT:
		v := stmt.ColumnText(0)
		if memo != "" {
			r.memo[memo] = v
		}
		ctx.ResultText(v)
	case sqlite3.BLOB:
		ctx.ResultBlob(stmt.ColumnBlob(0, nil))
	default:
		ctx.ResultNull()
	}
}

// helperStmt returns the prepared "SELECT name(?1, ..., ?n)" on the private
// connection, which has SQLite's built-ins only and never reads the clock
// (every 'now' was replaced).
func (r *rewriter) helperStmt(name string, n int) (*sqlite3.Stmt, error) {
	key := name + "/" + strconv.Itoa(n)
	if s, ok := r.stmts[key]; ok {
		return s, nil
	}
	if r.helper == nil {
		c, err := sqlite3.OpenFlags(":memory:", sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_MEMORY|sqlite3.OPEN_NOMUTEX)
		if err != nil {
			return nil, err
		}
		r.helper = c
	}
	ph := make([]string, n)
	for i := range ph {
		ph[i] = "?" + strconv.Itoa(i+1)
	}
	s, _, err := r.helper.Prepare("SELECT " + name + "(" + strings.Join(ph, ", ") + ")")
	if err != nil {
		return nil, err
	}
	r.stmts[key] = s
	return s, nil
}

// clockWord reports whether SQLite would read a as the clock: "now" for
// 'now', "subsec" for 'subsec' and 'subsecond', "" otherwise. SQLite reads a
// text or blob time value as a C string (up to the first NUL) and compares
// it ASCII case-insensitively; numbers are never the clock.
func clockWord(a helperArg) string {
	if a.typ != sqlite3.TEXT && a.typ != sqlite3.BLOB {
		return ""
	}
	s := a.b
	if i := indexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	switch {
	case asciiEqualFold(s, "now"):
		return "now"
	case asciiEqualFold(s, "subsec"), asciiEqualFold(s, "subsecond"):
		return "subsec"
	}
	return ""
}

// readsTimeZone reports modifiers that convert with the node's time zone.
// It over-approximates SQLite's match (any occurrence, any ASCII case).
func readsTimeZone(m []byte) bool {
	s := asciiLower(m)
	return strings.Contains(s, "localtime") || strings.Contains(s, "utc")
}

func indexByte(s []byte, c byte) int {
	for i, b := range s {
		if b == c {
			return i
		}
	}
	return -1
}

// asciiLower lower-cases ASCII letters only, as SQLite does.
func asciiLower(s []byte) string {
	out := make([]byte, len(s))
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return string(out)
}

func asciiEqualFold(s []byte, t string) bool {
	return len(s) == len(t) && asciiLower(s) == t
}
