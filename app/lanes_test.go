package app_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// laneBlocks is a seeded stream of blocks for the serial-versus-parallel
// test: many txs per block over keyed accounts (mostly on distinct keys,
// so that blocks split into groups, some on the same key), with failures
// (a CHECK, duplicate keys, a foreign key), a serial
// column, a second UNIQUE key, upserts, reads, locking reads, table-wide
// statements, key values given as text, wallets found only through their
// owner's unique name (a lookup subquery, a join, a correlated SET
// subquery; now and then a rename moves a name), and now and then a
// schema change or a statement on a missing table (either runs the block
// serially).
//
// mariadb gives the variant for MariaDB's postgres dialect, which refuses
// SERIAL, foreign keys and keys of unbounded length, and runs DDL alone in
// its block: ledger's id is a plain key with a default (so a second
// insert of a block's stream fails on a duplicate key), child.pid
// references nothing, kv's and uq's keys are varchar(64), and each table
// is created in a block of its own.
func laneBlocks(r *rand.Rand, blocks int, sign func(...txn.Statement) []byte, mariadb bool) [][][]byte {
	ledger, child := "CREATE TABLE ledger (id SERIAL PRIMARY KEY, acct BIGINT NOT NULL, amount BIGINT NOT NULL)",
		"CREATE TABLE child (id INT PRIMARY KEY, pid INT REFERENCES parent (id))"
	text := "TEXT"
	if mariadb {
		ledger, child = "CREATE TABLE ledger (id BIGINT NOT NULL DEFAULT 0 PRIMARY KEY, acct BIGINT NOT NULL, amount BIGINT NOT NULL)",
			"CREATE TABLE child (id INT PRIMARY KEY, pid INT)"
		text = "VARCHAR(64)"
	}
	setup := [][]byte{
		sign(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL CHECK (bal >= 0), note TEXT)")),
		sign(stmt(ledger)),
		sign(stmt("CREATE TABLE kv (k " + text + " PRIMARY KEY, v BIGINT NOT NULL)")),
		sign(stmt("CREATE TABLE parent (id INT PRIMARY KEY)")),
		sign(stmt(child)),
		sign(stmt("CREATE TABLE uq (id INT PRIMARY KEY, email " + text + " UNIQUE)")),
		sign(stmt("CREATE TABLE owner (id BIGINT PRIMARY KEY, name " + text + " NOT NULL UNIQUE)")),
		sign(stmt("CREATE TABLE wallet (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL, note " + text + ")")),
	}
	out := [][][]byte{setup}
	if mariadb {
		out = nil
		for _, tx := range setup {
			out = append(out, [][]byte{tx})
		}
	}
	blocks += len(out) - 1
	var rows, owners, wallets []string
	for id := range 120 {
		rows = append(rows, fmt.Sprintf("(%d, 100)", id))
		owners = append(owners, fmt.Sprintf("(%d, 'o%d')", id, id))
		wallets = append(wallets, fmt.Sprintf("(%d, 0)", id))
	}
	out = append(out, [][]byte{
		sign(stmt("INSERT INTO acct (id, bal) VALUES " + strings.Join(rows, ", "))),
		sign(stmt("INSERT INTO owner (id, name) VALUES " + strings.Join(owners, ", "))),
		sign(stmt("INSERT INTO wallet (id, bal) VALUES " + strings.Join(wallets, ", "))),
		sign(stmt("INSERT INTO parent (id) VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)")),
	})
	acct := func() int64 { return int64(r.IntN(120)) }
	for b := len(out); b < blocks; b++ {
		var txs [][]byte
		for range 16 + r.IntN(24) {
			txs = append(txs, sign(laneTx(r, acct)...))
		}
		switch {
		case b%3 != 1: // two blocks of three may run on lanes
		case r.IntN(2) == 0: // a schema change: the block runs serially
			txs = append(txs, sign(stmt(fmt.Sprintf("ALTER TABLE acct ADD COLUMN c%d BIGINT DEFAULT %d", b, b))))
		default: // a statement on no known table: likewise
			txs = append(txs, sign(stmt("INSERT INTO nowhere (id) VALUES (1)")))
		}
		out = append(out, txs)
	}
	return out
}

