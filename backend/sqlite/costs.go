package sqlite

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// Costed functions: work inside a function counts in the work limit.
//
// The work limit (fuel) counts SQLite's virtual machine instructions, but
// one instruction can call a function that does megabytes of work: printf
// with a width of 10^7, replace over a 10 MB string, hex of a large BLOB.
// On the writer, relchain registers functions of the same names and
// arities as those built-ins (SQLite resolves application functions before
// its own), which charge the bytes they read and write to the running
// statement's fuel, one unit per costUnitBytes (a unit is also what 1,000
// instructions cost), and evaluate SQLite's own built-in with the same
// arguments on a private connection that has only the built-ins and the
// same length limit. The result is therefore exactly the built-in's, and
// the charge (plus callBytes per call, the helper's overhead) is a function
// of the argument and result lengths only: the same on every node. Functions whose work is the product of two lengths
// (replace, instr, trim with a character set, like, glob) are charged that
// product. A statement whose charges exceed its fuel fails with the work
// limit (ClassResource, 54000) at the call that overdrew it, before the
// built-in runs.
//
// They are registered SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, like the
// built-ins, so they keep working in indexes, CHECK constraints, generated
// columns, views and triggers. Outside a client statement (no fuel) they
// charge nothing.
//
// Not covered (each bounded by MaxValueBytes per call; see DESIGN.md): the
// || operator (an instruction, not a function), reading a large stored
// value, quote() (the capture triggers call it for every changed column),
// substr, length, the JSON functions and randomblob.

// costUnitBytes is how many bytes read or written cost one unit of fuel.
const costUnitBytes = 1024

// callBytes is charged for every call on top of its bytes: evaluating a
// built-in on the helper costs about 2-3 µs even for a short text, a few
// hundred instructions' worth, so 8 calls cost one unit. (TPC-C's load
// makes about 120,000 such calls in one statement: 15,000 units.)
const callBytes = costUnitBytes / 8

// costedFunction is a built-in the writer wraps: its name, the arities to
// register (-1: any), and whether its work is the product of the first two
// arguments' lengths.
type costedFunction struct {
	name    string
	arities []int
	product bool
}

var costedFunctions = []costedFunction{
	{"printf", []int{-1}, false},
	{"format", []int{-1}, false},
	{"char", []int{-1}, false},
	{"concat", []int{-1}, false},
	{"concat_ws", []int{-1}, false},
	{"hex", []int{1}, false},
	{"unhex", []int{1, 2}, false},
	{"upper", []int{1}, false},
	{"lower", []int{1}, false},
	{"unistr", []int{1}, false},
	{"replace", []int{3}, true},
	{"instr", []int{2}, true},
	{"trim", []int{1, 2}, true},
	{"ltrim", []int{1, 2}, true},
	{"rtrim", []int{1, 2}, true},
	{"like", []int{2, 3}, true},
	{"glob", []int{2}, true},
}

// costs evaluates the writer's costed functions and charges them to the
// fuel of the statement running (nil when none). Used under the writer's
// lock only.
type costs struct {
	mu     sync.Mutex
	fuel   *fuel
	rest   uint64        // bytes charged since the last whole unit
	helper *sqlite3.Conn // SQLite's built-ins, same length limit
	stmts  map[string]*sqlite3.Stmt
}

func newCosts() *costs { return &costs{stmts: make(map[string]*sqlite3.Stmt)} }

// register installs the costed functions (and zeroblob) on c.
func (k *costs) register(c *sqlite3.Conn) error {
	const flags = sqlite3.DETERMINISTIC | sqlite3.INNOCUOUS
	for _, f := range costedFunctions {
		for _, n := range f.arities {
			if err := c.CreateFunction(f.name, n, flags, k.wrap(f)); err != nil {
				return err
			}
		}
	}
	return c.CreateFunction("zeroblob", 1, flags, k.zeroblob)
}

func (k *costs) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.stmts {
		closeQuietly(s.Close)
	}
	clear(k.stmts)
	if k.helper != nil {
		closeQuietly(k.helper.Close)
		k.helper = nil
	}
}

// charge spends the units for n bytes of work; false when the statement's
// fuel ran out (the caller fails the call with the work limit).
// Bytes below a unit carry over to the statement's next charge (rest).
func (k *costs) charge(n uint64) bool {
	if k.fuel == nil {
		return true
	}
	n = min(n, uint64(1)<<62) + k.rest
	k.rest = n % costUnitBytes
	return k.fuel.charge(int64(n / costUnitBytes))
}

// use makes the costed functions charge f (nil: nothing) from now on.
func (k *costs) use(f *fuel) { k.fuel, k.rest = f, 0 }

