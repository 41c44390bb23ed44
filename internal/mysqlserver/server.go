package mysqlserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/relchain/relchain/internal/dbproc"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// ErrNotFound is returned by FindBinaries when no MariaDB server is found.
var ErrNotFound = errors.New("mysqlserver: MariaDB server binaries (mariadbd, mariadb-install-db) not found in PATH, /usr/sbin or /usr/bin")

// SQLMode is the server's default sql_mode (the backend pins its own per
// session; see backend/mysql).
const SQLMode = "STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,ONLY_FULL_GROUP_BY,NO_ENGINE_SUBSTITUTION"

// Server is a private MariaDB server: a data directory and, while it runs,
// one mariadbd listening on a loopback port and a Unix socket in Dir.
type Server struct {
	Dir     string // root: data/, mariadbd.pid, mysqld.sock, port and mariadbd.log live here
	Port    int
	Daemon  string // path of mariadbd
	Install string // path of mariadb-install-db

	cmd  *exec.Cmd     // mariadbd when started by this process in the foreground
	done chan struct{} // closed when cmd has exited
}

// Options configure Start.
type Options struct {
	// Port to listen on; 0 picks a free loopback port.
	Port int
	// Detach starts mariadbd in its own session, so that it outlives this
	// process; stop it with Stop or StopDir. Without Detach it gets SIGTERM
	// (normal shutdown) when this process dies.
	Detach bool
}

// DSN returns a go-sql-driver/mysql DSN for root on no particular
// database.
func (s *Server) DSN() string {
	return fmt.Sprintf("root@tcp(127.0.0.1:%d)/", s.Port)
}

// FindBinaries returns the paths of mariadbd and mariadb-install-db.
func FindBinaries() (daemon, install string, err error) {
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
				p := filepath.Join(dir, n)
				if st, err := os.Stat(p); err == nil && !st.IsDir() {
					return p
				}
			}
		}
		return ""
	}
	daemon = find("mariadbd")
	install = find("mariadb-install-db", "mysql_install_db")
	if daemon == "" || install == "" {
		return "", "", ErrNotFound
	}
	return daemon, install, nil
}

// Start initialises dir's data directory unless it already is one, and
// starts mariadbd on it. If a mariadbd already runs on dir, Start returns it
// (Port from the port file) without starting another.
func Start(ctx context.Context, dir string, opts Options) (*Server, error) {
	daemon, install, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mysqlserver: create %s: %w", dir, err)
	}
	cred, err := dbproc.Credential("mysql")
	if err != nil {
		return nil, fmt.Errorf("mysqlserver: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("mysqlserver: chown %s to mysql: %w", dir, err)
		}
	}
	s := &Server{Dir: dir, Daemon: daemon, Install: install}
	data := filepath.Join(dir, "data")
	// The server's temporary files (information_schema results, sorts)
	// live in its own directory: a shared /tmp that another process
	// cleans made its queries fail ("Error on delete of
	// '/tmp/#sql-temptable-...'").
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("mysqlserver: create %s: %w", tmp, err)
	}
	if cred != nil {
		if err := os.Chown(tmp, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("mysqlserver: chown %s to mysql: %w", tmp, err)
		}
	}

	if port, ok := runningPort(dir); ok {
		s.Port = port
		if err := s.waitReady(ctx, 30*time.Second); err == nil {
			return s, nil
		}
	}

	if _, err := os.Stat(filepath.Join(data, "mysql")); err != nil {
		// root@localhost, root@127.0.0.1 and root@::1 with no password;
		// no test database; grants by address, never by resolved name.
		cmd := s.command(cred, s.Install, "--no-defaults", "--datadir="+data,
			"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve")
		if cred != nil {
			cmd.Args = append(cmd.Args, "--user=mysql")
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("mysqlserver: mariadb-install-db %s: %w\n%s", data, err, dbproc.Tail(out, 2000))
		}
	}

	// The free port is only free until someone else takes it: retry.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s.Port = opts.Port
		if s.Port == 0 {
			if s.Port, err = dbproc.FreePort(); err != nil {
				return nil, fmt.Errorf("mysqlserver: %w", err)
			}
		}
		if lastErr = s.start(ctx, cred, data, opts.Detach); lastErr == nil {
			return s, nil
		}
		if opts.Port != 0 {
			break
		}
	}
	return nil, lastErr
}

