package workloadtest

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

const chainID = "workloadtest"

// Chain is one in-process validator: an executor over a real backend.
type Chain struct {
	Dialect string
	t       testing.TB
	be      backend.Backend
	ex      *app.Executor
	key     ed25519.PrivateKey
	nonce   uint64
	height  int64
}

// Main runs a workload package's tests and then stops the private
// PostgreSQL and MariaDB servers pgtest and mysqltest may have started:
//
//	func TestMain(m *testing.M) { workloadtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// NewChain returns a chain on a fresh database of dialect ("sqlite",
// "postgres" or "mysql"); it is closed when the test ends.
func NewChain(t testing.TB, dialect string) *Chain {
	t.Helper()
	ctx := context.Background()
	be := openBackend(t, dialect)
	p := app.DefaultParams()
	p.Backend = dialect
	p.MaxStatements = txn.MaxStatements
	ex, err := app.NewExecutor(ctx, be, chainID, p)
	if err != nil {
		t.Fatalf("new executor: %v", err)
	}
	seed := sha256.Sum256([]byte(t.Name()))
	return &Chain{Dialect: dialect, t: t, be: be, ex: ex, key: ed25519.NewKeyFromSeed(seed[:])}
}

// Executor is the chain's executor.
func (c *Chain) Executor() *app.Executor { return c.ex }

// openBackend opens a backend of dialect through backend/registry on a
// fresh database (SQLite in t.TempDir(), PostgreSQL from pgtest, MySQL
// from mysqltest), closed when the test ends.
func openBackend(t testing.TB, dialect string) backend.Backend {
	t.Helper()
	d, err := registry.Lookup(dialect)
	if err != nil {
		t.Fatal(err)
	}
	var dsn string
	switch dialect {
	case workload.Postgres:
		dsn = pgtest.DSN(t)
	case workload.MySQL:
		dsn = mysqltest.DSN(t)
	default:
		dsn = filepath.Join(t.TempDir(), "relchain.db")
	}
	be, err := d.Open(context.Background(), registry.Spec{DSN: dsn})
	if err != nil {
		t.Fatalf("open %s: %v", dialect, err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}

// Tx is one bc-transaction's outcome.
type Tx struct {
	Code    uint32
	Log     string
	Results []api.StatementResult
}

// Block executes one block of bc-transactions, each a list of statements,
// and commits it.
func (c *Chain) Block(bcs ...[]txn.Statement) []Tx {
	c.t.Helper()
	ctx := context.Background()
	raws := make([][]byte, len(bcs))
	for i, stmts := range bcs {
		c.nonce++
		tx := &txn.Tx{ChainID: chainID, Nonce: c.nonce, Statements: stmts}
		tx.Sign(c.key)
		raws[i] = txn.Encode(tx)
	}
	c.height++
	var h [8]byte
	binary.BigEndian.PutUint64(h[:], uint64(c.height))
	hash := sha256.Sum256(h[:])
	info := app.BlockInfo{Height: c.height, Time: time.Unix(1_700_000_000+c.height, 0).UTC(), Hash: hash[:]}
	results, _, err := c.ex.FinalizeBlock(ctx, info, raws)
	if err != nil {
		c.t.Fatalf("finalize block %d: %v", c.height, err)
	}
	if _, err := c.ex.Commit(ctx); err != nil {
		c.t.Fatalf("commit block %d: %v", c.height, err)
	}
	out := make([]Tx, len(results))
	for i, r := range results {
		out[i] = Tx{Code: r.Code, Log: r.Log}
		if r.Code == api.CodeOK {
			var d api.ExecData
			dec := json.NewDecoder(strings.NewReader(string(r.Data)))
			dec.UseNumber()
			if err := dec.Decode(&d); err != nil {
				c.t.Fatalf("block %d tx %d: decode result data: %v", c.height, i, err)
			}
			out[i].Results = d.Results
		}
	}
	return out
}

// Setup runs the workload's Setup, each bc-transaction in its own block,
// and fails the test if one fails.
func (c *Chain) Setup(w workload.Workload) {
	c.t.Helper()
	bcs, err := w.Setup(c.Dialect)
	if err != nil {
		c.t.Fatalf("%s setup: %v", w.Name(), err)
	}
	for i, stmts := range bcs {
		if n := len(txn.Encode(&txn.Tx{ChainID: chainID, Statements: stmts})); n > workload.MaxSetupBytes || len(stmts) > workload.MaxSetupStatements {
			c.t.Fatalf("%s setup bc-transaction %d: %d statements, %d bytes: over the limits", w.Name(), i, len(stmts), n)
		}
		r := c.Block(stmts)[0]
		if r.Code != api.CodeOK {
			c.t.Fatalf("%s setup bc-transaction %d failed (code %d): %s", w.Name(), i, r.Code, r.Log)
		}
	}
}

// Query implements workload.Querier on the committed state.
func (c *Chain) Query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	rows, _, err := c.be.Query(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	for _, r := range rows.Rows {
		for i, v := range r {
			r[i] = workload.Normalize(v)
		}
	}
	return rows.Rows, nil
}

// Run draws n wl-transactions from the workload's generators (clients of
// them, round robin), executes the writes perBlock to a block (one
// bc-transaction each) and the reads through Query, and returns the writes
// as applied. A write that fails without MayFail, or a read that fails,
// fails the test.
func (c *Chain) Run(w workload.Workload, seed uint64, clients, n, perBlock int) []workload.Applied {
	c.t.Helper()
	ctx := context.Background()
	gens := make([]workload.Generator, clients)
	for i := range gens {
		gens[i] = w.Generator(c.Dialect, seed, i)
	}
	var applied []workload.Applied
	var pending []workload.WL
	flush := func() {
		if len(pending) == 0 {
			return
		}
		bcs := make([][]txn.Statement, len(pending))
		for i, wl := range pending {
			bcs[i] = wl.Statements
		}
		for i, r := range c.Block(bcs...) {
			wl := pending[i]
			if r.Code != api.CodeOK && !wl.MayFail {
				c.t.Fatalf("%s %s failed (code %d): %s", w.Name(), wl.Kind, r.Code, r.Log)
			}
			applied = append(applied, workload.Applied{WL: wl, Code: r.Code, Results: r.Results})
		}
		pending = pending[:0]
	}
	for i := 0; i < n; i++ {
		wl := gens[i%clients].Next()
		if wl.ReadOnly {
			for j, st := range wl.Statements {
				args := make([]any, len(st.Args))
				for k, a := range st.Args {
					args[k] = a.Value()
				}
				if _, err := c.Query(ctx, st.SQL, args...); err != nil {
					c.t.Fatalf("%s %s statement %d: %v", w.Name(), wl.Kind, j+1, err)
				}
			}
			continue
		}
		pending = append(pending, wl)
		if len(pending) == perBlock {
			flush()
		}
	}
	flush()
	return applied
}

// Check runs the workload's consistency check and fails the test on error.
func (c *Chain) Check(w workload.Workload, applied []workload.Applied) {
	c.t.Helper()
	if err := w.Check(context.Background(), c.Dialect, c, applied); err != nil {
		c.t.Fatalf("%s consistency on %s: %v", w.Name(), c.Dialect, err)
	}
}

// String names the chain in messages.
func (c *Chain) String() string {
	return fmt.Sprintf("in-process %s chain at height %d", c.Dialect, c.height)
}
