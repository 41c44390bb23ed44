package mysqltest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend/internal/serverdb"
)

// ErrNotFound is returned by FindBinaries when no MariaDB server is found.
var ErrNotFound = errors.New("mysqltest: MariaDB server binaries (mariadbd, mariadb-install-db) not found in PATH, /usr/sbin or /usr/bin")

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

	proc serverdb.Proc // mariadbd when started by this process in the foreground
	args []string      // Options.Args
}

// mariadbd is how serverdb runs and stops MariaDB: SIGTERM is a normal
// shutdown, which InnoDB completes cleanly.
var mariadbd = serverdb.Daemon{Name: "mariadbd", Quit: syscall.SIGTERM, Kill: syscall.SIGKILL, Grace: 60 * time.Second}

// Options configure Start.
type Options struct {
	// Port to listen on; 0 picks a free loopback port.
	Port int
	// Detach starts mariadbd in its own session, so that it outlives this
	// process; stop it with Stop or StopDir. Without Detach it gets SIGTERM
	// (normal shutdown) when this process dies.
	Detach bool
	// Args are more mariadbd options (--name=value), given to
	// mariadb-install-db too when it initialises the data directory (so
	// that --innodb-page-size takes effect); they override Start's own.
	Args []string
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
	dir, cred, err := serverdb.OwnDir(dir, "mysql")
	if err != nil {
		return nil, fmt.Errorf("mysqltest: %w", err)
	}
	s := &Server{Dir: dir, Daemon: daemon, Install: install, args: opts.Args}
	data := filepath.Join(dir, "data")
	// The server's temporary files (information_schema results, sorts)
	// live in its own directory: a shared /tmp that another process
	// cleans made its queries fail ("Error on delete of
	// '/tmp/#sql-temptable-...'").
	if err := serverdb.MakeDir(filepath.Join(dir, "tmp"), cred, "mysql"); err != nil {
		return nil, fmt.Errorf("mysqltest: %w", err)
	}

	if port, ok := runningPort(dir); ok {
		s.Port = port
		if err := s.proc.WaitReady(ctx, mariadbd, 30*time.Second, s.ping); err == nil {
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
		cmd.Args = append(cmd.Args, opts.Args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("mysqltest: mariadb-install-db %s: %w\n%s", data, err, serverdb.Tail(out, 2000))
		}
	}

	if err := serverdb.Listen("mysqltest", opts.Port, &s.Port, func() error { return s.start(ctx, cred, data, opts.Detach) }); err != nil {
		return nil, err
	}
	return s, nil
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
	cmd := s.command(cred, s.Daemon, append(args, s.args...)...)
	// mariadbd writes to its --log-error file; stdout/stderr stay quiet.
	// Detached, it is on its own and Stop signals it by its pid file.
	if err := s.proc.Start(ctx, mariadbd, cmd, detach, s.ping, logPath); err != nil {
		return fmt.Errorf("port %d: %w", s.Port, err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "port"), []byte(strconv.Itoa(s.Port)+"\n"), 0o644); err != nil {
		return fmt.Errorf("write port file: %w", err)
	}
	return nil
}

// ping connects to the server as root.
func (s *Server) ping(ctx context.Context) error {
	cfg, err := mysql.ParseDSN(s.DSN())
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
	return db.PingContext(ctx)
}

// Stop shuts mariadbd down (SIGTERM: a normal shutdown, which InnoDB
// completes cleanly) and waits for it. It does not remove Dir.
func (s *Server) Stop() error {
	if s.proc.Owned() {
		s.proc.Stop(mariadbd)
		return nil
	}
	pid, ok := runningPid(s.Dir)
	if !ok {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("mysqltest: stop mariadbd (pid %d): %w", pid, err)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !serverdb.Alive(pid) {
			return nil
		}
	}
	return fmt.Errorf("mysqltest: mariadbd (pid %d) did not stop within 60s", pid)
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
	return serverdb.Command(s.Dir, cred, "mysql", path, args, "TZ=UTC")
}

// runningPid reports the pid of a live mariadbd whose pid file is in dir.
func runningPid(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "mariadbd.pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !serverdb.Alive(pid) {
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