func (s *Server) start(ctx context.Context, cred *syscall.Credential, data string, detach bool) error {
	logPath := filepath.Join(s.Dir, "mariadbd.log")
	args := []string{
		"--no-defaults", // never /etc/mysql/my.cnf: the system server's settings
		"--datadir=" + data,
		"--tmpdir=" + filepath.Join(s.Dir, "tmp"),
		"--port=" + strconv.Itoa(s.Port),
		"--bind-address=127.0.0.1",
		"--skip-networking=0",
		"--socket=" + filepath.Join(s.Dir, "mysqld.sock"),
		"--pid-file=" + filepath.Join(s.Dir, "mariadbd.pid"),
		"--log-error=" + logPath,
		"--skip-name-resolve",
		"--skip-log-bin",
		"--max-connections=300",
		"--performance-schema=OFF",
		"--innodb-buffer-pool-size=128M",
		"--innodb-log-file-size=64M",
		// Durable: the redo log is written and fsynced at every commit.
		"--innodb-flush-log-at-trx-commit=1",
		"--innodb-doublewrite=1",
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_bin",
		"--default-time-zone=+00:00",
		"--sql-mode=" + SQLMode,
		"--explicit-defaults-for-timestamp=1",
		"--lower-case-table-names=1", // table names compare case-insensitively on every node (backend/mysql requires it)
		"--max-allowed-packet=1G",    // backend/mysql requires it: larger results would become NULL
	}
	cmd := s.command(cred, s.Daemon, args...)
	// mariadbd writes to its --log-error file; stdout/stderr stay quiet.
	if detach {
		cmd.SysProcAttr.Setsid = true
	} else {
		// Stop mariadbd (normal shutdown) if this process dies without
		// calling Stop, e.g. when go test kills a hung test binary.
		cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("mysqlserver: start mariadbd: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	if err := s.waitReady(ctx, 60*time.Second); err != nil {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		s.cmd, s.done = nil, nil
		log, _ := os.ReadFile(logPath)
		return fmt.Errorf("mysqlserver: mariadbd did not become ready on port %d: %w\n%s", s.Port, err, dbproc.Tail(log, 2000))
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "port"), []byte(strconv.Itoa(s.Port)+"\n"), 0o644); err != nil {
		return fmt.Errorf("mysqlserver: write port file: %w", err)
	}
	if detach {
		// mariadbd is on its own now; Stop signals it by its pid file.
		s.cmd = nil
	}
	return nil
}

func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	var lastErr error
	for time.Now().Before(deadline) {
		if s.done != nil {
			select {
			case <-s.done:
				return errors.New("mariadbd exited")
			default:
			}
		}
		lastErr = ping(ctx, s.DSN())
		if lastErr == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return lastErr
}

func ping(ctx context.Context, dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return err
	}
	cfg.Timeout = 2 * time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return db.PingContext(cctx)
}

// Stop shuts mariadbd down (SIGTERM: a normal shutdown, which InnoDB
// completes cleanly) and waits for it. It does not remove Dir.
func (s *Server) Stop() error {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(60 * time.Second):
			_ = s.cmd.Process.Signal(syscall.SIGKILL)
			<-s.done
		}
		s.cmd = nil
		return nil
	}
	pid, ok := runningPid(s.Dir)
	if !ok {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("mysqlserver: stop mariadbd (pid %d): %w", pid, err)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !dbproc.Alive(pid) {
			return nil
		}
	}
	return fmt.Errorf("mysqlserver: mariadbd (pid %d) did not stop within 60s", pid)
}

// StopDir stops a (detached) mariadbd running on the server in dir.
func StopDir(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return (&Server{Dir: dir}).Stop()
}

// command builds a command for one of the server binaries, run as the
// mysql OS user when this process is root. Setting the credential directly
// (instead of wrapping in runuser) keeps mariadbd our direct child, so
// signals and Pdeathsig reach it.
func (s *Server) command(cred *syscall.Credential, path string, args ...string) *exec.Cmd {
	return dbproc.Command(s.Dir, cred, "mysql", path, args, "TZ=UTC")
}

// runningPid reports the pid of a live mariadbd whose pid file is in dir.
func runningPid(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "mariadbd.pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !dbproc.Alive(pid) {
		return 0, false
	}
	return pid, true
}

// runningPort reports the port of a live mariadbd on dir.
func runningPort(dir string) (int, bool) {
	if _, ok := runningPid(dir); !ok {
		return 0, false
	}
	b, err := os.ReadFile(filepath.Join(dir, "port"))
	if err != nil {
		return 0, false
	}
	port, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return port, err == nil
}
