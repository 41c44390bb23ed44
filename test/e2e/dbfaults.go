package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/netctl"
)

// Faults on a validator's database server. A node's database is where
// its state lives: a connection terminated by the server's administrator,
// or the server killed and restarted, are ordinary operations, and the
// node must go on without an operator (issue 32, Build 6). The harness
// never touches the shared test servers: a manifest that kills a server
// gets private servers of its own, started for the run.

// dbServer is a private database server the harness owns for one run.
type dbServer struct {
	kind *serverKind
	dir  string
	port int
	stop func() error // stops the current process
}

// serverKind is how the harness runs, names, reaches and ends the
// sessions of one database server (by backend name: serverKinds).
type serverKind struct {
	what string
	// start starts a private server in dir on port (0: a free one) and
	// returns its directory, port and stop.
	start func(ctx context.Context, dir string, port int) (string, int, func() error, error)
	// template is the superuser's DSN template for databases
	// prefix_{node} on the server at port.
	template func(port int, prefix string) string
	// pidFile is the main process's pid file, relative to the directory.
	pidFile string
	// database is the database a DSN names.
	database func(dsn string) (string, error)
	// terminate ends every session of node on database db (dsn: the
	// superuser's) and confirms each ended.
	terminate func(ctx context.Context, dsn, db string, node int) error
}

var serverKinds = map[string]*serverKind{
	"postgres": {
		what: "PostgreSQL",
		start: func(ctx context.Context, dir string, port int) (string, int, func() error, error) {
			srv, err := pgtest.Start(ctx, dir, pgtest.Options{Port: port})
			if err != nil {
				return "", 0, nil, err
			}
			return srv.Dir, srv.Port, srv.Stop, nil
		},
		template: func(port int, prefix string) string {
			return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s_{node}?sslmode=disable", port, prefix)
		},
		pidFile: filepath.Join("data", "postmaster.pid"),
		database: func(dsn string) (string, error) {
			u, err := url.Parse(dsn)
			if err != nil {
				return "", fmt.Errorf("DSN: %w", err)
			}
			return strings.TrimPrefix(u.Path, "/"), nil
		},
		terminate: terminatePostgres,
	},
	"mysql": {
		what: "MariaDB",
		start: func(ctx context.Context, dir string, port int) (string, int, func() error, error) {
			srv, err := mysqltest.Start(ctx, dir, mysqltest.Options{Port: port})
			if err != nil {
				return "", 0, nil, err
			}
			return srv.Dir, srv.Port, srv.Stop, nil
		},
		template: func(port int, prefix string) string {
			return fmt.Sprintf("root@tcp(127.0.0.1:%d)/%s_{node}", port, prefix)
		},
		pidFile: "mariadbd.pid",
		database: func(dsn string) (string, error) {
			cfg, err := mysql.ParseDSN(dsn)
			if err != nil {
				return "", fmt.Errorf("DSN: %w", err)
			}
			return cfg.DBName, nil
		},
		terminate: killMySQLConnections,
	},
}

// startDBServer starts a private server for backend in dir on port (0: a
// free one), or starts it again on the same data and port.
func startDBServer(ctx context.Context, backend, dir string, port int) (*dbServer, error) {
	k, ok := serverKinds[backend]
	if !ok {
		return nil, fmt.Errorf("backend %s has no database server", backend)
	}
	d, p, stop, err := k.start(ctx, dir, port)
	if err != nil {
		return nil, fmt.Errorf("private %s in %s: %w", k.what, dir, err)
	}
	return &dbServer{kind: k, dir: d, port: p, stop: stop}, nil
}

// dsnTemplate is the superuser's DSN template for databases
// prefix_{node} on the server.
func (s *dbServer) dsnTemplate(prefix string) string { return s.kind.template(s.port, prefix) }

