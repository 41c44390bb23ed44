package app_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/txn"
)

// The pool judges the statements of a tx the node never saw ahead of the
// block's loop where the gate's verdict is a pure function of the text
// (PostgreSQL's: backend.TextGate.Warm), every statement but the system
// ones, and nothing on a gate that needs the database (SQLite's).
func TestThePoolWarmsTheGatesVerdicts(t *testing.T) {
	f := mustNewFixtureWith(t, storeNamed(t, "postgres"), app.DefaultParams(), app.WithVerifyPool(4))
	g, ok := f.be.Gate().(*backend.TextGate)
	if !ok || g.Warm == nil {
		t.Fatalf("PostgreSQL's gate is %T, without Warm", f.be.Gate())
	}
	var mu sync.Mutex
	var warmed []string
	warm := g.Warm
	g.Warm = func(sql string) {
		mu.Lock()
		warmed = append(warmed, sql)
		mu.Unlock()
		warm(sql)
	}
	tx := &txn.Tx{Statements: []txn.Statement{
		stmt("INSERT INTO t (id) VALUES (7)"),
		stmt(api.SystemGrant, txn.Text("00"), txn.Text("t")),
		stmt("SELECT pg_sleep(1)"),
	}}
	app.WarmVerdicts(f.ex, tx)
	app.WarmVerdicts(f.ex, nil)
	if want := []string{"INSERT INTO t (id) VALUES (7)", "SELECT pg_sleep(1)"}; !slices.Equal(warmed, want) {
		t.Fatalf("warmed %q, want %q", warmed, want)
	}

	lite := mustNewFixtureWith(t, storeNamed(t, "sqlite"), app.DefaultParams(), app.WithVerifyPool(4))
	if _, ok := lite.be.Gate().(*backend.TextGate); ok {
		t.Fatal("SQLite's gate is a TextGate: its verdicts need the database")
	}
	app.WarmVerdicts(lite.ex, tx) // nothing to warm, nothing to fail
}

// A block of txs the node never saw, each with texts of its own (literals
// inlined, as many clients send them), some of which the gate refuses,
// gives the same results and AppHash on pools of 1 and 4 on PostgreSQL,
// where the pool also judges the statements ahead.
func TestThePoolGivesTheSerialResultsOnPostgreSQL(t *testing.T) {
	serial := mustNewFixtureWith(t, storeNamed(t, "postgres"), app.DefaultParams(), app.WithVerifyPool(1))
	pooled := mustNewFixtureWith(t, storeNamed(t, "postgres"), app.DefaultParams(), app.WithVerifyPool(4))
	create := serial.tx(stmt("CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT)"))
	var block [][]byte
	for i := range 300 {
		switch i % 5 {
		case 3:
			block = append(block, serial.tx(stmt(fmt.Sprintf("SELECT pg_sleep(%d)", i))))
		case 4:
			block = append(block, serial.tx(stmt(fmt.Sprintf("INSERT INTO t (id, v) VALUES (%d, 'dup')", i-4))))
		default:
			block = append(block, serial.tx(stmt(fmt.Sprintf("INSERT INTO t (id, v) VALUES (%d, 'v%d')", i, i))))
		}
	}
	codes := map[uint32]int{}
	for _, txs := range [][][]byte{{create}, block} {
		want, wantHash := serial.block(txs...)
		for _, r := range want {
			codes[r.Code]++
		}
		got, hash := pooled.block(txs...)
		for i := range want {
			if got[i].Code != want[i].Code || string(got[i].Data) != string(want[i].Data) || got[i].Log != want[i].Log {
				t.Fatalf("tx %d: code %d %q, serially %d %q", i, got[i].Code, got[i].Log, want[i].Code, want[i].Log)
			}
		}
		if string(hash) != string(wantHash) {
			t.Fatalf("AppHash %x, serially %x", hash, wantHash)
		}
	}
	if len(codes) < 3 {
		t.Fatalf("result codes %v: the block should hold applied txs, refusals and failures", codes)
	}
}
