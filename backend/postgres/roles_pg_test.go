package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

func TestOpenRefusesSuperuserWithoutUnsafeFlag(t *testing.T) {
	admin := pgtest.AdminDSN(t)
	b, err := postgres.Open(ctx(t), admin)
	if err == nil {
		b.Close()
		t.Fatal("Open as a superuser without WithUnsafeSuperuser succeeded")
	}
	for _, want := range []string{"SUPERUSER", "--unsafe-superuser", "print-pg-setup"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// The writer is fine but the reader named in the DSN is the superuser.
	writer := pgtest.DSN(t)
	withSuperReader := writer + "&" + pgsetup.ParamReader + "=postgres"
	if b, err := postgres.Open(ctx(t), withSuperReader); err == nil || !strings.Contains(err.Error(), "reader role") {
		if b != nil {
			b.Close()
		}
		t.Errorf("Open with a superuser reader: %v, want a refusal naming the reader role", err)
	}
	b, err = postgres.Open(ctx(t), admin, postgres.WithUnsafeSuperuser())
	if err != nil {
		t.Fatalf("Open as a superuser with WithUnsafeSuperuser: %v", err)
	}
	b.Close()
}

// A role that is a member of another role could switch to it (SET ROLE,
// set_config('role', ...)): Open refuses it and names the membership.
func TestOpenRefusesRoleMembership(t *testing.T) {
	dsn := pgtest.DSN(t)
	_, reader := pgsetup.Roles(dbName(t, dsn))
	for _, grant := range []string{"pg_signal_backend", "pg_read_server_files"} {
		pgtest.Exec(t, "GRANT "+grant+" TO "+reader)
		b, err := postgres.Open(ctx(t), dsn)
		if err == nil {
			b.Close()
			t.Fatalf("Open with a reader that is a member of %s succeeded", grant)
		}
		if !strings.Contains(err.Error(), grant) || !strings.Contains(err.Error(), "reader") {
			t.Errorf("error %q does not name the reader's membership in %s", err, grant)
		}
		pgtest.Exec(t, "REVOKE "+grant+" FROM "+reader)
	}
	mustOpen(t, dsn).Close()
}

// A database installed by an older relchain has event triggers only a
// superuser can drop: the writer is refused with directions, and after
// the administrator's setup (Provision) it opens.
func TestOpenRefusesOldEventTriggersUntilMigrated(t *testing.T) {
	admin := pgtest.AdminDSN(t)
	mustOpen(t, admin, postgres.WithUnsafeSuperuser()).Close()
	pgtest.ExecIn(t, admin, `CREATE FUNCTION relchain.on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN END $$;
		CREATE EVENT TRIGGER relchain_on_ddl ON ddl_command_end EXECUTE FUNCTION relchain.on_ddl();
		CREATE TABLE public.old (id int PRIMARY KEY, n serial)`)
	writerDSN, err := pgsetup.Provision(ctx(t), admin)
	if err != nil {
		t.Fatal(err)
	}
	pgtest.ExecIn(t, admin, `CREATE EVENT TRIGGER relchain_on_ddl ON ddl_command_end EXECUTE FUNCTION relchain.on_ddl()`)
	b, err := postgres.Open(ctx(t), writerDSN)
	if err == nil {
		b.Close()
		t.Fatal("Open by the writer of a database with the old event triggers succeeded")
	}
	if !strings.Contains(err.Error(), "relchain_on_ddl") || !strings.Contains(err.Error(), "print-pg-setup") {
		t.Errorf("error %q does not name the event trigger and the fix", err)
	}
	writerDSN, err = pgsetup.Provision(ctx(t), admin)
	if err != nil {
		t.Fatal(err)
	}
	b = mustOpen(t, writerDSN)
	defer b.Close()
	block(t, b, 1, `INSERT INTO old VALUES (1, 1)`, `CREATE TABLE young (id int)`, `INSERT INTO young VALUES (1)`)
	if rows, _, err := b.Query(ctx(t), `SELECT (SELECT count(*) FROM old) + (SELECT count(*) FROM young)`, nil); err != nil || rows.Rows[0][0] != int64(2) {
		t.Fatalf("reading the migrated tables: %v, %v", rows, err)
	}
}

func TestQueryRefusesWritesAndDDL(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`, `INSERT INTO t VALUES (1)`)
	for _, q := range []string{
		`INSERT INTO t VALUES (2)`,
		`WITH d AS (DELETE FROM t RETURNING id) SELECT * FROM d`,
		`UPDATE t SET id = 3`,
		`CREATE TABLE u (id int)`,
		`DROP TABLE t`,
	} {
		_, _, err := b.Query(ctx(t), q, nil)
		if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission || !strings.Contains(e.Message, "read-only") {
			t.Errorf("Query(%q) = %v, want a read-only refusal", q, err)
		}
	}
	if rows, _, err := b.Query(ctx(t), `WITH x AS (SELECT id FROM t) SELECT count(*) FROM x`, nil); err != nil || rows.Rows[0][0] != int64(1) {
		t.Fatalf("WITH ... SELECT: %v, %v", rows, err)
	}
}

func TestQueryBoundsRowsAndBytes(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithQueryLimits(10, 1000), postgres.WithMaxReaders(1))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`,
		`INSERT INTO t SELECT i, rpad('x', 200, 'x') FROM generate_series(1, 20) i`)
	for _, c := range []struct{ q, want string }{
		{`SELECT id FROM t`, "more than 10 rows"},
		{`SELECT v FROM t WHERE id <= 6`, "more than 1000 bytes"},
	} {
		_, _, err := b.Query(ctx(t), c.q, nil)
		if e := backend.AsError(err); e == nil || e.Class != backend.ClassResource || !strings.Contains(e.Message, c.want) {
			t.Errorf("Query(%q) = %v, want a resource error saying %q", c.q, err, c.want)
		}
	}
	// Within the bounds, on the same (replaced) pool connection.
	if rows, _, err := b.Query(ctx(t), `SELECT id FROM t WHERE id <= 10`, nil); err != nil || len(rows.Rows) != 10 {
		t.Fatalf("10 rows: %v, %v", rows, err)
	}
}

