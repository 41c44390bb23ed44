package node

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	cmtlog "github.com/cometbft/cometbft/libs/log"
	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// nodeDBName is the database of the node in these tests.
const nodeDBName = "relchain_n"

// ownServer is a database server a test starts, stops, starts again and
// whose sessions it ends: never the shared test servers.
type ownServer struct {
	kind  string
	start func(t *testing.T, dir string, port int) (int, func() error)
	// admin is the administrator's DSN of nodeDBName on the server.
	admin func(port int) string
	// endSessions ends every session of nodeDBName (the node's writer
	// and readers) and returns how many.
	endSessions func(t *testing.T, port int) int
}

func ownServers() []ownServer {
	return []ownServer{
		{"postgres", func(t *testing.T, dir string, port int) (int, func() error) {
			s, err := pgtest.Start(context.Background(), dir, pgtest.Options{Port: port})
			if err != nil {
				t.Fatalf("start a private PostgreSQL: %v", err)
			}
			return s.Port, s.Stop
		}, func(port int) string {
			return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, nodeDBName)
		}, func(t *testing.T, port int) int {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
			if err != nil {
				t.Fatalf("connect as superuser: %v", err)
			}
			defer conn.Close(ctx)
			rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, nodeDBName)
			if err != nil {
				t.Fatal(err)
			}
			pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				t.Fatal(err)
			}
			for _, pid := range pids {
				if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend($1, 10000)`, pid); err != nil {
					t.Fatalf("pg_terminate_backend(%d): %v", pid, err)
				}
			}
			return len(pids)
		}},
		{"mysql", func(t *testing.T, dir string, port int) (int, func() error) {
			s, err := mysqltest.Start(context.Background(), dir, mysqltest.Options{Port: port})
			if err != nil {
				t.Fatalf("start a private MariaDB: %v", err)
			}
			return s.Port, s.Stop
		}, func(port int) string {
			return fmt.Sprintf("root@tcp(127.0.0.1:%d)/%s", port, nodeDBName)
		}, func(t *testing.T, port int) int {
			cfg, err := gomysql.ParseDSN(fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port))
			if err != nil {
				t.Fatal(err)
			}
			connector, err := gomysql.NewConnector(cfg)
			if err != nil {
				t.Fatal(err)
			}
			db := sql.OpenDB(connector)
			defer db.Close()
			rows, err := db.Query(`SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()`, nodeDBName)
			if err != nil {
				t.Fatal(err)
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
				_, _ = db.Exec(fmt.Sprintf("KILL CONNECTION %d", id)) // it may have ended meanwhile
			}
			return len(ids)
		}},
	}
}

// writeLoad runs writers goroutines that insert rows with ids of their
// own through RPC, waiting for each commit, until stop is closed; acked
// collects the ids whose commit was acknowledged with code 0.
type writeLoad struct {
	mu    sync.Mutex
	acked []int64
	wg    sync.WaitGroup
	stop  chan struct{}
}

func startWriteLoad(t *testing.T, url string, writers int) *writeLoad {
	l := &writeLoad{stop: make(chan struct{})}
	for w := 0; w < writers; w++ {
		_, key, _ := ed25519.GenerateKey(nil)
		c, err := client.New(url, key)
		if err != nil {
			t.Fatal(err)
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := int64(0); i < 100000; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				id := int64(w)*1_000_000 + i
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, 1)", id)})
				cancel()
				if err == nil && res.OK() {
					l.mu.Lock()
					l.acked = append(l.acked, id)
					l.mu.Unlock()
				}
			}
		}()
	}
	return l
}

func (l *writeLoad) finish() []int64 {
	close(l.stop)
	l.wg.Wait()
	sort.Slice(l.acked, func(i, j int) bool { return l.acked[i] < l.acked[j] })
	return l.acked
}

// waitUntil waits until cond holds and returns how long it took; it
// fails t after limit.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Since(start) > limit {
			t.Fatalf("waited %s for %s", limit, what)
		}
		<-tick.C
	}
	return time.Since(start)
}

// A one-validator network on PostgreSQL or MariaDB, under a write load,
// has every session of its database ended (pg_terminate_backend, KILL
// CONNECTION), then its database server stopped and started again: the
// node goes on without an operator each time (no halt, new blocks), says
// so while the server is down (/readyz 503 naming the database,
// relchain_database_unavailable 1) and is ready again after, and every
// write acknowledged to a client is in the database exactly once. The
// times from each fault to the next committed block are logged (the
// figures in the notes come from here).
func TestNodeGoesOnAfterItsDatabaseSessionsEndAndItsServerRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts private database servers and a node")
	}
	for _, srv := range ownServers() {
		t.Run(srv.kind, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "relchain-dbfault-node-") // the server's OS user must enter it
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			var mu sync.Mutex
			port, stop := srv.start(t, dir, 0)
			running := true
			t.Cleanup(func() {
				mu.Lock()
				defer mu.Unlock()
				if running {
					_ = stop()
				}
			})

			ns := fmt.Sprintf("cometbft_dbfault%d", promTestRuns.Add(1))
			home, url := oneValidatorOn(t, BackendConfig{Kind: srv.kind, DSN: srv.admin(port)})
			cc, rc, err := LoadConfig(home)
			if err != nil {
				t.Fatal(err)
			}
			cc.Instrumentation.Prometheus, cc.Instrumentation.PrometheusListenAddr = true, "127.0.0.1:0"
			cc.Instrumentation.Namespace = ns
			if err := SaveConfig(home, cc, rc); err != nil {
				t.Fatal(err)
			}
			n := mustStartNode(t, home)
			defer func() { _ = n.Stop() }()
			base := "http://" + n.PrometheusAddr()
			ex := n.app.Executor()
			height := func() int64 { return ex.State().Height }

			_, key, _ := ed25519.GenerateKey(nil)
			c, err := client.New(url, key)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			if res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: "CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"}); err != nil || !res.OK() {
				t.Fatalf("create table: %v %+v", err, res)
			}
			load := startWriteLoad(t, url, 8)
			h := height()
			waitUntil(t, time.Minute, "blocks under load", func() bool { return height() >= h+5 })

			// 1. Every session ended.
			before := ex.DatabaseStatus()
			killStart := time.Now()
			if ended := srv.endSessions(t, port); ended == 0 {
				t.Fatal("no session of the node's database to end")
			}
			killTook := time.Since(killStart)
			start := time.Now()
			// The next block committed once the last session ended, with
			// no outage pending (a session ended between blocks is found
			// dead by the next block, which then retries).
			h = height()
			waitUntil(t, time.Minute, "a block committed after the sessions ended", func() bool {
				return height() > h && !ex.DatabaseStatus().Unavailable
			})
			afterKill := time.Since(start)
			// (A writer session ended between blocks may be replaced
			// before any block notices: MySQL's pool checks an idle
			// connection before reuse. Then no retry is counted.)
			t.Logf("after the sessions ended: %+v (before: %+v)", ex.DatabaseStatus(), before)

			// 2. The server stopped (a clean shutdown), then started
			// again; 3. the server killed (a crash: it recovers from
			// its log), then started again.
			outage := func(crash bool) (time.Duration, time.Duration) {
				h := height()
				mu.Lock()
				if crash {
					crashServer(t, srv.kind, dir)
				} else if err := stop(); err != nil {
					t.Fatal(err)
				}
				running = false
				mu.Unlock()
				waitUntil(t, time.Minute, "the node to report its database unavailable", func() bool {
					return ex.DatabaseStatus().Unavailable
				})
				code, body := get(t, base+"/readyz")
				var r struct {
					Ready  bool   `json:"ready"`
					Reason string `json:"reason"`
				}
				if err := json.Unmarshal([]byte(body), &r); err != nil || code != http.StatusServiceUnavailable || r.Ready || !strings.Contains(r.Reason, "database unavailable") {
					t.Fatalf("/readyz while the database is down: %d %q (%v), want 503 naming the database", code, body, err)
				}
				if _, metrics := get(t, base+"/metrics"); !strings.Contains(metrics, "relchain_database_unavailable 1") || !strings.Contains(metrics, "relchain_ready 0") {
					t.Fatalf("/metrics while the database is down lacks relchain_database_unavailable 1 or relchain_ready 0")
				}
				if d, err := time.ParseDuration(os.Getenv("RELCHAIN_DBFAULT_DOWN")); err == nil {
					// A longer outage, for measurements (see the notes):
					// the backoff has grown when the server returns.
					time.Sleep(d)
				}
				mu.Lock()
				restartAt := time.Now()
				_, stop = srv.start(t, dir, port)
				running = true
				mu.Unlock()
				serverUp := time.Since(restartAt)
				waitUntil(t, 2*time.Minute, "a block committed after the server restarted", func() bool { return height() > h+1 })
				afterRestart := time.Since(restartAt)
				waitUntil(t, time.Minute, "/readyz 200 again", func() bool {
					code, _ := get(t, base+"/readyz")
					return code == http.StatusOK
				})
				if _, metrics := get(t, base+"/metrics"); !strings.Contains(metrics, "relchain_database_unavailable 0") || !strings.Contains(metrics, "relchain_database_outages_total") {
					t.Errorf("/metrics after the outage lacks relchain_database_unavailable 0 or relchain_database_outages_total")
				}
				select {
				case err := <-n.Halted():
					t.Fatalf("the node halted: %v", err)
				default:
				}
				return afterRestart, serverUp
			}
			afterRestart, serverUp := outage(false)
			afterCrash, crashUp := outage(true)

			h = height()
			waitUntil(t, time.Minute, "blocks after the faults", func() bool { return height() >= h+3 })
			acked := load.finish()
			q, err := c.Query(ctx, height(), "SELECT id FROM acct ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			have := make(map[string]int, len(q.Rows))
			for _, row := range q.Rows {
				have[fmt.Sprint(row[0])]++
			}
			for _, id := range acked {
				if have[fmt.Sprint(id)] != 1 {
					t.Fatalf("acknowledged write %d is in the database %d times", id, have[fmt.Sprint(id)])
				}
			}
			t.Logf("%s: %d acknowledged writes, all present once; sessions ended (ending them took %s) → next block committed in %s; server stopped, start command → next block committed in %s (the server took %s to accept connections); server killed, start command → next block committed in %s (recovery and start took %s); database status %+v",
				srv.kind, len(acked), killTook.Round(time.Millisecond), afterKill.Round(time.Millisecond), afterRestart.Round(time.Millisecond), serverUp.Round(time.Millisecond),
				afterCrash.Round(time.Millisecond), crashUp.Round(time.Millisecond), ex.DatabaseStatus())
		})
	}
}

// oneValidatorOn is the home of a one-validator network on the database
// of be (an administrator's DSN: init provisions the node's accounts),
// without checkpoints, and its RPC URL.
func oneValidatorOn(t *testing.T, be BackendConfig) (home, url string) {
	t.Helper()
	home = t.TempDir()
	p := app.DefaultParams()
	p.Backend = be.Kind
	if _, err := Init(home, InitOptions{Backend: be, Params: p, Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	cc, rc, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cc.RPC.ListenAddress = "tcp://" + addr
	cc.P2P.ListenAddress = "tcp://127.0.0.1:0"
	rc.Checkpoint.Every = 0
	if err := SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
	return home, "http://" + addr
}

// crashServer kills the private server of kind running on dir
// (PostgreSQL's postmaster SIGQUIT: an immediate shutdown, no checkpoint;
// mariadbd SIGKILL) and waits until its process is gone.
func crashServer(t *testing.T, kind, dir string) {
	pidFile, sig := filepath.Join(dir, "data", "postmaster.pid"), syscall.SIGQUIT
	if kind == "mysql" {
		pidFile, sig = filepath.Join(dir, "mariadbd.pid"), syscall.SIGKILL
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("read the server's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		t.Fatalf("pid file %s: %v", pidFile, err)
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
	waitUntil(t, time.Minute, "the killed server's process to end", func() bool { return syscall.Kill(pid, 0) != nil })
}

// noteLogger is a logger that notes whether a message containing want
// was logged.
type noteLogger struct {
	want string
	seen *atomic.Bool
}

func (l noteLogger) note(msg string) {
	if strings.Contains(msg, l.want) {
		l.seen.Store(true)
	}
}
func (l noteLogger) Debug(msg string, _ ...any) { l.note(msg) }
func (l noteLogger) Info(msg string, _ ...any)  { l.note(msg) }
func (l noteLogger) Error(msg string, _ ...any) { l.note(msg) }
func (l noteLogger) With(...any) cmtlog.Logger  { return l }

// A node started while its database server is down waits for it (a
// server restarting together with its validators) instead of exiting,
// and starts once the server answers.
func TestNodeStartedWhileItsDatabaseIsDownWaitsForIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a private database server and a node")
	}
	srv := ownServers()[0]
	dir, err := os.MkdirTemp("", "relchain-dbfault-start-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	port, stop := srv.start(t, dir, 0)
	home, url := oneValidatorOn(t, BackendConfig{Kind: srv.kind, DSN: srv.admin(port)})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	seen := new(atomic.Bool)
	type result struct {
		n   *Node
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := New(context.Background(), home, noteLogger{want: "the database is unavailable at start", seen: seen})
		done <- result{n, err}
	}()
	waitUntil(t, time.Minute, "the starting node to wait for its database", func() bool {
		select {
		case r := <-done:
			t.Fatalf("the node did not wait for its database: %v", r.err)
		default:
		}
		return seen.Load()
	})
	_, stop = srv.start(t, dir, port)
	t.Cleanup(func() { _ = stop() })
	r := <-done
	if r.err != nil {
		t.Fatalf("the node did not start once its database answered: %v", r.err)
	}
	if err := r.n.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.n.Stop() }()
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := client.New(url, key)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: "CREATE TABLE t (id BIGINT PRIMARY KEY)"}); err != nil || !res.OK() {
		t.Fatalf("a block after the start: %v %+v", err, res)
	}
}
