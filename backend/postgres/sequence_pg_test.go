package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// seqTx is one bc-transaction of a seqBlock: its statements, and whether
// the last one is expected to fail (then the tx is rolled back to its
// savepoint, as the executor does).
type seqTx struct {
	stmts []string
	fails bool
}

// seqBlock runs txs as the executor runs a block (a savepoint per tx,
// RollbackTo on failure) and returns the rows of every statement that
// succeeded, in order, and the block's state digest. With commit false the
// block is rolled back at the end, as a speculated block that lost, or a
// rehearsal, is.
func seqBlock(t *testing.T, b backend.Backend, height int64, commit bool, txs ...seqTx) ([]string, []byte) {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, tx := range txs {
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
			t.Fatal(err)
		}
		failed := false
		for j, s := range tx.stmts {
			rows, err := blk.Exec(ctx(t), s, nil)
			if err != nil {
				if !tx.fails || j != len(tx.stmts)-1 || backend.AsError(err) == nil {
					blk.Rollback(ctx(t))
					t.Fatalf("tx %d: %s: %v", i, s, err)
				}
				failed = true
				out = append(out, "error "+backend.AsError(err).SQLState)
				break
			}
			out = append(out, fmt.Sprint(rows.Rows))
		}
		if tx.fails && !failed {
			blk.Rollback(ctx(t))
			t.Fatalf("tx %d succeeded; want its last statement to fail", i)
		}
		if failed {
			err = blk.RollbackTo(ctx(t))
		} else {
			err = blk.Release(ctx(t))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	digest, err := blk.StateDigest(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !commit {
		if err := blk.Rollback(ctx(t)); err != nil {
			t.Fatal(err)
		}
		return out, digest
	}
	if err := blk.Commit(ctx(t), backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
		t.Fatal(err)
	}
	return out, digest
}

func ok(stmts ...string) seqTx   { return seqTx{stmts: stmts} }
func fail(stmts ...string) seqTx { return seqTx{stmts: stmts, fails: true} }

// TestSerialIsTransactional (issue 33): a serial column's values come
// from relchain.sequences, so a failed tx's nextval is rolled back with its
// savepoint, a rolled-back block's with the block; currval is the value
// last returned in the same bc-transaction; pg_get_serial_sequence, setval
// and DROP TABLE behave as on PostgreSQL.
func TestSerialIsTransactional(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	seqBlock(t, b, 1, true, ok(`CREATE TABLE t (id serial PRIMARY KEY, v text UNIQUE)`))
	got, _ := seqBlock(t, b, 2, true,
		ok(`INSERT INTO t (v) VALUES ('a') RETURNING id`),
		// The tx takes 2, then fails: 2 goes back.
		fail(`INSERT INTO t (v) VALUES ('b') RETURNING id`, `INSERT INTO t (v) VALUES ('a')`),
		ok(`INSERT INTO t (v) VALUES ('c') RETURNING id`, `SELECT currval('t_id_seq')`, `SELECT lastval()`),
		fail(`SELECT currval('t_id_seq')`),
		ok(`SELECT pg_get_serial_sequence('t', 'id')`, `SELECT setval('t_id_seq', 10)`,
			`INSERT INTO t (v) VALUES ('d') RETURNING id`, `INSERT INTO t (id, v) VALUES (100, 'e') RETURNING id`),
		ok(`INSERT INTO t (v) VALUES ('f'), ('g') RETURNING id`),
	)
	want := []string{"[[1]]", "[[2]]", "error 23505", "[[2]]", "[[2]]", "[[2]]", "error 55000",
		"[[public.t_id_seq]]", "[[10]]", "[[11]]", "[[100]]", "[[12] [13]]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("block 2 gave\n%v\nwant\n%v", got, want)
	}
	// A block that takes 14 and 15 and is rolled back (a speculation that
	// lost, a rehearsal) leaves nothing behind.
	seqBlock(t, b, 3, false, ok(`INSERT INTO t (v) VALUES ('x'), ('y') RETURNING id`))
	got, _ = seqBlock(t, b, 3, true, ok(`INSERT INTO t (v) VALUES ('h') RETURNING id`))
	if fmt.Sprint(got) != "[[[14]]]" {
		t.Fatalf("after a rolled-back block: %v, want [[[14]]]", got)
	}
	// Rows read from a table, numbered by a default in their read order,
	// would get different ids on different nodes: refused, whatever the
	// order; rows of VALUES or generate_series are numbered in their order.
	got, _ = seqBlock(t, b, 4, true,
		fail(`INSERT INTO t (v) SELECT v || 'x' FROM t`),
		fail(`INSERT INTO t SELECT FROM t`),
		fail(`UPDATE t SET id = DEFAULT WHERE v = 'a'`),
		ok(`INSERT INTO t (id, v) SELECT id + 1000, v || 'x' FROM t WHERE id < 3 RETURNING id`),
		ok(`INSERT INTO t (v) SELECT 'g' || i FROM generate_series(1, 2) AS i RETURNING id, v`),
		// Nor may a routine take a sequence's values: a row trigger of a
		// multi-row statement, a function called per row, runs in each
		// node's own row order.
		ok(`CREATE TABLE src (k int PRIMARY KEY, v text)`, `INSERT INTO src VALUES (1, 'p'), (2, 'q')`,
			`CREATE FUNCTION public.log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO t (v) VALUES (NEW.v); RETURN NULL; END $$`,
			`CREATE TRIGGER src_log AFTER UPDATE ON src FOR EACH ROW EXECUTE FUNCTION public.log()`,
			`CREATE FUNCTION public.add(x text) RETURNS void LANGUAGE sql AS $$ INSERT INTO t (v) VALUES (x) $$`),
		fail(`UPDATE src SET k = k + 10`),
		fail(`SELECT public.add('r')`),
	)
	want = []string{"error 42501", "error 42501", "error 42501", "[[1001] [1002]]", "[[15 g1] [16 g2]]",
		"[]", "[]", "[]", "[]", "[]", "error 0A000", "error 0A000"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("block 4 gave\n%v\nwant\n%v", got, want)
	}
	// Introspection through the read path: the default names relchain's
	// nextval and the sequence PostgreSQL would.
	rows, _, err := b.Query(ctx(t), `SELECT column_default, is_nullable FROM information_schema.columns WHERE table_name = 't' AND column_name = 'id'`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprint(rows.Rows); s != "[[relchain.nextval('t_id_seq'::regclass) NO]]" {
		t.Errorf("information_schema.columns: %s", s)
	}
	// Django's sequence reset, then DROP TABLE drops the owned sequence
	// and its state.
	got, _ = seqBlock(t, b, 5, true,
		ok(`SELECT setval(pg_get_serial_sequence('"t"','id'), coalesce(max("id"), 1), max("id") IS NOT null) FROM "t"`,
			`INSERT INTO t (v) VALUES ('after reset') RETURNING id`),
		ok(`DROP TABLE t`))
	if fmt.Sprint(got) != "[[[1002]] [[1003]] []]" {
		t.Fatalf("block 5 gave %v", got)
	}
	if n := sequenceRows(t, dsn); n != 0 {
		t.Errorf("%d rows left in relchain.sequences after DROP TABLE", n)
	}
}

// sequenceRows counts relchain.sequences' rows.
func sequenceRows(t *testing.T, dsn string) int {
	c, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx(t))
	var n int
	if err := c.QueryRow(ctx(t), `SELECT count(*) FROM relchain.sequences`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSequencesAgreeWhateverARunHasSeen (issue 33): two backends given the
// same blocks return the same ids and state digests although one of them
// also ran failed txs, rehearsals and speculated blocks that were rolled
// back; and a sequence's state is in the digest (a setval alone changes
// it).
func TestSequencesAgreeWhateverARunHasSeen(t *testing.T) {
	a, b := mustOpen(t, pgtest.DSN(t)), mustOpen(t, pgtest.DSN(t))
	defer a.Close()
	defer b.Close()
	schema := []seqTx{
		ok(`CREATE TABLE t (id bigserial PRIMARY KEY, v text)`),
		ok(`CREATE TABLE u (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n int)`),
		ok(`CREATE SEQUENCE s INCREMENT BY 5 START WITH 100 MAXVALUE 111 CYCLE MINVALUE 3`),
		ok(`CREATE TABLE w (k int PRIMARY KEY DEFAULT nextval('s'), v text)`),
	}
	_, da := seqBlock(t, a, 1, true, schema...)
	_, db := seqBlock(t, b, 1, true, schema...)
	if !bytes.Equal(da, db) {
		t.Fatal("state digests differ after the schema block")
	}
	// Only a: a speculated block, a rehearsal, both rolled back.
	seqBlock(t, a, 2, false, ok(`INSERT INTO t (v) VALUES ('spec') RETURNING id`, `SELECT nextval('s')`),
		ok(`INSERT INTO u (n) VALUES (1), (2) RETURNING id`))
	seqBlock(t, a, 2, false, ok(`INSERT INTO w (v) VALUES ('rehearsal') RETURNING k`, `SELECT setval('t_id_seq', 1000)`))
	blocks := [][]seqTx{
		{ok(`INSERT INTO t (v) VALUES ('a') RETURNING id`), fail(`INSERT INTO u (n) VALUES (1) RETURNING id`, `INSERT INTO u (id, n) VALUES (1, 9)`),
			ok(`INSERT INTO u (n) VALUES (2) RETURNING id`), ok(`INSERT INTO w (v) VALUES ('x'), ('y'), ('z') RETURNING k`)},
		{ok(`INSERT INTO w (v) VALUES ('cycle') RETURNING k`), ok(`SELECT setval('s', 50, false)`), ok(`INSERT INTO w (v) VALUES ('after setval') RETURNING k`)},
		{ok(`SELECT setval('t_id_seq', 7)`)},
		{ok(`ALTER SEQUENCE s INCREMENT BY 1`), ok(`INSERT INTO w (v) VALUES ('altered') RETURNING k`), ok(`DROP TABLE u`)},
		{fail(`ALTER SEQUENCE s RESTART WITH 90`, `SELECT 1/0`), ok(`ALTER SEQUENCE s RESTART WITH 20`),
			ok(`INSERT INTO w (v) VALUES ('restarted') RETURNING k`), ok(`ALTER SEQUENCE IF EXISTS nosuch RESTART`),
			ok(`ALTER SEQUENCE t_id_seq START 100 RESTART`, `INSERT INTO t (v) VALUES ('restarted') RETURNING id`)},
	}
	var prev []byte
	for i, blk := range blocks {
		h := int64(i + 2)
		if i == 1 {
			// Only a: a failed tx in a speculated block.
			seqBlock(t, a, h, false, fail(`INSERT INTO w (v) VALUES ('spec') RETURNING k`, `SELECT 1/0`))
		}
		ra, da := seqBlock(t, a, h, true, blk...)
		rb, db := seqBlock(t, b, h, true, blk...)
		if fmt.Sprint(ra) != fmt.Sprint(rb) || !bytes.Equal(da, db) {
			t.Fatalf("block %d: results %v and %v, digests equal: %v", h, ra, rb, bytes.Equal(da, db))
		}
		if bytes.Equal(da, prev) {
			t.Errorf("block %d did not change the state digest", h)
		}
		prev = da
		t.Logf("block %d: %v", h, ra)
		if i == 0 && fmt.Sprint(ra) != "[[[1]] [[1]] error 23505 [[1]] [[100] [105] [110]]]" {
			t.Errorf("block 2 gave %v", ra)
		}
		if i == 1 && fmt.Sprint(ra) != "[[[3]] [[50]] [[50]]]" {
			t.Errorf("block 3 gave %v", ra)
		}
		if i == 4 && fmt.Sprint(ra) != "[[] error 22012 [] [[20]] [] [] [[100]]]" {
			t.Errorf("block 6 gave %v", ra)
		}
	}
	// The stored sums are the scanned ones (relchain verify).
	for _, be := range []backend.Backend{a, b} {
		sr := be.(backend.StateReader)
		stored, _, err := sr.StoredState(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		scanned, _, err := sr.ScanState(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stored.Digest(), scanned.Digest()) {
			t.Fatalf("stored and scanned state differ")
		}
		if _, ok := stored["relchain.sequences"]; !ok {
			t.Fatalf("relchain.sequences is not in the state digest: %v", stored)
		}
	}
}

// BenchmarkSerialInsert measures a one-row insert tx in a block with the
// id from a serial column (relchain.nextval) against an explicit id.
func BenchmarkSerialInsert(b *testing.B) {
	for _, c := range []struct{ name, ddl, insert string }{
		{"explicit", `CREATE TABLE t (id bigint PRIMARY KEY, v text)`, `INSERT INTO t (id, v) VALUES ($1, 'x')`},
		{"serial", `CREATE TABLE t (id bigserial PRIMARY KEY, v text)`, `INSERT INTO t (v) VALUES ('x')`},
		{"serial returning", `CREATE TABLE t (id bigserial PRIMARY KEY, v text)`, `INSERT INTO t (v) VALUES ('x') RETURNING id`},
	} {
		b.Run(c.name, func(b *testing.B) {
			be := mustOpen(b, pgtest.DSN(b))
			defer be.Close()
			block(b, be, 1, c.ddl)
			blk, err := be.Begin(ctx(b))
			if err != nil {
				b.Fatal(err)
			}
			defer blk.Rollback(ctx(b))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := blk.Savepoint(ctx(b), sqlcheck.Env{Tx: i}); err != nil {
					b.Fatal(err)
				}
				var args []any
				if c.name == "explicit" {
					args = []any{int64(i)}
				}
				if _, err := blk.Exec(ctx(b), c.insert, args); err != nil {
					b.Fatal(err)
				}
				if err := blk.Release(ctx(b)); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := blk.ChangeDigest(ctx(b)); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// TestSequencesSurviveACheckpoint (issue 33): a checkpoint (pg_dump of the
// database) restored into a new database carries every sequence's state:
// the restored node and the one it came from give the next block the same
// ids and state digest.
func TestSequencesSurviveACheckpoint(t *testing.T) {
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	a := mustOpen(t, dsn)
	defer a.Close()
	seqBlock(t, a, 1, true, ok(`CREATE TABLE t (id serial PRIMARY KEY, v text)`, `CREATE SEQUENCE s START 7`))
	seqBlock(t, a, 2, true, ok(`INSERT INTO t (v) VALUES ('a'), ('b') RETURNING id`), ok(`SELECT setval('t_id_seq', 40)`),
		ok(`SELECT nextval('s')`))
	// A second Backend on the database takes the checkpoint (as
	// restoreForTest does): one checkpoint, of block 3.
	ck := mustOpen(t, dsn, postgres.WithCheckpoints(dir, 1, 1, func(err error) { t.Errorf("checkpoint: %v", err) }))
	cp := backendtest.CheckpointEmptyBlock(t, ck, 3, func() ([]backend.Checkpoint, error) { return postgres.Checkpoints(dir) })
	ck.Close()
	live, err := postgres.DatabaseName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	staged := live + "_restored"
	rdsn, err := postgres.RestoreCheckpoint(ctx(t), dsn, cp, staged)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = postgres.DropDatabase(context.Background(), dsn, staged) })
	b := mustOpen(t, rdsn)
	defer b.Close()
	next := []seqTx{ok(`INSERT INTO t (v) VALUES ('c') RETURNING id`, `SELECT nextval('s')`)}
	ra, da := seqBlock(t, a, 4, true, next...)
	rb, db := seqBlock(t, b, 4, true, next...)
	if fmt.Sprint(ra) != "[[[41]] [[8]]]" || fmt.Sprint(rb) != fmt.Sprint(ra) || !bytes.Equal(da, db) {
		t.Fatalf("after the checkpoint: %v and restored %v, digests equal: %v", ra, rb, bytes.Equal(da, db))
	}
}

// TestDumpCarriesSequences (issue 33): relchain dump writes sequences as
// PostgreSQL's own at their replicated state, and serial defaults as
// nextval: the dump runs on a plain PostgreSQL, which goes on numbering
// where the chain left off.
func TestDumpCarriesSequences(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	seqBlock(t, b, 1, true, ok(`CREATE TABLE t (id serial PRIMARY KEY, v text)`, `CREATE SEQUENCE s INCREMENT BY 10 START 5 CYCLE MAXVALUE 1000`))
	seqBlock(t, b, 2, true, ok(`INSERT INTO t (v) VALUES ('a'), ('b'), ('c')`, `SELECT nextval('s')`), fail(`INSERT INTO t (v) VALUES ('d')`, `SELECT 1/0`))
	var out bytes.Buffer
	if _, err := postgres.Dump(ctx(t), dsn, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "relchain.") {
		t.Fatalf("dump names relchain's objects:\n%s", out.String())
	}
	dst, err := pgx.Connect(ctx(t), pgtest.AdminDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close(context.Background())
	if _, err := dst.PgConn().Exec(ctx(t), out.String()).ReadAll(); err != nil {
		t.Fatalf("run the dump: %v\n%s", err, out.String())
	}
	var id, next int64
	var seq string
	if err := dst.QueryRow(ctx(t), `INSERT INTO t (v) VALUES ('e') RETURNING id, nextval('s'), pg_get_serial_sequence('t', 'id')`).Scan(&id, &next, &seq); err != nil {
		t.Fatal(err)
	}
	if id != 4 || next != 15 || seq != "public.t_id_seq" {
		t.Fatalf("on the restored dump: id %d, nextval('s') %d, sequence %q; want 4, 15, public.t_id_seq\n%s", id, next, seq, out.String())
	}
}
