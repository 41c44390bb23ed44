package app_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

const chainID = "test-chain"

// store is one database that a test can close and reopen, as a node
// process that crashes and restarts would.
type store struct {
	dialect string
	open    func(t *testing.T) backend.Backend
}

func stores(t *testing.T) []store {
	return []store{
		{"sqlite", func() func(t *testing.T) backend.Backend {
			var path string
			return func(t *testing.T) backend.Backend {
				if path == "" {
					path = filepath.Join(t.TempDir(), "relchain.db")
				}
				b, err := sqlite.Open(context.Background(), path)
				if err != nil {
					t.Fatalf("open sqlite: %v", err)
				}
				return b
			}
		}()},
		{"postgres", func() func(t *testing.T) backend.Backend {
			var dsn string
			return func(t *testing.T) backend.Backend {
				if dsn == "" {
					dsn = pgtest.DSN(t)
				}
				b, err := postgres.Open(context.Background(), dsn)
				if err != nil {
					t.Fatalf("open postgres: %v", err)
				}
				return b
			}
		}()},
	}
}

// forEachBackend runs fn once per backend, each with fresh databases.
func forEachBackend(t *testing.T, fn func(t *testing.T, newStore func() store)) {
	for _, s := range []string{"sqlite", "postgres"} {
		t.Run(s, func(t *testing.T) {
			fn(t, func() store { return storeNamed(t, s) })
		})
	}
}

// ph returns the n-th placeholder in the dialect.
func ph(dialect string, n int) string {
	switch dialect {
	case "postgres":
		return fmt.Sprintf("$%d", n)
	case "mysql":
		return "?"
	}
	return fmt.Sprintf("?%d", n)
}

type fixture struct {
	t       *testing.T
	dialect string
	be      backend.Backend
	ex      *app.Executor
	key     ed25519.PrivateKey
	nonce   uint64
}

func mustNewFixture(t *testing.T, s store, p app.Params) *fixture {
	t.Helper()
	return mustNewFixtureWith(t, s, p)
}

// mustNewFixtureWith is mustNewFixture with executor options.
func mustNewFixtureWith(t *testing.T, s store, p app.Params, opts ...app.ExecutorOption) *fixture {
	t.Helper()
	be := s.open(t)
	t.Cleanup(func() { be.Close() })
	p.Backend = s.dialect
	ex, err := app.NewExecutor(context.Background(), be, chainID, p, opts...)
	if err != nil {
		t.Fatalf("new executor: %v", err)
	}
	_, key, _ := ed25519.GenerateKey(nil)
	return &fixture{t: t, dialect: s.dialect, be: be, ex: ex, key: key}
}

func (f *fixture) tx(stmts ...txn.Statement) []byte {
	f.nonce++
	tx := &txn.Tx{ChainID: chainID, Nonce: f.nonce, Statements: stmts}
	tx.Sign(f.key)
	return txn.Encode(tx)
}

// blockInfo is the consensus data of block h in these tests: a fixed time
// (one second per height) and a hash derived from the height.
func blockInfo(h int64) app.BlockInfo {
	sum := sha256.Sum256([]byte(fmt.Sprint("block ", h)))
	return app.BlockInfo{Height: h, Time: time.Date(2026, 11, 22, 8, 0, int(h), 123456789, time.UTC), Hash: sum[:]}
}

func stmt(sql string, args ...txn.Arg) txn.Statement { return txn.Statement{SQL: sql, Args: args} }

// block finalizes and commits one block and returns the results.
func (f *fixture) block(txs ...[]byte) ([]app.TxResult, []byte) {
	f.t.Helper()
	res, hash := f.finalize(txs...)
	if _, err := f.ex.Commit(context.Background()); err != nil {
		f.t.Fatalf("commit: %v", err)
	}
	return res, hash
}

func (f *fixture) finalize(txs ...[]byte) ([]app.TxResult, []byte) {
	f.t.Helper()
	h := f.ex.State().Height + 1
	res, hash, err := f.ex.FinalizeBlock(context.Background(), blockInfo(h), txs)
	if err != nil {
		f.t.Fatalf("finalize block %d: %v", h, err)
	}
	return res, hash
}

func (f *fixture) ids(table string) []int64 {
	f.t.Helper()
	rows, _, err := f.be.Query(context.Background(), "SELECT id FROM "+table+" ORDER BY id", nil)
	if err != nil {
		f.t.Fatalf("query: %v", err)
	}
	var ids []int64
	for _, r := range rows.Rows {
		ids = append(ids, r[0].(int64))
	}
	return ids
}

