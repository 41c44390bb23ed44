package app_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// randomBlocks is a seeded stream of blocks over two tables (one with a
// key, one without), mixing inserts, updates of the key and of values,
// deletes, multi-statement txs, txs that fail (duplicate keys, missing
// tables) and a schema change halfway.
func randomBlocks(r *rand.Rand, dialect string, blocks int, sign func(...txn.Statement) []byte) [][][]byte {
	p := func(n int) string { return ph(dialect, n) }
	out := [][][]byte{{
		sign(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL, note TEXT)")),
		sign(stmt("CREATE TABLE ledger (acct BIGINT NOT NULL, amount BIGINT NOT NULL)")),
	}}
	for b := 1; b < blocks; b++ {
		var txs [][]byte
		for range 1 + r.IntN(12) {
			id := int64(r.IntN(40))
			switch k := r.IntN(10); {
			case k < 3:
				txs = append(txs, sign(stmt("INSERT INTO acct (id, bal, note) VALUES ("+p(1)+", "+p(2)+", "+p(3)+")",
					txn.Int(id), txn.Int(int64(r.IntN(1000))), txn.Text(fmt.Sprintf("n%d", r.IntN(5))))))
			case k < 5:
				amt := int64(r.IntN(50))
				txs = append(txs, sign(
					stmt("UPDATE acct SET bal = bal - "+p(1)+" WHERE id = "+p(2), txn.Int(amt), txn.Int(id)),
					stmt("INSERT INTO ledger (acct, amount) VALUES ("+p(1)+", "+p(2)+")", txn.Int(id), txn.Int(-amt))))
			case k < 6:
				txs = append(txs, sign(stmt("UPDATE acct SET id = id + 100 WHERE id = "+p(1), txn.Int(id))))
			case k < 7:
				txs = append(txs, sign(stmt("DELETE FROM acct WHERE bal < "+p(1), txn.Int(int64(r.IntN(300))))))
			case k < 8:
				txs = append(txs, sign(stmt("UPDATE acct SET note = note || 'x' WHERE note = "+p(1), txn.Text(fmt.Sprintf("n%d", r.IntN(5))))))
			case k < 9:
				txs = append(txs, sign(stmt("INSERT INTO nowhere (id) VALUES (1)")))
			default:
				txs = append(txs, sign(stmt("DELETE FROM ledger WHERE amount = "+p(1), txn.Int(-int64(r.IntN(50))))))
			}
		}
		if b == blocks/2 {
			txs = append(txs, sign(stmt("ALTER TABLE acct ADD COLUMN flag BIGINT DEFAULT 1")))
		}
		out = append(out, txs)
	}
	return out
}

// The same random stream of blocks through two independent executors, each
// on its own database, gives identical results (effect digests included)
// and AppHashes at every height, and a database that verifies at the end.
func TestIndependentExecutorsAgreeAtEveryHeight(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		a := mustNewFixture(t, newStore(), app.DefaultParams())
		b := mustNewFixture(t, newStore(), app.DefaultParams())
		b.key = a.key
		var nonce uint64
		key := a.key
		sign := func(stmts ...txn.Statement) []byte {
			nonce++
			tx := &txn.Tx{ChainID: chainID, Nonce: nonce, Statements: stmts}
			tx.Sign(key)
			return txn.Encode(tx)
		}
		blocks := randomBlocks(rand.New(rand.NewPCG(7, 11)), a.dialect, 40, sign)
		failed, withEffects := 0, 0
		for h, txs := range blocks {
			ra, ha := a.block(txs...)
			rb, hb := b.block(txs...)
			if !bytes.Equal(ha, hb) {
				t.Fatalf("height %d: AppHash %x and %x", h+1, ha, hb)
			}
			for i := range ra {
				if ra[i].Code != rb[i].Code || !bytes.Equal(ra[i].Data, rb[i].Data) {
					t.Fatalf("height %d tx %d: results differ: %d %s / %d %s", h+1, i, ra[i].Code, ra[i].Data, rb[i].Code, rb[i].Data)
				}
				if ra[i].Code != 0 {
					failed++
					continue
				}
				ea, eb := effects(t, ra[i]), effects(t, rb[i])
				if ea != eb {
					t.Fatalf("height %d tx %d: effect digests %q and %q", h+1, i, ea, eb)
				}
				if ea != "" {
					withEffects++
				}
			}
		}
		if failed == 0 {
			t.Fatal("no tx failed: the stream does not exercise failures")
		}
		if withEffects == 0 {
			t.Fatal("no result carries an effect digest")
		}
		ctx := context.Background()
		stored, _, err := a.be.StoredState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		scanned, _, err := a.be.ScanState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stored.Digest(), scanned.Digest()) {
			t.Fatal("after the stream the stored state digest differs from a full scan")
		}
		t.Logf("%d blocks, %d failed txs, %d effect digests, equal results and AppHashes at every height", len(blocks), failed, withEffects)
	})
}