// laneTx is one random tx of laneBlocks.
func laneTx(r *rand.Rand, acct func() int64) []txn.Statement {
	owner := func() txn.Arg { return txn.Text(fmt.Sprintf("o%d", acct())) }
	switch k := r.IntN(24); {
	case k == 20: // wallets are found by their owner's unique name only (Smallbank)
		return []txn.Statement{stmt("UPDATE wallet SET bal = bal + $1 WHERE id = (SELECT id FROM owner WHERE name = $2)", txn.Int(int64(r.IntN(9))), owner())}
	case k == 21:
		return []txn.Statement{stmt("SELECT o.id, w.bal, w.note FROM owner o JOIN wallet w ON w.id = o.id WHERE o.name = $1", owner())}
	case k == 22:
		return []txn.Statement{stmt("UPDATE wallet SET note = (SELECT o.name FROM owner o WHERE o.id = wallet.id) WHERE id = (SELECT id FROM owner WHERE name = $1)", owner())}
	case k == 23 && r.IntN(4) == 0: // a rename moves a name to another key (or fails on a taken one)
		return []txn.Statement{stmt("UPDATE owner SET name = $1 WHERE id = $2", owner(), txn.Int(acct()))}
	case k < 8: // a transfer; fails when the balance would go below 0
		amt := txn.Int(int64(r.IntN(80)))
		return []txn.Statement{
			stmt("UPDATE acct SET bal = bal - $1 WHERE id = $2", amt, txn.Int(acct())),
			stmt("UPDATE acct SET bal = bal + $1 WHERE id = $2", amt, txn.Int(acct())),
		}
	case k < 10:
		return []txn.Statement{stmt("SELECT id, bal, note FROM acct WHERE id = $1", txn.Int(acct()))}
	case k < 11: // the key as text: pinned when it is a plain integer
		id := strconv.FormatInt(acct(), 10)
		if r.IntN(2) == 0 {
			id = " " + id
		}
		return []txn.Statement{stmt("UPDATE acct SET note = coalesce(note, '') || 'x' WHERE id = $1", txn.Text(id))}
	case k < 12:
		return []txn.Statement{stmt("INSERT INTO kv (k, v) VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET v = kv.v + 1",
			txn.Text(fmt.Sprintf("k%d", r.IntN(30))))}
	case k < 13:
		return []txn.Statement{stmt("INSERT INTO ledger (acct, amount) VALUES ($1, $2) RETURNING id", txn.Int(acct()), txn.Int(int64(r.IntN(9))))}
	case k < 14: // a duplicate key fails
		return []txn.Statement{stmt("INSERT INTO acct (id, bal) VALUES ($1, 5)", txn.Int(acct()+int64(r.IntN(2))*1000))}
	case k < 15: // the second UNIQUE key
		return []txn.Statement{stmt("INSERT INTO uq (id, email) VALUES ($1, $2)", txn.Int(int64(r.IntN(1000))), txn.Text(fmt.Sprintf("e%d", r.IntN(6))))}
	case k < 16: // a foreign key: a missing parent fails, a deleted one may
		if r.IntN(3) == 0 {
			return []txn.Statement{stmt("DELETE FROM parent WHERE id = $1", txn.Int(int64(r.IntN(12))))}
		}
		return []txn.Statement{stmt("INSERT INTO child (id, pid) VALUES ($1, $2)", txn.Int(int64(r.IntN(1000))), txn.Int(int64(r.IntN(12))))}
	case k < 17:
		return []txn.Statement{stmt("SELECT bal FROM acct WHERE id = $1 FOR UPDATE", txn.Int(acct())),
			stmt("UPDATE acct SET bal = bal + 1 WHERE id = $1", txn.Int(acct()))}
	case k < 18:
		return []txn.Statement{stmt("SELECT count(*), sum(bal) FROM acct WHERE bal > $1", txn.Int(int64(r.IntN(150))))}
	default:
		return []txn.Statement{stmt("UPDATE acct SET bal = bal + 1 WHERE id IN ($1, $2)", txn.Int(acct()), txn.Int(acct()))}
	}
}

