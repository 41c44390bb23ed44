package app_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/internal/tcprelay"
	"github.com/relchain/relchain/txn"
)

// faultBackend is a real backend whose blocks fire a database fault (the
// fire function: a real pg_terminate_backend or KILL CONNECTION on the
// server, a real server stop) at one armed point of the next block:
//
//	"statement"  before the block's second statement
//	"digest"     before the block's state digest (the seal)
//	"commit"     before the block's Commit sends anything
//	"ack-lost"   after the block's Commit returned (the COMMIT applied): the
//	             connections are killed and Commit reports the database
//	             unavailable, as when the acknowledgement is lost with them
type faultBackend struct {
	backend.Backend
	fire func(t *testing.T) int
	t    *testing.T

	mu    sync.Mutex
	armed string
	fired int // faults fired
	hit   int // server sessions the faults ended
}

func (b *faultBackend) arm(point string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = point
}

// trigger fires the fault if point is armed.
func (b *faultBackend) trigger(point string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.armed != point {
		return false
	}
	b.armed = ""
	b.fired++
	b.hit += b.fire(b.t)
	return true
}

func (b *faultBackend) Begin(ctx context.Context) (backend.Block, error) {
	blk, err := b.Backend.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &faultBlock{Block: blk, b: b}, nil
}

type faultBlock struct {
	backend.Block
	b     *faultBackend
	execs int
}

func (k *faultBlock) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	k.execs++
	if k.execs == 2 {
		k.b.trigger("statement")
	}
	return k.Block.Exec(ctx, sql, args)
}

func (k *faultBlock) StateDigest(ctx context.Context) ([]byte, error) {
	k.b.trigger("digest")
	return k.Block.StateDigest(ctx)
}

func (k *faultBlock) Commit(ctx context.Context, s backend.State) error {
	k.b.trigger("commit")
	if err := k.Block.Commit(ctx, s); err != nil {
		return err
	}
	if k.b.trigger("ack-lost") {
		return backend.Unavailable(errors.New("test: the COMMIT's acknowledgement was lost with the connection"))
	}
	return nil
}

// faultDB opens the backends of one dialect: fresh databases, and a way
// to end the node's server sessions.
type faultDB struct {
	dialect string
	open    func(t *testing.T) (backend.Backend, func(t *testing.T) int)
}

func faultDBs() []faultDB {
	return []faultDB{
		{"postgres", func(t *testing.T) (backend.Backend, func(t *testing.T) int) {
			dsn := pgtest.DSN(t)
			be, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { be.Close() })
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			return be, pgTerminator(pgtest.ServerDSN(t), cfg.Database)
		}},
		{"mysql", func(t *testing.T) (backend.Backend, func(t *testing.T) int) {
			dsn := mysqltest.DSN(t)
			be, err := mysql.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { be.Close() })
			cfg, err := gomysql.ParseDSN(dsn)
			if err != nil {
				t.Fatal(err)
			}
			return be, mysqlKiller(mysqltest.ServerDSN(t), cfg.DBName)
		}},
	}
}

