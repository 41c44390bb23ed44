package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/internal/serverdb"
)

// StartStandby makes dir a hot standby of primary (pg_basebackup, then
// streaming replication as application name) and starts it. The standby
// has the primary's durability and Settings. Make it synchronous with
// Synchronous.
func StartStandby(ctx context.Context, dir string, primary *Server, name string) (*Server, error) {
	dir, cred, err := serverdb.OwnDir(dir, "postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{Dir: dir, BinDir: primary.BinDir, durable: primary.durable, settings: primary.settings}
	data := filepath.Join(dir, "data")
	conninfo := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres application_name=%s", primary.Port, name)
	out, err := s.command(cred, "pg_basebackup", "-D", data, "-d", conninfo, "-X", "stream", "-R", "--no-sync").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("pgtest: pg_basebackup of standby %s: %w\n%s", name, err, out)
	}
	// -R writes primary_conninfo and standby.signal; name it explicitly,
	// since synchronous_standby_names matches on application_name.
	auto := filepath.Join(data, "postgresql.auto.conf")
	f, err := os.OpenFile(auto, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("pgtest: standby %s: %w", name, err)
	}
	_, err = fmt.Fprintf(f, "primary_conninfo = '%s'\n", conninfo)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("pgtest: standby %s: %w", name, err)
	}
	if err := serverdb.Listen("pgtest", 0, &s.Port, func() error { return s.start(ctx, cred, data, false) }); err != nil {
		return nil, err
	}
	return s, nil
}

// Synchronous makes the named standbys synchronous for every commit on
// primary (FIRST n of them, with synchronous_commit = level, e.g.
// "remote_apply": a commit returns once every standby has applied it) and
// waits until all of them stream as synchronous standbys.
func Synchronous(ctx context.Context, primary *Server, level string, names ...string) error {
	conn, err := pgx.Connect(ctx, primary.DSN())
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	list := fmt.Sprintf("FIRST %d (%s)", len(names), strings.Join(names, ", "))
	for _, q := range []string{
		fmt.Sprintf("ALTER SYSTEM SET synchronous_standby_names = '%s'", list),
		fmt.Sprintf("ALTER SYSTEM SET synchronous_commit = '%s'", level),
		"SELECT pg_reload_conf()",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("pgtest: %s: %w", q, err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'").Scan(&n)
		if err != nil {
			return fmt.Errorf("pgtest: read pg_stat_replication: %w", err)
		}
		if n == len(names) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgtest: %d of %d standbys streaming synchronously after a minute", n, len(names))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