// laneSeed is the stream's seed: RELCHAIN_LANES_SEED replays one.
func laneSeed(t *testing.T) uint64 {
	if s := os.Getenv("RELCHAIN_LANES_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("RELCHAIN_LANES_SEED=%q: %v", s, err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

// The metamorphic test of parallel execution (issue 38): one random
// stream of blocks through a serial executor and through executors on 2,
// 4 and 8 lanes, each on its own database, at protocol versions 1 (the
// engine's own digests), 4 (the authenticated state) and 5 (canonical
// digests, sequences included): every tx's result (code, data, log,
// effect digest) and every AppHash are the same, and the parallel
// executors did run blocks on lanes.
func TestParallelExecutionMatchesSerial(t *testing.T) {
	racetest.Heavy(t) // 3 versions x 4 executors x 9 blocks; TestLanesUnderTheRaceDetector is its race run
	seed := laneSeed(t)
	t.Logf("seed %d (RELCHAIN_LANES_SEED=%d replays it)", seed, seed)
	for _, v := range []uint64{protocol.V1, protocol.V4, protocol.V5} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			parallelMatchesSerial(t, seed, laneParams(v), 9, []int{2, 4, 8})
		})
	}
}

// TestLanesUnderTheRaceDetector is a short run of the metamorphic test,
// for the race detector (CI runs the unit packages under it): the lanes
// run concurrently.
func TestLanesUnderTheRaceDetector(t *testing.T) {
	seed := laneSeed(t)
	t.Logf("seed %d (RELCHAIN_LANES_SEED=%d replays it)", seed, seed)
	parallelMatchesSerial(t, seed, laneParams(protocol.V4), 6, []int{4})
}

// laneParams are the genesis parameters of the metamorphic test at
// protocol version v.
func laneParams(v uint64) app.Params {
	p := app.DefaultParams()
	p.ProtocolVersion = v
	if v >= protocol.V5 {
		p.SQLDialect = "postgres"
	}
	return p
}

func parallelMatchesSerial(t *testing.T, seed uint64, p app.Params, nblocks int, lanes []int) {
	parallelMatchesSerialOn(t, func() store { return storeNamed(t, "postgres") }, false, seed, p, nblocks, lanes)
}