// argBytes is what SQLite's built-ins read of v: the bytes of a text or
// BLOB (a zeroblob counts as its length), a small constant for numbers.
func argBytes(v sqlite3.Value) uint64 {
	switch v.Type() {
	case sqlite3.TEXT, sqlite3.BLOB:
		return uint64(len(v.RawBlob()))
	}
	return 8
}

// zeroblob(N) is SQLite's (a BLOB of N zeros, N < 0 meaning 0, TOOBIG past
// the length limit), charged N bytes.
func (k *costs) zeroblob(ctx sqlite3.Context, arg ...sqlite3.Value) {
	n := max(arg[0].Int64(), 0)
	if !k.charge(uint64(n) + callBytes) {
		ctx.ResultError(errWorkLimit)
		return
	}
	ctx.ResultZeroBlob(n)
}

// wrap returns f's costed implementation: charge the arguments (and their
// product, for f.product), evaluate the built-in, charge the result.
func (k *costs) wrap(f costedFunction) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, arg ...sqlite3.Value) {
		in := uint64(callBytes)
		for _, a := range arg {
			in += argBytes(a)
		}
		if f.product && len(arg) >= 2 {
			hi, lo := bits.Mul64(argBytes(arg[0]), argBytes(arg[1]))
			if hi != 0 {
				lo = 1 << 62
			}
			in += lo
		}
		if !k.charge(in) {
			ctx.ResultError(errWorkLimit)
			return
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		out, err := k.builtin(ctx, f.name, arg)
		if errors.Is(err, errOutOfMemory) {
			ctx.ResultError(sqlite3.NOMEM) // a node fault, not the message
			return
		}
		if err != nil {
			ctx.ResultError(err)
			return
		}
		if !k.charge(out) {
			ctx.ResultError(errWorkLimit)
		}
	}
}

// builtin evaluates SQLite's own name(arg...) on the helper connection and
// sets it as ctx's result; it returns the result's length in bytes.
func (k *costs) builtin(ctx sqlite3.Context, name string, arg []sqlite3.Value) (n uint64, err error) {
	defer recoverOOM(&err)
	st, err := k.helperStmt(name, len(arg))
	if err != nil {
		return 0, err
	}
	defer st.Reset()
	for i, a := range arg {
		if err := bindValue(st, i+1, a); err != nil {
			return 0, err
		}
	}
	if !st.Step() {
		if err := st.Err(); err != nil {
			return 0, err
		}
		ctx.ResultNull()
		return 0, nil
	}
	switch st.ColumnType(0) {
	case sqlite3.INTEGER:
		ctx.ResultInt64(st.ColumnInt64(0))
		return 8, nil
	case sqlite3.FLOAT:
		ctx.ResultFloat(st.ColumnFloat(0))
		return 8, nil
	case sqlite3.TEXT:
		v := st.ColumnRawText(0)
		ctx.ResultRawText(v)
		return uint64(len(v)), nil
	case sqlite3.BLOB:
		v := st.ColumnRawBlob(0)
		ctx.ResultBlob(v)
		return uint64(len(v)), nil
	}
	ctx.ResultNull()
	return 0, nil
}

// bindValue binds v to st's parameter i with its type and bytes.
func bindValue(st *sqlite3.Stmt, i int, v sqlite3.Value) error {
	switch v.Type() {
	case sqlite3.INTEGER:
		return st.BindInt64(i, v.Int64())
	case sqlite3.FLOAT:
		return st.BindFloat(i, v.Float())
	case sqlite3.TEXT:
		return st.BindRawText(i, v.RawText())
	case sqlite3.BLOB:
		b := v.RawBlob()
		if len(b) == 0 {
			return st.BindZeroBlob(i, 0)
		}
		return st.BindBlob(i, b)
	}
	return st.BindNull(i)
}

// helperStmt returns the prepared "SELECT name(?1, ..., ?n)" on the helper
// connection, opening it on first use.
func (k *costs) helperStmt(name string, n int) (*sqlite3.Stmt, error) {
	key := name + "/" + strconv.Itoa(n)
	if s, ok := k.stmts[key]; ok {
		return s, nil
	}
	if k.helper == nil {
		c, err := sqlite3.OpenFlags(":memory:", sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_MEMORY|sqlite3.OPEN_NOMUTEX)
		if err != nil {
			return nil, err
		}
		limitConn(c)
		for _, p := range pragmas {
			if err := c.Exec(p); err != nil {
				c.Close()
				return nil, err
			}
		}
		k.helper = c
	}
	ph := make([]string, n)
	for i := range ph {
		ph[i] = "?" + strconv.Itoa(i+1)
	}
	s, _, err := k.helper.Prepare("SELECT " + name + "(" + strings.Join(ph, ", ") + ")")
	if err != nil {
		return nil, err
	}
	k.stmts[key] = s
	return s, nil
}