func codes(rs []app.TxResult) []uint32 {
	out := make([]uint32, len(rs))
	for i, r := range rs {
		out[i] = r.Code
	}
	return out
}

func (f *fixture) insert(id int64) []byte {
	return f.tx(stmt("INSERT INTO acct (id, bal) VALUES ("+ph(f.dialect, 1)+", 100)", txn.Int(id)))
}

func (f *fixture) createAcct() {
	f.t.Helper()
	res, _ := f.block(f.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)")))
	if res[0].Code != api.CodeOK {
		f.t.Fatalf("create table: %d %s", res[0].Code, res[0].Log)
	}
}

func TestFailingTxIsRolledBackAlone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		dup := f.tx(
			stmt("INSERT INTO acct (id, bal) VALUES (3, 1)"), // would succeed alone
			stmt("INSERT INTO acct (id, bal) VALUES (1, 1)"), // duplicate key
		)
		res, _ := f.block(f.insert(1), dup, f.insert(2))
		if got := codes(res); fmt.Sprint(got) != fmt.Sprint([]uint32{api.CodeOK, api.CodeExecFailed, api.CodeOK}) {
			t.Fatalf("codes = %v, want [0 10 0]; logs: %q %q %q", got, res[0].Log, res[1].Log, res[2].Log)
		}
		var fd api.FailureData
		if err := json.Unmarshal(res[1].Data, &fd); err != nil {
			t.Fatalf("failure data %q: %v", res[1].Data, err)
		}
		if fd.Statement != 2 || fd.Class != string(backend.ClassConstraint) || fd.SQLState != "23505" {
			t.Errorf("failure data = %+v, want statement 2, class constraint, sqlstate 23505", fd)
		}
		if got := f.ids("acct"); fmt.Sprint(got) != "[1 2]" {
			t.Errorf("rows after block = %v, want [1 2] (row 3 of the failed tx must be rolled back)", got)
		}
		var ok api.ExecData
		if err := json.Unmarshal(res[0].Data, &ok); err != nil || len(ok.Results) != 1 || ok.Results[0].RowsAffected != 1 {
			t.Errorf("success data = %s (%v), want one statement with rows_affected 1", res[0].Data, err)
		}
	})
}

func TestBlockAtomicRollsBackWholeBlock(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		p := app.DefaultParams()
		p.BlockAtomic = true
		f := mustNewFixture(t, newStore(), p)
		f.createAcct()
		res, _ := f.block(f.insert(1), f.insert(1), f.insert(2))
		if got := codes(res); fmt.Sprint(got) != fmt.Sprint([]uint32{api.CodeBlockAborted, api.CodeExecFailed, api.CodeBlockAborted}) {
			t.Fatalf("codes = %v, want [11 10 11]", got)
		}
		if got := f.ids("acct"); len(got) != 0 {
			t.Errorf("rows after aborted block = %v, want none", got)
		}
		if h := f.ex.State().Height; h != 2 {
			t.Errorf("height after aborted block = %d, want 2 (the block is still committed, empty)", h)
		}
		// The next block applies normally.
		res, _ = f.block(f.insert(5))
		if res[0].Code != api.CodeOK || fmt.Sprint(f.ids("acct")) != "[5]" {
			t.Errorf("block after abort: code %d, rows %v", res[0].Code, f.ids("acct"))
		}
	})
}