// parallelMatchesSerialOn is parallelMatchesSerial on the databases
// newStore gives (a new one a call); mariadb picks laneBlocks' variant.
func parallelMatchesSerialOn(t *testing.T, newStore func() store, mariadb bool, seed uint64, p app.Params, nblocks int, lanes []int) {
	serial := mustNewFixture(t, newStore(), p)
	par := make([]*fixture, len(lanes))
	for i, k := range lanes {
		par[i] = mustNewFixtureWith(t, newStore(), p, app.WithLanes(k))
	}
	// adaptive runs a block that splits on lanes or serially, as measured
	// faster (a node's default): the same results either way.
	kmax := lanes[len(lanes)-1]
	adaptive := mustNewFixtureWith(t, newStore(), p, app.WithLanes(kmax), app.WithAdaptiveLanes(true))
	app.SetLaneMinTxs(adaptive.ex, 1)
	lanes = append(lanes, kmax)
	par = append(par, adaptive)
	var nonce uint64
	sign := func(stmts ...txn.Statement) []byte {
		nonce++
		tx := &txn.Tx{ChainID: chainID, Nonce: nonce, Statements: stmts}
		tx.Sign(serial.key)
		return txn.Encode(tx)
	}
	blocks := laneBlocks(rand.New(rand.NewPCG(seed, 38)), nblocks, sign, mariadb)
	failed := 0
	for h, txs := range blocks {
		want, wantHash := serial.block(txs...)
		for i, f := range par {
			got, hash := f.block(txs...)
			for j := range want {
				// MariaDB's messages name the database, which differs
				// between the executors' databases: the log is no
				// consensus state (CometBFT's results hash leaves it out).
				if got[j].Code != want[j].Code || !bytes.Equal(got[j].Data, want[j].Data) || got[j].Log != want[j].Log && !mariadb {
					t.Fatalf("seed %d, height %d, tx %d, %d lanes: %d %s %q; serially %d %s %q", seed, h+1, j, lanes[i],
						got[j].Code, got[j].Data, got[j].Log, want[j].Code, want[j].Data, want[j].Log)
				}
			}
			if !bytes.Equal(hash, wantHash) {
				t.Fatalf("seed %d, height %d, %d lanes: AppHash %x, serially %x", seed, h+1, lanes[i], hash, wantHash)
			}
		}
		for _, r := range want {
			if r.Code != 0 {
				failed++
			}
		}
	}
	if failed == 0 {
		t.Fatal("no tx failed: the stream does not exercise failures")
	}
	// adaptive analyses every block but those its planBackoff skips:
	// of the blocks that split (forced's), each ran on lanes, was
	// declined or went unanalysed.
	forced := par[len(par)-2].ex.LaneStats() // kmax lanes, every block that splits
	if st := adaptive.ex.LaneStats(); st.Parallel+st.Declined > forced.Parallel || st.Parallel+st.Declined+st.Unanalysed < forced.Parallel ||
		st.Parallel == 0 || st.Declined > 0 && st.SerialCost == 0 || st.LanesCost == 0 {
		t.Fatalf("adaptive, %d lanes: %d blocks on lanes, %d declined, %d unanalysed (costs per tx %v serially, %v on lanes); %d blocks split",
			kmax, st.Parallel, st.Declined, st.Unanalysed, st.SerialCost, st.LanesCost, forced.Parallel)
	}
	for i, f := range par {
		st := f.ex.LaneStats()
		t.Logf("%d lanes: %d of %d blocks ran on lanes, %d declined, %d unanalysed (%d abandoned for the serial run)", lanes[i], st.Parallel, len(blocks), st.Declined, st.Unanalysed, st.Abandoned)
		if st.Parallel == 0 {
			t.Fatalf("%d lanes: no block ran on lanes", lanes[i])
		}
		if st.Abandoned != 0 {
			// The analysis is conservative and the stream holds no
			// conflict it cannot see: a fallback is a bug (one was: a
			// lane's change records reordered by another's digest).
			t.Fatalf("%d lanes: %d attempts abandoned for the serial run", lanes[i], st.Abandoned)
		}
	}
	t.Logf("%d blocks, %d failed txs: equal results and AppHashes at every height", len(blocks), failed)
	ctx := context.Background()
	stored, _, err := par[len(par)-1].be.StoredState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scanned, _, err := par[len(par)-1].be.ScanState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored.Digest(), scanned.Digest()) {
		t.Fatalf("after the stream the stored state digest of the %d-lane database differs from a full scan", lanes[len(lanes)-1])
	}
}

// A schedule that puts two txs writing the same row on different lanes
// (here forced: the analysis would group them) makes one lane wait for
// the other's lock: the attempt is abandoned and the block runs
// serially, with the serial run's results and AppHash.
// Where lanes are adaptive, the abandoned attempt counts against lanes.
func TestAWrongScheduleFallsBackToTheSerialRun(t *testing.T) {
	t.Run("forced", func(t *testing.T) { wrongScheduleFallsBack(t, false) })
	t.Run("adaptive", func(t *testing.T) { wrongScheduleFallsBack(t, true) })
}