// A block statement whose context ends (the app's deadline on a proposal's
// speculative execution) returns promptly with an error wrapping the
// context's; the block rolls back and the next one runs on the writer.
func TestExecReturnsOnDeadlineAndWriterStaysUsable(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithoutGate()) // the gate refuses unbounded series
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx(t), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := blk.Exec(dctx, `SELECT count(*) FROM generate_series(1, 10000000000)`, nil)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Exec did not return after its deadline")
	}
	if !errors.Is(err, context.DeadlineExceeded) || backend.AsError(err) != nil {
		t.Fatalf("Exec past its deadline = %v, want a node fault wrapping context.DeadlineExceeded", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback after the deadline: %v", err)
	}
	block(t, b, 2, `INSERT INTO t VALUES (1)`)
}

// A hostile reader running a long query does not delay blocks: they run
// on the writer's own connection while the query is still running.
func TestLongReadDoesNotDelayBlocks(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithoutGate(), postgres.WithQueryTimeout(time.Minute))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`)
	readCtx, stopRead := context.WithCancel(context.Background())
	defer stopRead()
	readDone := make(chan error, 1)
	go func() {
		_, _, err := b.Query(readCtx, `SELECT pg_sleep(41), count(*) FROM t`, nil)
		readDone <- err
	}()
	// the blocks only once the read runs on the server, not before it starts
	deadline := time.Now().Add(20 * time.Second)
	for activeQueries(t, "%pg_sleep(41)%") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the read is not running on the server after 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for h := int64(2); h <= 5; h++ {
		block(t, b, h, `INSERT INTO t VALUES (`+string(rune('0'+h))+`)`)
	}
	select {
	case err := <-readDone:
		t.Fatalf("the read finished (%v) before the blocks: it was not running beside them", err)
	default:
	}
	stopRead()
	select {
	case err := <-readDone:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the read, cancelled after the blocks: %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the read did not end when cancelled")
	}
}

// ChangeDigest and StateDigest, like Exec, return promptly when their
// context ends, with an error wrapping the context's.
func TestDigestsReturnOnDeadline(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithoutGate())
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), `INSERT INTO t SELECT i, md5(i::text) FROM generate_series(1, 300000) i`, nil); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx(t), 20*time.Millisecond)
	defer cancel()
	_, err = blk.ChangeDigest(dctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ChangeDigest past its deadline = %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback after the deadline: %v", err)
	}
	block(t, b, 2, `INSERT INTO t VALUES (1, 'x')`)
}
