package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/internal/serverdb"
)

// ErrNotFound is returned by FindBinDir when no PostgreSQL installation is
// found.
var ErrNotFound = errors.New("pgtest: PostgreSQL server binaries (initdb, postgres) not found in PATH or /usr/lib/postgresql/*/bin")

// Server is a private PostgreSQL cluster: a data directory and, while it
// runs, one postmaster listening on a loopback port and a Unix socket in
// Dir. The superuser is "postgres" with trust authentication.
type Server struct {
	Dir    string // cluster root: data/ (PGDATA), the socket and postgres.log live here
	Port   int
	BinDir string

	durable  bool
	settings []string
	proc     serverdb.Proc // the postmaster when started by this process in the foreground
}

// postmaster is how serverdb runs and stops PostgreSQL: SIGINT is its fast
// shutdown, SIGQUIT its immediate one.
var postmaster = serverdb.Daemon{Name: "postgres", Quit: syscall.SIGINT, Kill: syscall.SIGQUIT, Grace: 30 * time.Second}

// Options configure Start.
type Options struct {
	// Port to listen on; 0 picks a free loopback port.
	Port int
	// Detach starts the postmaster in its own session, so that it outlives
	// this process; stop it with Stop (which then uses pg_ctl). Without
	// Detach the postmaster gets SIGINT (fast shutdown) when this process
	// dies.
	Detach bool
	// Durable keeps PostgreSQL's default fsync and full-page writes, for
	// benchmarks that compare durable systems; tests leave them off.
	Durable bool
	// Settings are extra server settings, "name=value" each, passed as
	// -c options after the defaults (so they win).
	Settings []string
}

// DSN returns a URL for the superuser on the maintenance database "postgres".
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
}

// FindBinDir returns the directory holding initdb and postgres: the one on
// PATH, else the newest /usr/lib/postgresql/<version>/bin.
func FindBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	type cand struct {
		dir string
		ver []int
	}
	var cands []cand
	for _, root := range []string{"/usr/lib/postgresql", "/usr/local/lib/postgresql"} {
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			dir := filepath.Join(root, e.Name(), "bin")
			if _, err := os.Stat(filepath.Join(dir, "initdb")); err != nil {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, "postgres")); err != nil {
				continue
			}
			cands = append(cands, cand{dir, parseVersion(e.Name())})
		}
	}
	if len(cands) == 0 {
		return "", ErrNotFound
	}
	sort.Slice(cands, func(i, j int) bool { return versionLess(cands[j].ver, cands[i].ver) })
	return cands[0].dir, nil
}

var digits = regexp.MustCompile(`\d+`)

func parseVersion(s string) []int {
	var v []int
	for _, d := range digits.FindAllString(s, -1) {
		n, _ := strconv.Atoi(d)
		v = append(v, n)
	}
	return v
}

func versionLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// Start initialises dir as a cluster unless it already is one, and starts a
// postmaster on it. When running as root, initdb and postgres run as the
// "postgres" OS user (they refuse to run as root) and dir is chowned to it.
// If a postmaster already runs on dir, Start returns it (Port from its
// postmaster.pid) without starting another.
func Start(ctx context.Context, dir string, opts Options) (*Server, error) {
	bin, err := FindBinDir()
	if err != nil {
		return nil, err
	}
	dir, cred, err := serverdb.OwnDir(dir, "postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{Dir: dir, BinDir: bin, durable: opts.Durable, settings: opts.Settings}
	data := filepath.Join(dir, "data")

	if port, ok := runningPort(data); ok {
		s.Port = port
		if err := s.proc.WaitReady(ctx, postmaster, 30*time.Second, s.ping); err == nil {
			return s, nil
		}
	}

	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		out, err := s.command(cred, "initdb", "-D", data, "-U", "postgres", "-A", "trust",
			"-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("pgtest: initdb %s: %w\n%s", data, err, out)
		}
	}
	if err := serverdb.Listen("pgtest", opts.Port, &s.Port, func() error { return s.start(ctx, cred, data, opts.Detach) }); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, cred *syscall.Credential, data string, detach bool) error {
	logPath := filepath.Join(s.Dir, "postgres.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	defer logf.Close()
	if cred != nil {
		_ = os.Chown(logPath, int(cred.Uid), int(cred.Gid))
	}
	args := []string{"-D", data,
		"-p", strconv.Itoa(s.Port),
		"-c", "listen_addresses=127.0.0.1",
		"-k", s.Dir, // Unix socket in the private dir, never /var/run/postgresql
		"-c", "max_connections=200",
		// Parallel blocks prepare their lanes (two-phase commit: backend/postgres/DESIGN.md, "Lanes").
		"-c", "max_prepared_transactions=64",
		"-c", "logging_collector=off",
	}
	if s.durable {
		args = append(args, "-c", "shared_buffers=256MB")
	} else {
		args = append(args, "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "shared_buffers=32MB") // test data is disposable
	}
	for _, kv := range s.settings {
		args = append(args, "-c", kv)
	}
	cmd := s.command(cred, "postgres", args...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	// Detached, the postmaster is on its own and Stop uses pg_ctl.
	if err := s.proc.Start(ctx, postmaster, cmd, detach, s.ping, logPath); err != nil {
		return fmt.Errorf("port %d: %w", s.Port, err)
	}
	return nil
}

// ping connects to the maintenance database.
func (s *Server) ping(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx)
}

// Stop shuts the postmaster down (fast shutdown) and waits for it. It does
// not remove Dir.
func (s *Server) Stop() error {
	if s.proc.Owned() {
		s.proc.Stop(postmaster)
		return nil
	}
	cred, err := serverdb.Credential("postgres")
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	out, err := s.command(cred, "pg_ctl", "stop", "-D", filepath.Join(s.Dir, "data"), "-m", "fast", "-w").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// StopDir stops a (detached) postmaster running on the cluster in dir.
func StopDir(dir string) error {
	bin, err := FindBinDir()
	if err != nil {
		return err
	}
	s := &Server{Dir: dir, BinDir: bin}
	return s.Stop()
}

// command builds a command for one of the server binaries, run as the
// postgres OS user when this process is root. Setting the credential
// directly (instead of wrapping in runuser) keeps the postmaster our direct
// child, so signals and Pdeathsig reach it.
func (s *Server) command(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	return serverdb.Command(s.Dir, cred, "postgres", filepath.Join(s.BinDir, name), args)
}

// runningPort reports the port of a postmaster whose pid file is in data and
// whose process is alive.
func runningPort(data string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(lines[0]))
	port, err2 := strconv.Atoi(strings.TrimSpace(lines[3]))
	if err1 != nil || err2 != nil {
		return 0, false
	}
	if !serverdb.Alive(pid) {
		return 0, false
	}
	return port, true
}