func wrongScheduleFallsBack(t *testing.T, adaptive bool) {
	serial := mustNewFixture(t, storeNamed(t, "postgres"), app.DefaultParams())
	par := mustNewFixtureWith(t, storeNamed(t, "postgres"), app.DefaultParams(), app.WithLanes(2), app.WithAdaptiveLanes(adaptive))
	app.SetLaneMinTxs(par.ex, 1)
	par.key = serial.key
	setup := []txn.Statement{stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)")}
	seed := []txn.Statement{stmt("INSERT INTO acct VALUES (1, 10), (2, 20), (3, 30)")}
	for _, stmts := range [][]txn.Statement{setup, seed} {
		tx := serial.tx(stmts...)
		par.nonce = serial.nonce
		serial.block(tx)
		par.block(tx)
	}
	app.SetLaneAssign(par.ex, func(int) [][]int { return [][]int{{0, 2}, {1}} })
	txs := [][]byte{
		serial.tx(stmt("UPDATE acct SET bal = bal + 1 WHERE id = 1")),
		serial.tx(stmt("UPDATE acct SET bal = bal * 2 WHERE id = 1")),
		serial.tx(stmt("UPDATE acct SET bal = bal - 1 WHERE id = 3")),
	}
	want, wantHash := serial.block(txs...)
	got, hash := par.block(txs...)
	for i := range want {
		if got[i].Code != want[i].Code || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("tx %d: %d %s; serially %d %s", i, got[i].Code, got[i].Data, want[i].Code, want[i].Data)
		}
	}
	if !bytes.Equal(hash, wantHash) {
		t.Fatalf("AppHash %x, serially %x", hash, wantHash)
	}
	if st := par.ex.LaneStats(); st.Abandoned != 1 || st.Parallel != 0 || adaptive && st.LanesCost == 0 {
		t.Fatalf("lane stats %+v: want one abandoned attempt, no parallel run and (adaptive) its cost counted against lanes", st)
	}
	rows, _, err := par.be.Query(context.Background(), "SELECT bal FROM acct ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows.Rows) != "[[22] [20] [29]]" {
		t.Fatalf("rows %v, want [[22] [20] [29]]", rows.Rows)
	}
}

// Where lanes are adaptive, blocks that do not split (here every tx
// updates one row) are analysed ever more rarely (planBackoff); once
// blocks split again, one is found within planSkipMax+1 blocks and runs
// on lanes or is declined, with the serial executor's results.
func TestAdaptiveLanesAnalyseBlocksThatDoNotSplitRarely(t *testing.T) {
	serial := mustNewFixture(t, storeNamed(t, "postgres"), app.DefaultParams())
	par := mustNewFixtureWith(t, storeNamed(t, "postgres"), app.DefaultParams(), app.WithLanes(2), app.WithAdaptiveLanes(true))
	app.SetLaneMinTxs(par.ex, 1)
	par.key = serial.key
	outcomes := map[string]int{} // how par's blocks ran (PendingLanes)
	both := func(txs ...[]byte) {
		t.Helper()
		par.nonce = serial.nonce
		want, wantHash := serial.block(txs...)
		got, hash := par.finalize(txs...)
		outcomes[par.ex.PendingLanes()]++
		if _, err := par.ex.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i].Code != want[i].Code || !bytes.Equal(got[i].Data, want[i].Data) || !bytes.Equal(hash, wantHash) {
				t.Fatalf("tx %d: %d %s (AppHash %x); serially %d %s (%x)", i, got[i].Code, got[i].Data, hash, want[i].Code, want[i].Data, wantHash)
			}
		}
	}
	both(serial.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)")))
	both(serial.tx(stmt("INSERT INTO acct VALUES (1, 10), (2, 20)")))
	const hot = 20
	for range hot {
		both(serial.tx(stmt("UPDATE acct SET bal = bal + 1 WHERE id = 1")), serial.tx(stmt("UPDATE acct SET bal = bal * 2 WHERE id = 1")))
	}
	st := par.ex.LaneStats()
	if st.Parallel+st.Declined != 0 || st.Unanalysed < hot/2 || outcomes[api.LanesUnanalysed] != int(st.Unanalysed) || outcomes[""] != hot+2-int(st.Unanalysed) {
		t.Fatalf("after %d blocks that do not split: %+v, blocks' outcomes %v; want none split, at least %d unanalysed", hot, st, outcomes, hot/2)
	}
	clear(outcomes)
	for range app.PlanSkipMax + 1 {
		both(serial.tx(stmt("UPDATE acct SET bal = bal + 1 WHERE id = 1")), serial.tx(stmt("UPDATE acct SET bal = bal + 1 WHERE id = 2")))
	}
	if st := par.ex.LaneStats(); st.Parallel+st.Declined == 0 || outcomes[api.LanesParallel]+outcomes[api.LanesDeclined] == 0 {
		t.Fatalf("%d blocks that split after the hot ones: %+v, blocks' outcomes %v; none found", app.PlanSkipMax+1, st, outcomes)
	}
}