// pid is the server's main process (postmaster, mariadbd), from its pid
// file.
func (s *dbServer) pid() (int, error) {
	path := filepath.Join(s.dir, s.kind.pidFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("server pid: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("server pid file %s: %q", path, first)
	}
	return pid, nil
}

// kill SIGKILLs the server's main process and confirms it is gone and
// its port refuses connections.
func (s *dbServer) kill() error {
	pid, err := s.pid()
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the %s server (pid %d): %w", s.kind.what, pid, err)
	}
	deadline := time.Now().Add(confirmWithin * 2)
	for {
		gone := syscall.Kill(pid, 0) != nil || isZombie(pid)
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		if gone && err != nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the %s server (pid %d) still runs or listens on port %d after SIGKILL", s.kind.what, pid, s.port)
		}
		time.Sleep(20 * time.Millisecond) // the kernel's view, no event to wait on
	}
	// Reap it (Stop of a dead owned process returns at once).
	_ = s.stop()
	return nil
}

func isZombie(pid int) bool {
	st, err := procState(pid)
	return err == nil && st == "Z"
}

// restart starts the killed server again on its data and port. A
// PostgreSQL whose postmaster was killed refuses to start while its old
// backends still hold the shared memory: it is retried until they left.
func (s *dbServer) restart(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, _, stop, err := s.kind.start(ctx, s.dir, s.port)
		if err == nil {
			s.stop = stop
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("restart the %s server: %w", s.kind.what, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// errNoSession: the node had no session to end.
var errNoSession = errors.New("no session to end")

// terminateConnections ends every connection of node i to its database
// as the server's administrator would (PostgreSQL pg_terminate_backend,
// MariaDB KILL CONNECTION), and confirms there was at least one and that
// each is gone.
func (nw *network) terminateConnections(i int) error {
	k, ok := serverKinds[nw.m.Backend]
	if !ok {
		return fmt.Errorf("backend %s has no database server", nw.m.Backend)
	}
	adminDSN := strings.ReplaceAll(nw.adminTemplate(i), "{node}", nw.net.Nodes[i].Name)
	db, err := k.database(adminDSN)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*confirmWithin)
	defer cancel()
	// A node between two connections (one just ended) has none for a
	// moment: wait for one rather than count a fault that ended nothing.
	deadline := time.Now().Add(confirmWithin)
	for {
		err := k.terminate(ctx, adminDSN, db, i)
		if !errors.Is(err, errNoSession) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond) // polling the server's session list
	}
}

func terminatePostgres(ctx context.Context, dsn, db string, node int) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect as the superuser: %w", err)
	}
	defer conn.Close(context.Background())
	const list = `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`
	pids, err := pgInts(ctx, conn, list, db)
	if err != nil {
		return err
	}
	if len(pids) == 0 {
		return fmt.Errorf("node%d has no connection to database %s: %w", node, db, errNoSession)
	}
	for _, pid := range pids {
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&ok); err != nil {
			return fmt.Errorf("pg_terminate_backend(%d): %w", pid, err)
		}
	}
	return waitGone(ctx, fmt.Sprintf("node%d's backends %v", node, pids), func() (bool, error) {
		left, err := pgInts(ctx, conn, `SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[])`, pids)
		return len(left) == 0, err
	})
}

func pgInts(ctx context.Context, conn *pgx.Conn, q string, args ...any) ([]int64, error) {
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return out, nil
}

func killMySQLConnections(ctx context.Context, dsn, db string, node int) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("DSN: %w", err)
	}
	cfg.DBName = "" // the node's database is the one whose connections go
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	sdb := sql.OpenDB(conn)
	defer sdb.Close()
	sdb.SetMaxOpenConns(1)
	ids, err := mysqlInts(ctx, sdb, `SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()`, db)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("node%d has no connection to database %s: %w", node, db, errNoSession)
	}
	for _, id := range ids {
		if _, err := sdb.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id)); err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1094 { // unknown thread: it ended by itself
				continue
			}
			return fmt.Errorf("KILL CONNECTION %d: %w", id, err)
		}
	}
	return waitGone(ctx, fmt.Sprintf("node%d's connections %v", node, ids), func() (bool, error) {
		left := 0
		for _, id := range ids {
			n, err := mysqlInts(ctx, sdb, `SELECT id FROM information_schema.processlist WHERE id = ?`, id)
			if err != nil {
				return false, err
			}
			left += len(n)
		}
		return left == 0, nil
	})
}

