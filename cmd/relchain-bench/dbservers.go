package main

// The only file of the lab that starts database servers: `paper`'s
// --postgres auto and --mysql auto start private, durable servers with the
// test-database launchers.

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// paperPostgres returns the DSN template for PostgreSQL points ("" to skip
// them) and a function that stops the private server it started, if any.
func paperPostgres(ctx context.Context, mode, dir string) (string, func(), error) {
	switch mode {
	case "off", "":
		return "", func() {}, nil
	case "auto":
		if _, err := pgtest.FindBinDir(); err != nil {
			fmt.Fprintln(os.Stderr, "PostgreSQL is not installed here: skipping its points (install it, or pass --postgres DSN-TEMPLATE)")
			return "", func() {}, nil
		}
		// PostgreSQL refuses to run as root, so pgtest runs it as the
		// "postgres" user, which must be able to reach its directory.
		if err := os.Chmod(dir, 0o755); err != nil {
			return "", nil, err
		}
		pgdir := filepath.Join(dir, "postgres")
		if err := os.MkdirAll(pgdir, 0o755); err != nil {
			return "", nil, err
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		s, err := pgtest.Start(sctx, pgdir, pgtest.Options{Durable: true})
		if err != nil {
			return "", nil, fmt.Errorf("start a private PostgreSQL for the benchmark: %w", err)
		}
		fmt.Fprintf(os.Stderr, "private PostgreSQL (durable) on port %d\n", s.Port)
		u, err := url.Parse(s.DSN())
		if err != nil {
			return "", nil, err
		}
		u.Path = "/paper_NODE"
		return strings.Replace(u.String(), "NODE", "{node}", 1), func() { _ = s.Stop() }, nil
	}
	if !strings.Contains(mode, "{node}") {
		return "", nil, fmt.Errorf("--postgres %q: want auto, off or a DSN template containing {node}", mode)
	}
	return mode, func() {}, nil
}

// paperMySQL returns the DSN template for MySQL points ("" to skip them)
// and a function that stops the private MariaDB it started, if any.
func paperMySQL(ctx context.Context, mode, dir string) (string, func(), error) {
	switch mode {
	case "off", "":
		return "", func() {}, nil
	case "auto":
		if _, _, err := mysqltest.FindBinaries(); err != nil {
			fmt.Fprintln(os.Stderr, "MariaDB is not installed here: skipping the MySQL points (install mariadb-server, or pass --mysql DSN-TEMPLATE)")
			return "", func() {}, nil
		}
		// As root, mysqltest runs mariadbd as the "mysql" user, which
		// must be able to reach its directory.
		if err := os.Chmod(dir, 0o755); err != nil {
			return "", nil, err
		}
		mydir := filepath.Join(dir, "mysql")
		if err := os.MkdirAll(mydir, 0o755); err != nil {
			return "", nil, err
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		s, err := mysqltest.Start(sctx, mydir, mysqltest.Options{})
		if err != nil {
			return "", nil, fmt.Errorf("start a private MariaDB for the benchmark: %w", err)
		}
		fmt.Fprintf(os.Stderr, "private MariaDB (durable) on port %d\n", s.Port)
		return strings.TrimSuffix(s.DSN(), "/") + "/paper_{node}", func() { _ = s.Stop() }, nil
	}
	if !strings.Contains(mode, "{node}") {
		return "", nil, fmt.Errorf("--mysql %q: want auto, off or a DSN template containing {node}", mode)
	}
	return mode, func() {}, nil
}

// replicatedPostgres starts, in a new directory under dir, a durable private
// PostgreSQL primary with n hot standbys made synchronous with
// synchronous_commit = remote_apply (a commit returns once every standby
// has applied it: the paper's Fig. 12 baseline, PostgreSQL's own
// replication in place of Citus), and returns a DSN of a fresh database on
// the primary and a function that stops all of them.
func replicatedPostgres(ctx context.Context, dir string, n int) (string, func(), error) {
	if _, err := pgtest.FindBinDir(); err != nil {
		return "", nil, fmt.Errorf("--baseline-replicas: %w", err)
	}
	// A directory of its own each time (a lab run may start several),
	// removed with the servers; they run as the postgres user, which must
	// reach it.
	root, err := os.MkdirTemp(dir, "replicated-")
	if err != nil {
		return "", nil, err
	}
	for _, d := range []string{dir, root} {
		if err := os.Chmod(d, 0o755); err != nil {
			return "", nil, err
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	primary, err := pgtest.Start(sctx, filepath.Join(root, "primary"), pgtest.Options{Durable: true})
	if err != nil {
		return "", nil, fmt.Errorf("start the replicated baseline's primary: %w", err)
	}
	servers := []*pgtest.Server{primary}
	stop := func() {
		for i := len(servers) - 1; i >= 0; i-- {
			_ = servers[i].Stop()
		}
		_ = os.RemoveAll(root)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("standby%d", i+1)
		s, err := pgtest.StartStandby(sctx, filepath.Join(root, names[i]), primary, names[i])
		if err != nil {
			stop()
			return "", nil, err
		}
		servers = append(servers, s)
	}
	if err := pgtest.Synchronous(sctx, primary, "remote_apply", names...); err != nil {
		stop()
		return "", nil, err
	}
	fmt.Fprintf(os.Stderr, "baseline: PostgreSQL primary on port %d with %d synchronous standbys (remote_apply)\n", primary.Port, n)
	u, err := url.Parse(primary.DSN())
	if err != nil {
		stop()
		return "", nil, err
	}
	u.Path = fmt.Sprintf("/replicated_%d", time.Now().UnixNano())
	q := u.Query()
	q.Set("synchronous_commit", "remote_apply")
	u.RawQuery = q.Encode()
	return u.String(), stop, nil
}