// The metamorphic test on MariaDB in the postgres dialect (lanes in XA
// transactions): a serial executor and executors on 2 and 4 lanes, each
// on its own database, give the same results and AppHashes, blocks ran
// on lanes and none was abandoned.
func TestParallelExecutionMatchesSerialOnMariaDB(t *testing.T) {
	racetest.Heavy(t)
	seed := laneSeed(t)
	t.Logf("seed %d (RELCHAIN_LANES_SEED=%d replays it)", seed, seed)
	p := app.DefaultParams()
	p.Backend, p.SQLDialect, p.ProtocolVersion = "mysql", "postgres", protocol.V5
	var err error
	if p.SQLDialectVersion, p.SQLDialectVersions, err = registry.GenesisSQLDialectVersions([]string{"mysql"}, "postgres"); err != nil {
		t.Fatal(err)
	}
	newStore := func() store {
		return store{"mysql", func(t *testing.T) backend.Backend {
			b, err := mysql.Open(context.Background(), mysqltest.DSN(t), mysql.WithPostgresDialect())
			if err != nil {
				t.Fatalf("open mysql: %v", err)
			}
			return b
		}}
	}
	parallelMatchesSerialOn(t, newStore, true, seed, p, 8, []int{2, 4})
}

// A node with lanes makes them ready after each Commit, off the block
// path (the backend's WarmLanes): its PostgreSQL holds k-1 lane sessions
// before any block ran on lanes, so the first parallel block connects
// nothing. A serial node opens none.
func TestANodeWithLanesWarmsThemAfterACommit(t *testing.T) {
	for _, k := range []int{1, 4} {
		t.Run(fmt.Sprintf("lanes=%d", k), func(t *testing.T) {
			dsn := pgtest.DSN(t)
			open := func(t *testing.T) backend.Backend {
				b, err := postgres.Open(context.Background(), dsn)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			f := mustNewFixtureWith(t, store{"postgres", open}, app.DefaultParams(), app.WithLanes(k))
			f.block(f.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)")))
			app.WaitLaneWarm(f.ex)
			if n := laneSessions(t, dsn); n != k-1 {
				t.Fatalf("lane sessions after a Commit: %d, want %d", n, k-1)
			}
			if st := f.ex.LaneStats(); st.Parallel != 0 {
				t.Fatalf("lane stats %+v: no block ran on lanes", st)
			}
		})
	}
}

// laneSessions counts the server sessions of the database's lanes.
func laneSessions(t *testing.T, dsn string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_catalog.pg_stat_activity
		WHERE datname = current_database() AND application_name = 'relchain-lane'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