// pgTerminator returns a function that terminates, as the superuser of
// admin, every session of database db (the node's writer and readers)
// with pg_terminate_backend, waiting until they are gone, and returns how
// many writer sessions it ended.
func pgTerminator(admin, db string) func(t *testing.T) int {
	return func(t *testing.T) int {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Fatalf("connect as superuser: %v", err)
		}
		defer conn.Close(ctx)
		// The sessions are listed first and terminated one by one: a
		// single statement could evaluate pg_terminate_backend before the
		// filters and end other databases' sessions on a shared server.
		rows, err := conn.Query(ctx, `SELECT pid, application_name FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, db)
		if err != nil {
			t.Fatalf("list sessions: %v", err)
		}
		type session struct {
			pid  int32
			name string
		}
		var sessions []session
		for rows.Next() {
			var s session
			if err := rows.Scan(&s.pid, &s.name); err != nil {
				t.Fatal(err)
			}
			sessions = append(sessions, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		writers := 0
		for _, s := range sessions {
			var ok bool
			if err := conn.QueryRow(ctx, `SELECT pg_terminate_backend($1, 10000)`, s.pid).Scan(&ok); err != nil {
				t.Fatalf("pg_terminate_backend(%d): %v", s.pid, err)
			}
			if ok && s.name == "relchain" {
				writers++
			}
		}
		return writers
	}
}

// mysqlKiller returns a function that kills, as the administrator of
// admin, every connection to database db (KILL CONNECTION) and returns
// how many it killed.
func mysqlKiller(admin, db string) func(t *testing.T) int {
	return func(t *testing.T) int {
		cfg, err := gomysql.ParseDSN(admin)
		if err != nil {
			t.Fatal(err)
		}
		connector, err := gomysql.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		adb := sql.OpenDB(connector)
		defer adb.Close()
		rows, err := adb.Query(`SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()`, db)
		if err != nil {
			t.Fatalf("list connections: %v", err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			if _, err := adb.Exec(fmt.Sprintf("KILL CONNECTION %d", id)); err != nil {
				t.Logf("kill connection %d: %v", id, err) // it may have ended meanwhile
			}
		}
		return len(ids)
	}
}

// faultWorkload is a chain's blocks: each a list of statement lists (one
// per bc-transaction). Block 3 is where the tests inject faults: its
// updates are not idempotent, so a block applied twice shows.
func faultWorkload() [][][]string {
	return [][][]string{
		{{"CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"}},
		{{"INSERT INTO acct (id, bal) VALUES (1, 100)"}, {"INSERT INTO acct (id, bal) VALUES (2, 200)"}, {"INSERT INTO acct (id, bal) VALUES (3, 300)"}},
		{
			{"UPDATE acct SET bal = bal + 10 WHERE id = 1"},
			{"INSERT INTO acct (id, bal) VALUES (4, 400)", "UPDATE acct SET bal = bal * 2 WHERE id >= 2"},
			{"INSERT INTO acct (id, bal) VALUES (1, 1)"}, // fails: duplicate key, a deterministic result
			{"UPDATE acct SET bal = bal - 1"},
		},
		{{"UPDATE acct SET bal = bal + 1000 WHERE id = 3"}},
	}
}

// faultBlock is the block of faultWorkload that the faults hit.
const faultedBlock = 3

// signedWorkload signs faultWorkload's txs once (the same bytes go to
// every executor).
func signedWorkload() [][][]byte {
	seed := sha256.Sum256([]byte("dbfault workload key"))
	key := ed25519.NewKeyFromSeed(seed[:])
	var nonce uint64
	var blocks [][][]byte
	for _, b := range faultWorkload() {
		var txs [][]byte
		for _, stmts := range b {
			nonce++
			tx := &txn.Tx{ChainID: chainID, Nonce: nonce}
			for _, s := range stmts {
				tx.Statements = append(tx.Statements, stmt(s))
			}
			tx.Sign(key)
			txs = append(txs, txn.Encode(tx))
		}
		blocks = append(blocks, txs)
	}
	return blocks
}

// blockOutcome is what a block gave: its results and AppHash.
type blockOutcome struct {
	results []app.TxResult
	appHash []byte
}

// runCleanly runs the workload on a fresh database of db without faults:
// the reference outcome of every block and the final rows.
func runCleanly(t *testing.T, db faultDB) ([]blockOutcome, string) {
	be, _ := db.open(t)
	ex := newFaultExecutor(t, be, db.dialect)
	var out []blockOutcome
	for i, txs := range signedWorkload() {
		h := int64(i + 1)
		res, hash, err := ex.FinalizeBlock(context.Background(), blockInfo(h), txs)
		if err != nil {
			t.Fatalf("reference block %d: %v", h, err)
		}
		if _, err := ex.Commit(context.Background()); err != nil {
			t.Fatalf("reference commit %d: %v", h, err)
		}
		out = append(out, blockOutcome{res, hash})
	}
	return out, acctRows(t, be)
}

func newFaultExecutor(t *testing.T, be backend.Backend, dialect string) *app.Executor {
	p := app.DefaultParams()
	p.Backend = dialect
	ex, err := app.NewExecutor(context.Background(), be, chainID, p)
	if err != nil {
		t.Fatalf("new executor: %v", err)
	}
	app.SetRetryBackoff(ex, 10*time.Millisecond, 200*time.Millisecond)
	return ex
}

// acctRows is the table's rows as text, read through the backend's read
// path (which must itself have recovered from the faults).
func acctRows(t *testing.T, be backend.Backend) string {
	t.Helper()
	rows, _, err := be.Query(context.Background(), "SELECT id, bal FROM acct ORDER BY id", nil)
	if err != nil {
		t.Fatalf("read acct: %v", err)
	}
	return fmt.Sprint(rows.Rows)
}

// checkOutcome compares block h's outcome with the reference run's.
func checkOutcome(t *testing.T, h int64, got, want blockOutcome) {
	t.Helper()
	if string(got.appHash) != string(want.appHash) {
		t.Fatalf("block %d: AppHash %X after the fault, %X without it", h, got.appHash, want.appHash)
	}
	if app.ResultsHash(got.results) != app.ResultsHash(want.results) {
		t.Fatalf("block %d: results %v after the fault, %v without it", h, codes(got.results), codes(want.results))
	}
}

// A validator's database sessions terminated at any point of a block (a
// statement, the seal, between FinalizeBlock and Commit, before the
// COMMIT, after it with the acknowledgement lost, during a proposal's
// early execution) no longer stop the node: the executor waits, runs the
// block again from the committed state on a new connection and commits
// it once; every block's results and AppHash equal those of a run without
// faults, and so do the rows.
func TestDatabaseSessionsTerminatedInABlockAreRetried(t *testing.T) {
	for _, db := range faultDBs() {
		t.Run(db.dialect, func(t *testing.T) {
			want, wantRows := runCleanly(t, db)
			if codes(want[faultedBlock-1].results)[2] != api.CodeExecFailed {
				t.Fatalf("the workload's duplicate insert did not fail: %v", codes(want[faultedBlock-1].results))
			}
			for _, point := range []string{"statement", "digest", "between", "commit", "ack-lost", "speculate"} {
				t.Run(point, func(t *testing.T) {
					inner, kill := db.open(t)
					fb := &faultBackend{Backend: inner, fire: kill, t: t}
					ex := newFaultExecutor(t, fb, db.dialect)
					ctx := context.Background()
					for i, txs := range signedWorkload() {
						h := int64(i + 1)
						info := blockInfo(h)
						if h == faultedBlock {
							switch point {
							case "between":
							case "speculate":
								fb.arm("statement")
								if err := ex.Speculate(ctx, info, txs, time.Minute); err != nil {
									t.Fatalf("speculate block %d with its sessions terminated: %v", h, err)
								}
								if !ex.Speculated(info) {
									t.Fatalf("block %d: the speculation was not kept for FinalizeBlock", h)
								}
							default:
								fb.arm(point)
							}
						}
						res, hash, err := ex.FinalizeBlock(ctx, info, txs)
						if err != nil {
							t.Fatalf("finalize block %d (fault %s): %v", h, point, err)
						}
						if h == faultedBlock && point == "between" {
							fb.hit += kill(t)
							fb.fired++
						}
						st, err := ex.Commit(ctx)
						if err != nil {
							t.Fatalf("commit block %d (fault %s): %v", h, point, err)
						}
						if st.Height != h || string(st.AppHash) != string(hash) {
							t.Fatalf("commit block %d recorded height %d, AppHash %X; FinalizeBlock gave %X", h, st.Height, st.AppHash, hash)
						}
						checkOutcome(t, h, blockOutcome{res, hash}, want[i])
					}
					if fb.fired != 1 || fb.hit == 0 {
						t.Fatalf("the fault fired %d times and ended %d writer sessions: not confirmed", fb.fired, fb.hit)
					}
					s := ex.DatabaseStatus()
					if s.Retries == 0 || s.Unavailable || s.Outages != 1 {
						t.Fatalf("database status after the fault: %+v; want retries counted, one outage, available again", s)
					}
					wantApplied, wantRerun := int64(0), int64(0)
					switch point {
					case "ack-lost":
						wantApplied = 1
					case "between", "commit":
						wantRerun = 1
					}
					if s.LostCommitsApplied != wantApplied || s.LostCommitsRerun != wantRerun {
						t.Fatalf("lost COMMITs resolved as applied %d, run again %d; want %d, %d", s.LostCommitsApplied, s.LostCommitsRerun, wantApplied, wantRerun)
					}
					rec, err := inner.RecordedState(ctx)
					if err != nil || rec.Height != int64(len(want)) || string(rec.AppHash) != string(want[len(want)-1].appHash) {
						t.Fatalf("recorded state %d %X (%v), want the last block's", rec.Height, rec.AppHash, err)
					}
					// The read path recovers too: its sessions were
					// ended with the writer's, and are again now.
					kill(t)
					if got := acctRows(t, inner); got != wantRows {
						t.Fatalf("rows after the fault %s, without it %s (a block applied twice or lost?)", got, wantRows)
					}
				})
			}
		})
	}
}

// privateServer is a database server of the test's own, which it may
// stop and start again (never the shared test servers).
type privateServer struct {
	dialect string
	// start starts the server on dir (port 0: a free one) and returns its
	// port and a function that stops it.
	start func(t *testing.T, dir string, port int) (int, func())
	// node provisions a fresh database for a node on the server at port
	// and returns the backend's DSN.
	node func(t *testing.T, port int) string
	open func(t *testing.T, dsn string) backend.Backend
}

func privateServers() []privateServer {
	return []privateServer{
		{"postgres", func(t *testing.T, dir string, port int) (int, func()) {
			s, err := pgtest.Start(context.Background(), dir, pgtest.Options{Port: port})
			if err != nil {
				t.Fatalf("start a private PostgreSQL: %v", err)
			}
			return s.Port, func() {
				if err := s.Stop(); err != nil {
					t.Errorf("stop the private PostgreSQL: %v", err)
				}
			}
		}, func(t *testing.T, port int) string {
			dsn, err := pgsetup.Provision(context.Background(), fmt.Sprintf("postgres://postgres@127.0.0.1:%d/relchain_node?sslmode=disable", port))
			if err != nil {
				t.Fatalf("provision: %v", err)
			}
			return dsn
		}, func(t *testing.T, dsn string) backend.Backend {
			be, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			return be
		}},
		{"mysql", func(t *testing.T, dir string, port int) (int, func()) {
			s, err := mysqltest.Start(context.Background(), dir, mysqltest.Options{Port: port})
			if err != nil {
				t.Fatalf("start a private MariaDB: %v", err)
			}
			return s.Port, func() {
				if err := s.Stop(); err != nil {
					t.Errorf("stop the private MariaDB: %v", err)
				}
			}
		}, func(t *testing.T, port int) string {
			w, _, err := mysql.SetupAccounts(context.Background(), fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port), "relchain_node")
			if err != nil {
				t.Fatalf("accounts: %v", err)
			}
			return w
		}, func(t *testing.T, dsn string) backend.Backend {
			be, err := mysql.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			return be
		}},
	}
}

// waitUntil waits until cond holds, and reports false after limit.
func waitUntil(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// A validator's own database server stopped in the middle of a block and
// started again after a while: the block waits (FinalizeBlock does not
// return while the server is down), runs again once the server is back,
// and the chain goes on with the results, AppHash and rows of a run that
// saw no fault. The node reports the outage while it lasts.
//
// "crash" kills the server instead (PostgreSQL's postmaster SIGQUIT, an
// immediate shutdown without checkpoint; mariadbd SIGKILL): it recovers
// from its log when it starts again.
func TestDatabaseServerRestartedDuringABlockIsWaitedOut(t *testing.T) {
	for _, ps := range privateServers() {
		for _, crash := range []bool{false, true} {
			name := ps.dialect
			if crash {
				name += "/crash"
			}
			t.Run(name, func(t *testing.T) { serverRestartRun(t, ps, crash) })
		}
	}
}

// crashServer kills the private server of dialect running on dir and
// waits until its process is gone.
func crashServer(t *testing.T, dialect, dir string) {
	pidFile, sig := filepath.Join(dir, "data", "postmaster.pid"), syscall.SIGQUIT
	if dialect == "mysql" {
		pidFile, sig = filepath.Join(dir, "mariadbd.pid"), syscall.SIGKILL
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Errorf("read the server's pid: %v", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Errorf("pid file %s: %v", pidFile, err)
		return
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Errorf("kill %d: %v", pid, err)
		return
	}
	if !waitUntil(time.Minute, func() bool { return syscall.Kill(pid, 0) != nil }) {
		t.Errorf("server process %d still runs after %v", pid, sig)
	}
}

// serverRestartRun is one case of
// TestDatabaseServerRestartedDuringABlockIsWaitedOut.
func serverRestartRun(t *testing.T, ps privateServer, crash bool) {
	var ref faultDB
	for _, db := range faultDBs() {
		if db.dialect == ps.dialect {
			ref = db
		}
	}
	want, wantRows := runCleanly(t, ref)

	// Directly in the temporary directory: the server runs as its
	// own OS user, who cannot enter t.TempDir()'s parent.
	dir, err := os.MkdirTemp("", "relchain-dbfault-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var mu sync.Mutex // guards stop, stopped
	port, stop := ps.start(t, dir, 0)
	stopped := false
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stop()
		}
	})
	inner := ps.open(t, ps.node(t, port))
	t.Cleanup(func() { inner.Close() })
	var ex *app.Executor
	restarted := make(chan struct{})
	fb := &faultBackend{Backend: inner, t: t, fire: func(t *testing.T) int {
		mu.Lock()
		if crash {
			crashServer(t, ps.dialect, dir)
		} else {
			stop()
		}
		stopped = true
		mu.Unlock()
		go func() {
			defer close(restarted)
			// Start it again once the block has failed on the
			// stopped server and retried at least twice.
			if !waitUntil(time.Minute, func() bool {
				s := ex.DatabaseStatus()
				return s.Unavailable && s.Retries >= 2
			}) {
				t.Errorf("the executor did not retry against the stopped server: %+v", ex.DatabaseStatus())
			}
			mu.Lock()
			defer mu.Unlock()
			_, stop = ps.start(t, dir, port)
			stopped = false
		}()
		return 1
	}}
	ex = newFaultExecutor(t, fb, ps.dialect)
	ctx := context.Background()
	for i, txs := range signedWorkload() {
		h := int64(i + 1)
		if h == faultedBlock {
			fb.arm("statement")
		}
		res, hash, err := ex.FinalizeBlock(ctx, blockInfo(h), txs)
		if err != nil {
			t.Fatalf("finalize block %d: %v", h, err)
		}
		if _, err := ex.Commit(ctx); err != nil {
			t.Fatalf("commit block %d: %v", h, err)
		}
		checkOutcome(t, h, blockOutcome{res, hash}, want[i])
	}
	<-restarted
	if fb.fired != 1 {
		t.Fatalf("the server was stopped %d times", fb.fired)
	}
	if s := ex.DatabaseStatus(); s.Unavailable || s.Outages != 1 || s.Retries < 2 {
		t.Fatalf("database status after the restart: %+v", s)
	}
	if got := acctRows(t, inner); got != wantRows {
		t.Fatalf("rows after the restart %s, without it %s", got, wantRows)
	}
}

// commitCutter is a TCP relay between a backend and its server that, once
// armed, cuts the connection of the next client message holding "COMMIT"
// before the server's answer can come back: the client sees its
// connection end, the server gets the COMMIT and applies it. The server's
// side is half-closed after the COMMIT, so it reads the COMMIT before the
// end of its input, and its answer is drained.
//
// With hold set, the COMMIT's bytes are held back until another
// connection sends a message holding hold (the statement with which the
// client, reconnected, asks what the database recorded) and blocked (the
// server says the statement waits for a lock): the COMMIT is then still in
// flight while the client asks, which only a read that waits for the lost
// session's db-transaction answers right.
type commitCutter struct {
	ln      net.Listener
	target  string
	hold    []byte
	blocked func() (bool, error) // whether the server has the hold statement waiting for a lock

	mu      sync.Mutex
	armed   bool
	cuts    int
	held    chan struct{} // closed when the hold statement passed
	release sync.Once
	waited  error // nil once the hold statement was seen waiting for a lock
}

func startCommitCutter(t *testing.T, target, hold string, blocked func() (bool, error)) *commitCutter {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &commitCutter{ln: ln, target: target, held: make(chan struct{}), blocked: blocked, waited: errors.New("the hold statement never came")}
	if hold != "" {
		c.hold = []byte(hold)
	}
	t.Cleanup(func() { ln.Close() })
	go c.accept()
	return c
}

func (c *commitCutter) arm() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed = true
}

func (c *commitCutter) cut() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cuts
}

func (c *commitCutter) accept() {
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", c.target)
		if err != nil {
			client.Close()
			continue
		}
		go c.pipe(client, server.(*net.TCPConn))
	}
}

// pipe relays one connection pair.
func (c *commitCutter) pipe(client net.Conn, server *net.TCPConn) {
	var cutDone sync.WaitGroup
	cutDone.Add(1)
	var once sync.Once
	go func() { // server to client, until the cut; then drained
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				if _, werr := client.Write(buf[:n]); werr != nil {
					once.Do(cutDone.Done)
				}
			}
			if err != nil {
				client.Close()
				server.Close()
				once.Do(cutDone.Done)
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			msg := buf[:n]
			cut := false
			c.mu.Lock()
			if c.armed && bytes.Contains(msg, []byte("COMMIT")) {
				c.armed, cut = false, true
				c.cuts++
			}
			c.mu.Unlock()
			if cut {
				// The client's side ends first, so no answer reaches it.
				client.Close()
				if c.hold != nil {
					<-c.held
				}
			}
			if c.hold != nil && !cut && c.cut() > 0 && bytes.Contains(msg, c.hold) {
				if _, werr := server.Write(msg); werr != nil {
					break
				}
				// Once the statement waits for the lost session's
				// locks, let the held COMMIT go.
				waited := c.waitBlocked()
				c.mu.Lock()
				c.waited = waited
				c.mu.Unlock()
				c.release.Do(func() { close(c.held) })
				continue
			}
			if _, werr := server.Write(msg); werr != nil {
				break
			}
			if cut {
				_ = server.CloseWrite()
				cutDone.Wait()
				return
			}
		}
		if err != nil {
			break
		}
	}
	client.Close()
	server.Close()
}

// waitBlocked polls the server until the hold statement waits for a lock
// (nil), for at most 20 s.
func (c *commitCutter) waitBlocked() error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := c.blocked()
		switch {
		case err != nil:
			return fmt.Errorf("ask the server whether %q waits: %w", c.hold, err)
		case ok:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("%q did not wait for a lock within 20 s", c.hold)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lockWaiter is commitCutter's blocked for database db of dialect, asked
// as the server's superuser (admin): is a statement with hold waiting
// for a lock?
func lockWaiter(dialect, admin, db, hold string) func() (bool, error) {
	return func() (bool, error) {
		ctx := context.Background()
		var n int
		if dialect == "postgres" {
			conn, err := pgx.Connect(ctx, admin)
			if err != nil {
				return false, err
			}
			defer conn.Close(ctx)
			err = conn.QueryRow(ctx, `SELECT count(*)::int FROM pg_stat_activity
				WHERE datname = $1 AND wait_event_type = 'Lock' AND strpos(query, $2) > 0`, db, hold).Scan(&n)
			return n > 0, err
		}
		cfg, err := gomysql.ParseDSN(admin)
		if err != nil {
			return false, err
		}
		connector, err := gomysql.NewConnector(cfg)
		if err != nil {
			return false, err
		}
		adb := sql.OpenDB(connector)
		defer adb.Close()
		err = adb.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.INNODB_TRX t
			JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
			WHERE t.trx_state = 'LOCK WAIT' AND p.DB = ? AND LOCATE(?, t.trx_query) > 0`, db, hold).Scan(&n)
		return n > 0, err
	}
}