func TestReplayAfterCrashBetweenFinalizeAndCommit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		s := newStore()
		f := mustNewFixture(t, s, app.DefaultParams())
		ref := mustNewFixture(t, newStore(), app.DefaultParams()) // a node that never crashes
		ref.key = f.key
		create := f.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"),
			stmt("CREATE TABLE counter (n BIGINT NOT NULL)"), stmt("INSERT INTO counter VALUES (0)"))
		f.block(create)
		ref.block(create)
		write := f.tx(stmt("INSERT INTO acct (id, bal) VALUES (7, 70)"), stmt("UPDATE counter SET n = n + 1"))
		_, hashBefore := f.finalize(write)

		// Crash: the process dies before Commit; the db-transaction is lost.
		if err := f.be.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		be := s.open(t)
		t.Cleanup(func() { be.Close() })
		ex, err := app.NewExecutor(context.Background(), be, chainID, app.Params{MaxTxBytes: 1 << 20, Backend: s.dialect})
		if err != nil {
			t.Fatal(err)
		}
		if st := ex.State(); st.Height != 1 {
			t.Fatalf("height after crash = %d, want 1 (block 2 was never committed)", st.Height)
		}
		f.be, f.ex = be, ex
		// CometBFT's handshake replays block 2.
		_, hashReplay := f.block(write)
		_, hashRef := ref.block(write)
		if string(hashReplay) != string(hashBefore) || string(hashReplay) != string(hashRef) {
			t.Fatalf("AppHash: first attempt %X, replay %X, never-crashed node %X: must be equal", hashBefore, hashReplay, hashRef)
		}
		rows, _, err := be.Query(context.Background(), "SELECT n, (SELECT count(*) FROM acct) FROM counter", nil)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(rows.Rows) != "[[1 1]]" {
			t.Errorf("counter and row count after replay = %v, want [[1 1]] (applied exactly once)", rows.Rows)
		}
		// After a restart the committed state is reported, and finalizing a
		// block that is already committed is refused.
		if _, _, err := f.ex.FinalizeBlock(context.Background(), blockInfo(2), [][]byte{write}); err == nil {
			t.Errorf("finalizing committed height 2 again succeeded; must be refused")
		}
	})
}

func TestQueryDuringFinalizeSeesOnlyCommittedState(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		a := app.New(f.ex, log.NewNopLogger())
		query := func() api.QueryResponse {
			t.Helper()
			body, _ := json.Marshal(api.QueryRequest{SQL: "SELECT id FROM acct ORDER BY id"})
			r, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.QueryPath, Data: body})
			if err != nil || r.Code != api.CodeOK {
				t.Fatalf("query: %v %d %s", err, r.GetCode(), r.GetLog())
			}
			var out api.QueryResponse
			if err := json.Unmarshal(r.Value, &out); err != nil {
				t.Fatal(err)
			}
			return out
		}
		f.finalize(f.insert(1))
		if q := query(); len(q.Rows) != 0 || q.Height != 1 {
			t.Fatalf("during FinalizeBlock: rows %v at height %d, want none at height 1", q.Rows, q.Height)
		}
		if _, err := f.ex.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		if q := query(); len(q.Rows) != 1 || q.Height != 2 {
			t.Fatalf("after Commit: rows %v at height %d, want one row at height 2", q.Rows, q.Height)
		}
	})
}

func TestCheckTxRejectsBadEnvelopes(t *testing.T) {
	s := stores(t)[0]
	f := mustNewFixture(t, s, app.Params{MaxTxBytes: 4096, Backend: "sqlite"})
	a := app.New(f.ex, log.NewNopLogger())
	good := f.tx(stmt("SELECT 1"))
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-1] ^= 1
	wrongChain := &txn.Tx{ChainID: "other-chain", Nonce: 1, Statements: []txn.Statement{stmt("SELECT 1")}}
	wrongChain.Sign(f.key)
	empty := &txn.Tx{ChainID: chainID, Nonce: 1}
	empty.Sign(f.key)
	cases := []struct {
		name string
		tx   []byte
		code uint32
		msg  string
	}{
		{"random bytes", []byte("\x00\x01garbage"), api.CodeMalformed, "bad magic"},
		{"truncated", good[:len(good)-10], api.CodeMalformed, "malformed"},
		{"trailing bytes", append(append([]byte(nil), good...), 0), api.CodeMalformed, "trailing"},
		{"bad signature", flipped, api.CodeBadSignature, "signature"},
		{"wrong chain", txn.Encode(wrongChain), api.CodeWrongChain, "other-chain"},
		{"no statements", txn.Encode(empty), api.CodeNoStatements, "no statements"},
		{"too large", f.tx(stmt("SELECT '" + strings.Repeat("x", 5000) + "'")), api.CodeTooLarge, "max_tx_bytes"},
		{"syntax", f.tx(stmt("SELEC 1")), api.CodeSyntax, "syntax"},
		{"two statements", f.tx(stmt("SELECT 1; SELECT 2")), api.CodeSyntax, "more than one statement"},
		{"good", good, api.CodeOK, ""},
		{"missing table is not a CheckTx error", f.tx(stmt("INSERT INTO nowhere VALUES (1)")), api.CodeOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: c.tx})
			if err != nil {
				t.Fatalf("CheckTx error: %v", err)
			}
			if r.Code != c.code || !strings.Contains(r.Log, c.msg) {
				t.Errorf("code %d log %q, want code %d and a log containing %q", r.Code, r.Log, c.code, c.msg)
			}
		})
	}
	// The same bytes in a block fail identically (a statement that does not
	// parse with CheckTx's code: the block analyzes it the same way), a
	// missing table fails when it executes, and the block still applies.
	res, _ := f.block(flipped, f.tx(stmt("SELEC 1")), f.tx(stmt("INSERT INTO nowhere VALUES (1)")), good)
	want := []uint32{api.CodeBadSignature, api.CodeSyntax, api.CodeExecFailed, api.CodeOK}
	if got := fmt.Sprint(codes(res)); got != fmt.Sprint(want) {
		t.Errorf("codes in block = %s, want %v", got, want)
	}
}

func TestTxExecutesAtMostOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		s := newStore()
		f := mustNewFixture(t, s, app.DefaultParams())
		f.createAcct()
		first := f.insert(1)
		failing := f.insert(1) // duplicate key: fails, but consumes its nonce
		res, _ := f.block(first, failing)
		if got := fmt.Sprint(codes(res)); got != fmt.Sprint([]uint32{api.CodeOK, api.CodeExecFailed}) {
			t.Fatalf("codes = %s, want [0 10]", got)
		}
		// The same bytes in a later block, and a new tx reusing a nonce
		// within the same block, are refused.
		sameNonce := func() []byte { f.nonce--; return f.insert(2) }()
		res, _ = f.block(first, failing, f.insert(3), sameNonce)
		if got := fmt.Sprint(codes(res)); got != fmt.Sprint([]uint32{api.CodeReplayed, api.CodeReplayed, api.CodeOK, api.CodeReplayed}) {
			t.Fatalf("codes = %s, want [8 8 0 8]; logs %q %q", got, res[0].Log, res[3].Log)
		}
		if got := fmt.Sprint(f.ids("acct")); got != "[1 3]" {
			t.Fatalf("rows = %s, want [1 3]", got)
		}
		// After a restart (the mempool cache is gone) CheckTx still refuses.
		if err := f.be.Close(); err != nil {
			t.Fatal(err)
		}
		be := s.open(t)
		t.Cleanup(func() { be.Close() })
		ex, err := app.NewExecutor(context.Background(), be, chainID, app.Params{MaxTxBytes: 1 << 20, Backend: s.dialect})
		if err != nil {
			t.Fatal(err)
		}
		a := app.New(ex, log.NewNopLogger())
		for _, raw := range [][]byte{first, failing} {
			for _, typ := range []abci.CheckTxType{abci.CheckTxType_New, abci.CheckTxType_Recheck} {
				r, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw, Type: typ})
				if err != nil || r.Code != api.CodeReplayed || !strings.Contains(r.Log, "already executed") {
					t.Fatalf("CheckTx (%v) of an executed tx after restart: code %d log %q err %v; want code 8", typ, r.GetCode(), r.GetLog(), err)
				}
			}
		}
	})
}

func TestBlockAtomicAbortStillConsumesNonces(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		p := app.DefaultParams()
		p.BlockAtomic = true
		f := mustNewFixture(t, newStore(), p)
		f.createAcct()
		ok, bad := f.insert(1), f.tx(stmt("INSERT INTO nowhere VALUES (1)"))
		f.block(ok, bad)
		res, _ := f.block(ok)
		if res[0].Code != api.CodeReplayed {
			t.Fatalf("a tx rolled back with its block was executed again: code %d", res[0].Code)
		}
	})
}

func TestTooManyStatementsIsRejected(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.Params{MaxTxBytes: 1 << 20, MaxStatements: 3, Backend: "sqlite"})
	many := f.tx(stmt("SELECT 1"), stmt("SELECT 2"), stmt("SELECT 3"), stmt("SELECT 4"))
	_, rej := f.ex.Check(context.Background(), many)
	if rej == nil || rej.Code != api.CodeTooLarge || !strings.Contains(rej.Reason, "max_statements") {
		t.Fatalf("4 statements with max_statements 3: %v, want code %d naming max_statements", rej, api.CodeTooLarge)
	}
	res, _ := f.block(many)
	if res[0].Code != api.CodeTooLarge {
		t.Fatalf("in a block: code %d, want %d", res[0].Code, api.CodeTooLarge)
	}
}
