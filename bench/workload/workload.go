package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// Dialects a workload speaks: the backend dialect names.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
	MySQL    = "mysql"
)

// Dialects lists every dialect, in the order the CLI names them.
var Dialects = []string{SQLite, Postgres, MySQL}

// WL is one wl-transaction: the statements that carry it. A write
// wl-transaction executes atomically (one savepoint): if any statement
// fails, all of it is rolled back and the others of its bc-transaction are
// unaffected. A read-only one is served by the query path, one statement
// at a time, without consensus.
type WL struct {
	// Kind names the transaction type, e.g. "SendPayment", "NewOrder".
	Kind       string
	Statements []txn.Statement
	// ReadOnly: every statement is a SELECT, answered by the query path.
	ReadOnly bool
	// MayFail: the workload expects this wl-transaction to fail and roll
	// back by design (TPC-C's 1 % NewOrder with an unused item number), so
	// its failure does not count as an error of the run.
	MayFail bool
}

// Table is one table of a workload's state and the columns that order
// its rows totally (its primary key), for digests and comparisons.
type Table struct {
	Name string
	Key  []string
}

// Applied is a write wl-transaction as executed, with its outcome: Code is
// api.CodeOK when it committed, and Results then holds one entry per
// statement.
type Applied struct {
	WL      WL
	Code    uint32
	Results []api.StatementResult
}

// Querier runs one read-only statement and returns its rows. Values are
// normalized as by Normalize.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) ([][]any, error)
}

// Generator yields one client's wl-transactions. It is deterministic: the
// same workload, dialect, seed and client give the same stream.
type Generator interface {
	Next() WL
}

// Workload is a benchmark workload.
type Workload interface {
	// Name is the workload's name as the CLI spells it ("smallbank", ...).
	Name() string
	// Setup returns the schema and the initial state as a sequence of
	// bc-transactions, each a list of statements, to run in order, each
	// after the previous one committed. Each fits the chain's limits
	// (MaxSetupStatements statements, MaxSetupBytes bytes encoded). The
	// SQL must be deterministic without relchain's rewriting (no clock, no
	// random()), so the raw baseline reaches exactly the same rows.
	Setup(dialect string) ([][]txn.Statement, error)
	// Tables lists the tables of the workload's state.
	Tables() []Table
	// Generator returns client's stream of wl-transactions for seed.
	Generator(dialect string, seed uint64, client int) Generator
	// Check verifies the workload's consistency conditions on a database
	// reached through q after a run in which applied were the write
	// wl-transactions executed (in commit order, failed ones included).
	Check(ctx context.Context, dialect string, q Querier, applied []Applied) error
}

// Limits a Setup bc-transaction must respect (the chain's defaults leave
// room for the envelope).
const (
	MaxSetupStatements = 256
	MaxSetupBytes      = 900 << 10
)

// Placeholder returns the n-th (1-based) positional placeholder of dialect:
// $n where package dialect numbers parameters $n (PostgreSQL), ?n
// otherwise (SQLite). MySQL has only anonymous '?'
// placeholders, one argument per occurrence; its statements are written
// with the numbered ?n (what Placeholder returns for it) and passed
// through Positional, which numbers them away.
func Placeholder(dialect string, n int) string { return placeholder(dialect, n) }

// Normalize maps a value read from any source (the query path's JSON, a
// backend's rows, a database driver) to one of nil, int64, float64,
// string, bool: json.Number becomes int64 when it is an integer, else
// float64; []byte becomes string; other integer and float types widen.
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, int64, float64, string, bool:
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case []byte:
		return string(x)
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case uint32:
		return int64(x)
	case float32:
		return float64(x)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// Int reads an integer value (see Normalize); a float must be integral
// and a string must spell an integer.
func Int(v any) (int64, error) {
	switch x := Normalize(v).(type) {
	case int64:
		return x, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		return 0, fmt.Errorf("%v is not an integer", x)
	case string:
		i, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not an integer", x)
		}
		return i, nil
	case nil:
		return 0, fmt.Errorf("NULL is not an integer")
	}
	return 0, fmt.Errorf("%v (%T) is not an integer", v, v)
}

// Float reads a numeric value (see Normalize); a string must spell a
// number (PostgreSQL's numeric arrives as text).
func Float(v any) (float64, error) {
	switch x := Normalize(v).(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a number", x)
		}
		return f, nil
	case nil:
		return 0, fmt.Errorf("NULL is not a number")
	}
	return 0, fmt.Errorf("%v (%T) is not a number", v, v)
}
