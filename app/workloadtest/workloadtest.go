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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/txn"
)

// ChainID is the chain id of every Chain's bc-transactions.
const ChainID = "workloadtest"

// Chain is one in-process validator: an executor over a real backend.
type Chain struct {
	// Dialect is the SQL the chain speaks (its genesis' sql_dialect, or
	// the storage's own): the dialect a workload writes its statements in.
	Dialect string
	// Storage is the database the chain stores its state in (the genesis'
	// backend); it differs from Dialect on a translated chain.
	Storage string
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
// "postgres" or "mysql") speaking that database's own SQL; it is closed
// when the test ends.
func NewChain(t testing.TB, dialect string) *Chain {
	t.Helper()
	return NewChainSpeaking(t, dialect, "")
}

// NewChainSpeaking returns a chain on a fresh database of storage whose
// genesis fixes the SQL dialect sql (docs/dialects.md): "" or storage
// itself is storage's own SQL, another one a dialect storage translates
// (PostgreSQL's SQL on SQLite), at the translator version this binary
// implements (backend/registry.GenesisSQLDialect). It is closed when the
// test ends.
func NewChainSpeaking(t testing.TB, storage, sql string) *Chain {
	t.Helper()
	return NewChainAt(t, storage, sql, 0)
}

// NewChainAt is NewChainSpeaking whose genesis starts at protocol
// version proto (app.Params.ProtocolVersion; 0: version 1, as chains
// made before the field began, and as NewChainSpeaking's do).
func NewChainAt(t testing.TB, storage, sql string, proto uint64) *Chain {
	t.Helper()
	ctx := context.Background()
	sqlDialect, version, err := registry.GenesisSQLDialect(storage, sql)
	if err != nil {
		t.Fatalf("workloadtest: %v", err)
	}
	spec := registry.Spec{SQLDialect: sqlDialect, SQLDialectVersion: version}
	be := openBackend(t, storage, spec)
	p := app.DefaultParams()
	p.Backend = storage
	p.SQLDialect, p.SQLDialectVersion = sqlDialect, version
	p.MaxStatements = txn.MaxStatements
	p.ProtocolVersion = proto
	ex, err := app.NewExecutor(ctx, be, ChainID, p)
	if err != nil {
		t.Fatalf("new executor: %v", err)
	}
	seed := sha256.Sum256([]byte(t.Name()))
	speaks := storage
	if sqlDialect != "" {
		speaks = sqlDialect
	}
	return &Chain{Dialect: speaks, Storage: storage, t: t, be: be, ex: ex, key: ed25519.NewKeyFromSeed(seed[:])}
}

// NewMixedChains returns one chain per storage of one network over
// several engines (app.Params.Backends: storages, speaking PostgreSQL's
// SQL) at protocol version proto (5 or later): the validators of one
// network, each on a fresh database of its own, a storage without the
// translation judging statements on its shadow gate (app.WithShadow).
func NewMixedChains(t testing.TB, proto uint64, storages ...string) []*Chain {
	t.Helper()
	ctx := context.Background()
	p := app.DefaultParams()
	p.Backend, p.Backends = "", slices.Compact(slices.Sorted(slices.Values(storages)))
	p.SQLDialect, p.MaxStatements, p.ProtocolVersion = dialect.SQLPostgres, txn.MaxStatements, proto
	var err error
	if p.SQLDialectVersion, p.SQLDialectVersions, err = registry.GenesisSQLDialectVersions(p.Backends, dialect.SQLPostgres); err != nil {
		t.Fatalf("workloadtest: %v", err)
	}
	shadow := app.WithShadow(func(ctx context.Context) (backend.Backend, error) {
		d, err := registry.Lookup("sqlite")
		if err != nil {
			return nil, err
		}
		return d.Open(ctx, registry.Spec{DSN: filepath.Join(t.TempDir(), "shadow.db"), SQLDialect: dialect.SQLPostgres, SQLDialectVersion: p.TranslatorVersion("sqlite")})
	})
	chains := make([]*Chain, len(storages))
	for i, storage := range storages {
		sql, version, _ := registry.GenesisSQLDialect(storage, dialect.SQLPostgres)
		be := openBackend(t, storage, registry.Spec{SQLDialect: sql, SQLDialectVersion: version})
		ex, err := app.NewExecutor(ctx, be, ChainID, p, shadow, app.WithSchemaJudges(registry.SchemaJudges(p.Engines())))
		if err != nil {
			t.Fatalf("new executor on %s: %v", storage, err)
		}
		t.Cleanup(func() { _ = ex.Close(context.Background()) })
		seed := sha256.Sum256([]byte(t.Name()))
		chains[i] = &Chain{Dialect: dialect.SQLPostgres, Storage: storage, t: t, be: be, ex: ex, key: ed25519.NewKeyFromSeed(seed[:])}
	}
	return chains
}

// Executor is the chain's executor.
func (c *Chain) Executor() *app.Executor { return c.ex }

// openBackend opens a backend of dialect through backend/registry on a
// fresh database (SQLite in t.TempDir(), PostgreSQL from pgtest, MySQL
// from mysqltest) with spec's SQL dialect, closed when the test ends.
func openBackend(t testing.TB, dialect string, spec registry.Spec) backend.Backend {
	t.Helper()
	d, err := registry.Lookup(dialect)
	if err != nil {
		t.Fatal(err)
	}
	dsn := filepath.Join(t.TempDir(), "relchain.db")
	if d.Server {
		dsn = serverDSN(t, dialect)
	}
	spec.DSN = dsn
	be, err := d.Open(context.Background(), spec)
	if err != nil {
		t.Fatalf("open %s: %v", dialect, err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}

// testServers give a fresh database on each server database's private
// test server (its own test-server package, which backend/registry may not
// link): the one table here that names databases.
var testServers = map[string]func(testing.TB) string{"postgres": pgtest.DSN, "mysql": mysqltest.DSN}

// serverDSN is a fresh database on the private test server of dialect, a
// database server.
func serverDSN(t testing.TB, dialect string) string {
	dsn, ok := testServers[dialect]
	if !ok {
		t.Fatalf("workloadtest: no private test server for backend %q", dialect)
	}
	return dsn(t)
}

// Tx is one bc-transaction's outcome.
type Tx struct {
	Code    uint32
	Log     string
	Results []api.StatementResult
	// Data is the tx's result data as the executor wrote it.
	Data []byte
	// Info is the result's info (api.ExecInfo of a failure on a network
	// over several engines), which is not part of consensus.
	Info []byte
}

// Block executes one block of bc-transactions, each a list of statements,
// and commits it.
func (c *Chain) Block(bcs ...[]txn.Statement) []Tx {
	c.t.Helper()
	ctx := context.Background()
	raws := make([][]byte, len(bcs))
	for i, stmts := range bcs {
		c.nonce++
		tx := &txn.Tx{ChainID: ChainID, Nonce: c.nonce, Statements: stmts}
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
		out[i] = Tx{Code: r.Code, Log: r.Log, Data: r.Data, Info: r.Info}
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

// Query runs one read-only statement on the committed state and returns
// its rows as the backend gives them.
func (c *Chain) Query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	rows, _, err := c.be.Query(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	return rows.Rows, nil
}

// String names the chain in messages.
func (c *Chain) String() string {
	if c.Storage != c.Dialect {
		return fmt.Sprintf("in-process %s-dialect chain on %s at height %d", c.Dialect, c.Storage, c.height)
	}
	return fmt.Sprintf("in-process %s chain at height %d", c.Dialect, c.height)
}