// viaRelay rewrites a backend DSN of dialect to connect through addr.
func viaRelay(t *testing.T, dialect, dsn, addr string) string {
	if dialect == "mysql" {
		cfg, err := gomysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Addr = addr
		return cfg.FormatDSN()
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

// A COMMIT that reaches the server and takes effect, but whose
// acknowledgement is lost with the connection (cut by a relay right after
// the COMMIT's bytes passed), is recognised after reconnecting by the
// (height, AppHash) the database records: the block is not applied a
// second time, the executor goes on, and every block's outcome and the
// rows equal a run without the fault.
func TestACommitWhoseAcknowledgementIsLostIsNotAppliedTwice(t *testing.T) {
	for _, db := range faultDBs() {
		for _, inFlight := range []bool{false, true} {
			name := db.dialect
			if inFlight {
				name += "/still-committing"
			}
			t.Run(name, func(t *testing.T) { lostCommitRun(t, db, inFlight) })
		}
	}
}

// lostCommitRun is one case of TestACommitWhoseAcknowledgementIsLostIsNotAppliedTwice;
// inFlight holds the COMMIT back until the executor, reconnected, asks
// what the database recorded.
func lostCommitRun(t *testing.T, db faultDB, inFlight bool) {
	want, wantRows := runCleanly(t, db)
	var dsn, target, admin, dbName string
	var open func(dsn string) (backend.Backend, error)
	switch db.dialect {
	case "postgres":
		dsn = pgtest.DSN(t)
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		target, admin, dbName = u.Host, pgtest.ServerDSN(t), strings.TrimPrefix(u.Path, "/")
		open = func(dsn string) (backend.Backend, error) { return postgres.Open(context.Background(), dsn) }
	case "mysql":
		dsn = mysqltest.DSN(t)
		cfg, err := gomysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		target, admin, dbName = cfg.Addr, mysqltest.ServerDSN(t), cfg.DBName
		open = func(dsn string) (backend.Backend, error) { return mysql.Open(context.Background(), dsn) }
	}
	hold := ""
	if inFlight {
		hold = map[string]string{"postgres": "LOCK TABLE relchain.meta", "mysql": "FOR UPDATE"}[db.dialect]
	}
	relay := startCommitCutter(t, target, hold, lockWaiter(db.dialect, admin, dbName, hold))
	be, err := open(viaRelay(t, db.dialect, dsn, relay.ln.Addr().String()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	ex := newFaultExecutor(t, be, db.dialect)
	ctx := context.Background()
	for i, txs := range signedWorkload() {
		h := int64(i + 1)
		res, hash, err := ex.FinalizeBlock(ctx, blockInfo(h), txs)
		if err != nil {
			t.Fatalf("finalize block %d: %v", h, err)
		}
		if h == faultedBlock {
			relay.arm()
		}
		if _, err := ex.Commit(ctx); err != nil {
			t.Fatalf("commit block %d: %v", h, err)
		}
		checkOutcome(t, h, blockOutcome{res, hash}, want[i])
	}
	if relay.cut() != 1 {
		t.Fatalf("the relay cut %d connections after a COMMIT, want 1", relay.cut())
	}
	if inFlight {
		relay.mu.Lock()
		waited := relay.waited
		relay.mu.Unlock()
		if waited != nil {
			t.Fatalf("the COMMIT was not in flight while the executor asked: %v", waited)
		}
	}
	s := ex.DatabaseStatus()
	if s.LostCommitsApplied != 1 || s.LostCommitsRerun != 0 || s.Unavailable {
		t.Fatalf("database status: %+v; want one lost COMMIT found applied", s)
	}
	if got := acctRows(t, be); got != wantRows {
		t.Fatalf("rows %s, without the fault %s (the block applied twice?)", got, wantRows)
	}
}

// foreignStateBackend reports a recorded state that is neither the
// committed block nor the one being committed.
type foreignStateBackend struct{ *faultBackend }

func (b foreignStateBackend) RecordedState(ctx context.Context) (backend.State, error) {
	return backend.State{Height: 99, AppHash: []byte("someone else's")}, nil
}

// After a COMMIT lost with the connection, a recorded state that is
// neither the block before nor the block being committed is a broken
// invariant: going on could apply a block twice or skip one, so Commit
// fails (the node stops) with ErrBrokenInvariant, saying what it found.
func TestALostCommitWithAForeignRecordedStateStops(t *testing.T) {
	be, err := postgres.Open(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	fb := &faultBackend{Backend: be, t: t, fire: func(*testing.T) int { return 1 }}
	ex := newFaultExecutor(t, foreignStateBackend{fb}, "postgres")
	blocks := signedWorkload()
	ctx := context.Background()
	if _, _, err := ex.FinalizeBlock(ctx, blockInfo(1), blocks[0]); err != nil {
		t.Fatal(err)
	}
	fb.arm("ack-lost")
	_, err = ex.Commit(ctx)
	if !errors.Is(err, app.ErrBrokenInvariant) {
		t.Fatalf("commit with a foreign recorded state: %v, want ErrBrokenInvariant", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "height 99") || !strings.Contains(msg, "relchain verify") {
		t.Fatalf("the error does not say what was found and what to do: %s", msg)
	}
}

// A rehearsal and CheckTx whose database sessions end under them neither
// crash nor wedge the node: the rehearsal reports an error, the block
// slot is free again, CheckTx still admits, and the next block runs and
// commits on a new connection.
func TestRehearsalAndCheckTxSurviveEndedSessions(t *testing.T) {
	for _, db := range faultDBs() {
		t.Run(db.dialect, func(t *testing.T) {
			inner, kill := db.open(t)
			fb := &faultBackend{Backend: inner, fire: kill, t: t}
			ex := newFaultExecutor(t, fb, db.dialect)
			ctx := context.Background()
			blocks := signedWorkload()
			for i := 0; i < 2; i++ {
				if _, _, err := ex.FinalizeBlock(ctx, blockInfo(int64(i+1)), blocks[i]); err != nil {
					t.Fatal(err)
				}
				if _, err := ex.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
			_, key, _ := ed25519.GenerateKey(nil)
			fb.arm("statement")
			_, err := ex.Rehearse(ctx, key.Public().(ed25519.PublicKey), []txn.Statement{
				stmt("UPDATE acct SET bal = bal + 1 WHERE id = 1"), stmt("UPDATE acct SET bal = bal + 1 WHERE id = 2")})
			if err == nil {
				t.Fatal("a rehearsal whose sessions ended reported success")
			}
			if fb.fired != 1 || fb.hit == 0 {
				t.Fatalf("the fault fired %d times, ended %d writer sessions", fb.fired, fb.hit)
			}
			kill(t)
			if _, rej := ex.Check(ctx, blocks[2][0]); rej != nil {
				t.Fatalf("CheckTx after the sessions ended: %v", rej)
			}
			if _, _, err := ex.FinalizeBlock(ctx, blockInfo(3), blocks[2]); err != nil {
				t.Fatalf("the block after a failed rehearsal: %v", err)
			}
			if _, err := ex.Commit(ctx); err != nil {
				t.Fatalf("commit after a failed rehearsal: %v", err)
			}
			if r, err := ex.Rehearse(ctx, key.Public().(ed25519.PublicKey), []txn.Statement{stmt("SELECT bal FROM acct WHERE id = 1")}); err != nil || r.Code != api.CodeOK {
				t.Fatalf("a rehearsal after the block: %v, %+v", err, r)
			}
		})
	}
}

// On MySQL a proposal whose DDL check cannot ask the database (the server
// unreachable) is accepted without running it early: an early run that
// waited for the database would commit the DDL (MySQL commits DDL at
// once) of a block that might not be decided. The DDL runs once, in
// FinalizeBlock, after the database is back.
func TestAProposalWhoseDDLCheckCannotAskTheDatabaseIsNotRunEarly(t *testing.T) {
	dsn := mysqltest.DSN(t)
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	relay, err := tcprelay.Start("127.0.0.1:0", cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	addr := relay.Addr()
	be, err := mysql.Open(context.Background(), viaRelay(t, "mysql", dsn, addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	ex := newFaultExecutor(t, be, "mysql")
	a := app.New(ex, log.NewNopLogger())
	seed := sha256.Sum256([]byte("dbfault ddl key"))
	key := ed25519.NewKeyFromSeed(seed[:])
	tx := &txn.Tx{ChainID: chainID, Nonce: 1, Statements: []txn.Statement{stmt("CREATE TABLE early (id BIGINT PRIMARY KEY)")}}
	tx.Sign(key)
	txs := [][]byte{txn.Encode(tx)}
	info := blockInfo(1)

	relay.Close() // the server is unreachable now
	done := make(chan *abci.ResponseProcessProposal, 1)
	go func() {
		res, err := a.ProcessProposal(context.Background(), &abci.RequestProcessProposal{Height: info.Height, Time: info.Time, Hash: info.Hash, Txs: txs})
		if err != nil {
			t.Errorf("process proposal: %v", err)
		}
		done <- res
	}()
	var res *abci.ResponseProcessProposal
	if !waitUntil(time.Minute, func() bool {
		select {
		case res = <-done:
			return true
		default:
			return ex.DatabaseStatus().Retries > 0 // it waits for the database: the early run started
		}
	}) || res == nil {
		// Let the waiting early run go on, and show what it did.
		back, err := tcprelay.Start(addr, cfg.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer back.Close()
		res = <-done
		t.Fatalf("ProcessProposal ran a DDL block early while the database was unreachable (accepted: %v, table created before FinalizeBlock: %v)", res.IsAccepted(), tableExists(t, dsn, "early"))
	}
	if !res.IsAccepted() || ex.Speculated(info) {
		t.Fatalf("proposal: accepted %v, run early %v; want accepted without an early run", res.IsAccepted(), ex.Speculated(info))
	}
	if relay, err = tcprelay.Start(addr, cfg.Addr); err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	if tableExists(t, dsn, "early") {
		t.Fatal("the DDL took effect before FinalizeBlock")
	}
	results, _, err := ex.FinalizeBlock(context.Background(), info, txs)
	if err != nil || results[0].Code != api.CodeOK {
		t.Fatalf("finalize the DDL block: %v %+v", err, results)
	}
	if _, err := ex.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// tableExists reports whether the database of the MySQL dsn has table.
func tableExists(t *testing.T, dsn, table string) bool {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?`, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// Four validators' databases on one MariaDB server (issue 32: all four
// exited within 2 s when it restarted, and the chain stayed down): the
// server stopped while the four execute a block, started again once each
// has retried; all four go on and agree, block by block, with a run that
// saw no fault.
func TestFourValidatorsOnOneRestartedServerGoOn(t *testing.T) {
	var ps privateServer
	for _, p := range privateServers() {
		if p.dialect == "mysql" {
			ps = p
		}
	}
	var ref faultDB
	for _, db := range faultDBs() {
		if db.dialect == "mysql" {
			ref = db
		}
	}
	want, wantRows := runCleanly(t, ref)
	dir, err := os.MkdirTemp("", "relchain-dbfault-four-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var mu sync.Mutex // guards stop
	port, stop := ps.start(t, dir, 0)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		stop()
	})
	const validators = 4
	var exs [validators]*app.Executor
	var bes [validators]backend.Backend
	restarted := make(chan struct{})
	for v := range validators {
		w, _, err := mysql.SetupAccounts(context.Background(), fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port), fmt.Sprintf("relchain_v%d", v))
		if err != nil {
			t.Fatal(err)
		}
		inner := ps.open(t, w)
		t.Cleanup(func() { inner.Close() })
		be := backend.Backend(inner)
		if v == 0 {
			be = &faultBackend{Backend: inner, t: t, fire: func(t *testing.T) int {
				mu.Lock()
				stop()
				mu.Unlock()
				go func() {
					defer close(restarted)
					// Each validator has retried, or had committed the
					// block before the server stopped.
					if !waitUntil(2*time.Minute, func() bool {
						for _, ex := range exs {
							if ex.DatabaseStatus().Retries < 2 && ex.State().Height < faultedBlock {
								return false
							}
						}
						return true
					}) {
						t.Errorf("not every validator retried against the stopped server")
					}
					mu.Lock()
					defer mu.Unlock()
					_, stop = ps.start(t, dir, port)
				}()
				return 1
			}}
		}
		bes[v] = inner
		exs[v] = newFaultExecutor(t, be, "mysql")
	}
	ctx := context.Background()
	for i, txs := range signedWorkload() {
		h := int64(i + 1)
		if h == faultedBlock {
			exs[0].Backend().(*faultBackend).arm("statement")
		}
		var wg sync.WaitGroup
		outs := make([]blockOutcome, validators)
		errs := make([]error, validators)
		for v := range validators {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, hash, err := exs[v].FinalizeBlock(ctx, blockInfo(h), txs)
				if err == nil {
					_, err = exs[v].Commit(ctx)
				}
				outs[v], errs[v] = blockOutcome{res, hash}, err
			}()
		}
		wg.Wait()
		for v := range validators {
			if errs[v] != nil {
				t.Fatalf("validator %d, block %d: %v", v, h, errs[v])
			}
			checkOutcome(t, h, outs[v], want[i])
		}
	}
	<-restarted
	for v := range validators {
		if s := exs[v].DatabaseStatus(); s.Unavailable || s.Outages > 1 || (v == 0 && s.Outages != 1) {
			t.Errorf("validator %d: database status %+v", v, s)
		}
		if got := acctRows(t, bes[v]); got != wantRows {
			t.Errorf("validator %d: rows %s, want %s", v, got, wantRows)
		}
	}
}