func mysqlInts(ctx context.Context, db *sql.DB, q string, args ...any) ([]int64, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// waitGone polls gone until it says so (the server ends a terminated
// session asynchronously).
func waitGone(ctx context.Context, what string, gone func() (bool, error)) error {
	for {
		ok, err := gone()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s still there: %w", what, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// running reports whether the server's main process is alive.
func (s *dbServer) running() bool {
	pid, err := s.pid()
	return err == nil && syscall.Kill(pid, 0) == nil && !isZombie(pid)
}

// startDBServers gives the nodes of db-kill faults a private server each,
// or every validator one private server for a shared-db-kill, and keeps
// each validator's superuser DSN template (adminTemplate).
func (nw *network) startDBServers(ctx context.Context, opts *netctl.Options, dir string) error {
	nw.dbTmpl = make([]string, nw.m.Validators)
	if nw.m.killsSharedDB() || len(nw.m.dbKillNodes()) > 0 {
		// The servers run as their own OS user (as root: postgres,
		// mysql), who must reach their directory: not under the test's
		// private temporary directory.
		d, err := os.MkdirTemp("", "relchain-e2e-db-")
		if err != nil {
			return fmt.Errorf("database servers' directory: %w", err)
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return fmt.Errorf("database servers' directory: %w", err)
		}
		nw.serversDir, dir = d, d
	}
	for i := range nw.dbTmpl {
		nw.dbTmpl[i] = opts.DSNTemplate
	}
	if nw.m.killsSharedDB() {
		srv, err := startDBServer(ctx, nw.m.Backend, filepath.Join(dir, "db-shared"), 0)
		if err != nil {
			return err
		}
		nw.shared = srv
		opts.DSNTemplate = srv.dsnTemplate("relchain_e2e")
		for i := range nw.dbTmpl {
			nw.dbTmpl[i] = opts.DSNTemplate
		}
		return nil
	}
	for _, i := range nw.m.dbKillNodes() {
		srv, err := startDBServer(ctx, nw.m.Backend, filepath.Join(dir, fmt.Sprintf("db-node%d", i)), 0)
		if err != nil {
			return err
		}
		nw.servers[i] = srv
		if opts.DSNTemplates == nil {
			opts.DSNTemplates = make([]string, nw.m.Validators)
		}
		opts.DSNTemplates[i] = srv.dsnTemplate("relchain_e2e")
		nw.dbTmpl[i] = opts.DSNTemplates[i]
	}
	return nil
}

// adminTemplate is validator i's superuser DSN template, on loopback.
func (nw *network) adminTemplate(i int) string { return nw.dbTmpl[i] }

// disconnectEvery is how often db-disconnect with for terminates the
// node's connections again.
const disconnectEvery = 200 * time.Millisecond

// startDisconnecting terminates node i's connections now (there must be
// one) and then every disconnectEvery until stopDisconnecting; a round
// that finds no connection (the node reconnecting) terminates nothing.
func (nw *network) startDisconnecting(i int) error {
	if err := nw.terminateConnections(i); err != nil {
		return err
	}
	ch := make(chan int)
	nw.disconnecting[i] = ch
	go func() {
		n := 1
		for {
			select {
			case <-ch:
				ch <- n
				return
			case <-time.After(disconnectEvery):
			}
			if nw.terminateConnections(i) == nil {
				n++
			}
		}
	}()
	return nil
}

// stopDisconnecting stops the terminations of node i's connections and
// notes how many rounds terminated something.
func (nw *network) stopDisconnecting(i int) error {
	ch, ok := nw.disconnecting[i]
	if !ok {
		return fmt.Errorf("node%d's connections were not being terminated", i)
	}
	delete(nw.disconnecting, i)
	ch <- 0
	n := <-ch
	nw.note(fmt.Sprintf("node%d's database connections were terminated in %d rounds", i, n))
	return nil
}
