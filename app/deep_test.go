package app_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"strconv"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/txn"
)

// Issue 32, reproductions 1 and 3, through the application: a left-deep
// chain 1+1+... of 40,000 and 100,000 terms on the read path (abci_query
// /sql), Describe and a rehearsal, and INSERT INTO big VALUES (1+1+...
// 60,000 terms, 'x') and (500001, (1+1+... 4,400 terms)::text) at CheckTx
// and in a block, each get a clean refusal naming the pre-scan's bound
// (on PostgreSQL the read killed the node with a SIGSEGV in libpg_query,
// and 4,400 terms succeeded or failed by each node's max_stack_depth).
func TestDeepExpressionsRefusedCleanly(t *testing.T) {
	const bound = "exceeds relchain's limit of 128"
	chain := func(n int) string { return strings.Repeat("1+", n-1) + "1" }
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		a := app.New(f.ex, log.NewNopLogger())
		for _, n := range []int{40_000, 100_000} {
			if _, rerr := abciRead(t, a, 0, "SELECT "+chain(n), nil); rerr == nil || !strings.Contains(rerr.Log, bound) {
				t.Errorf("read of %d terms: %+v, want the bound", n, rerr)
			}
			if r := describePath(t, a, describeBody("SELECT "+chain(n))); r.Code == api.CodeOK || !strings.Contains(r.Log, bound) {
				t.Errorf("describe of %d terms: code %d %q", n, r.Code, r.Log)
			}
			r, err := f.ex.Rehearse(context.Background(), f.key.Public().(ed25519.PublicKey),
				[]txn.Statement{stmt("SELECT " + chain(n))})
			if err == nil && (r.Code == api.CodeOK || !strings.Contains(r.Log, bound)) {
				t.Errorf("rehearsal of %d terms: code %d %q", n, r.Code, r.Log)
			}
		}
		cast := "::text"
		if f.dialect != "postgres" {
			cast = ""
		}
		for _, sql := range []string{
			"INSERT INTO big VALUES (" + chain(60_000) + ", 'x')",
			"INSERT INTO big VALUES (500001, (" + chain(4_400) + ")" + cast + ")",
		} {
			tx := f.tx(stmt(sql))
			r, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: tx})
			if err != nil || r.Code == api.CodeOK || !strings.Contains(r.Log, bound) {
				t.Errorf("CheckTx %.40s: %v, code %d %q", sql, err, r.Code, r.Log)
			}
			res, _ := f.block(tx)
			if len(res) != 1 || res[0].Code == api.CodeOK || !strings.Contains(res[0].Log, bound) {
				t.Errorf("block %.40s: %+v", sql, res)
			}
		}
	})
}

// AND and OR add no depth (PostgreSQL and MariaDB gather a chain into one
// list; SQLite refuses one deeper than sqlite.MaxExprDepth itself): the WHERE clauses
// ORMs generate, hundreds of OR-ed comparisons, pass the pre-scan and run
// in blocks and on the read path alike.
func TestLongAndOrChainsRun(t *testing.T) {
	racetest.Heavy(t) // long texts through the gates, one at a time: 22 s under -race
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		a := app.New(f.ex, log.NewNopLogger())
		if res, _ := f.block(f.tx(stmt("CREATE TABLE big (k BIGINT PRIMARY KEY, v VARCHAR(20))"))); res[0].Code != api.CodeOK {
			t.Fatalf("create: %+v", res[0])
		}
		if res, _ := f.block(f.tx(stmt("INSERT INTO big VALUES (1, 'a'), (2, 'b'), (3, 'c')"))); res[0].Code != api.CodeOK {
			t.Fatalf("insert: %+v", res[0])
		}
		terms := sqlite.MaxExprDepth - 10 // under SQLite's expression depth limit
		if f.dialect == "postgres" {
			terms = 5_000
		}
		var where []string
		for i := range terms {
			where = append(where, "k = "+strconv.Itoa(i+2))
		}
		or := strings.Join(where, " OR ")
		res, _ := f.block(f.tx(stmt("UPDATE big SET v = 'z' WHERE (" + or + ") AND v <> 'q' AND k > 0")))
		if len(res) != 1 || res[0].Code != api.CodeOK {
			t.Fatalf("UPDATE with %d OR-ed comparisons: %+v", terms, res)
		}
		q, rerr := abciRead(t, a, 0, "SELECT count(*) FROM big WHERE v = 'z' AND ("+or+")", nil)
		if rerr != nil || len(q.Rows) != 1 || fmt.Sprint(q.Rows[0][0]) != "2" {
			t.Fatalf("read with %d OR-ed comparisons: %+v %+v", terms, q, rerr)
		}
	})
}
