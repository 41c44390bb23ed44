package app_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// seededKey is a fixed ed25519 key derived from name: a chain built from
// it is the same on every run (signatures are deterministic).
func seededKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("relchain/test/key/" + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// fixedChain is a deterministic v1 chain (fixed keys, nonces, block times
// and hashes): DDL, inserts, a failing tx, a grant, a validator added, a
// grantee's writes, an empty block, an update using the block's clock.
// Its AppHashes were recorded with relchain before protocol versions
// existed (goldenV1AppHashes): a v1 chain must keep them.
type fixedChain struct {
	admin, user ed25519.PrivateKey
	vals        []app.ValidatorUpdate
	nonce       map[string]uint64
}

func newFixedChain() *fixedChain {
	c := &fixedChain{admin: seededKey("admin"), user: seededKey("user"), nonce: map[string]uint64{}}
	for _, n := range []string{"v0", "v1", "v2", "v3"} {
		c.vals = append(c.vals, app.ValidatorUpdate{PubKey: seededKey(n).Public().(ed25519.PublicKey), Power: 10})
	}
	return c
}

func (c *fixedChain) params() app.Params {
	p := app.DefaultParams()
	p.Admins = []string{hex.EncodeToString(c.admin.Public().(ed25519.PublicKey))}
	return p
}

func (c *fixedChain) tx(key ed25519.PrivateKey, stmts ...txn.Statement) []byte {
	k := string(key.Public().(ed25519.PublicKey))
	c.nonce[k]++
	tx := &txn.Tx{ChainID: chainID, Nonce: c.nonce[k], Statements: stmts}
	tx.Sign(key)
	return txn.Encode(tx)
}

// blocks are the chain's blocks (SQLite placeholders).
func (c *fixedChain) blocks() [][][]byte {
	ins := "INSERT INTO acct (id, bal) VALUES (?1, ?2)"
	return [][][]byte{
		{c.tx(c.admin, stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"))},
		{c.tx(c.admin, stmt(ins, txn.Int(1), txn.Int(100))), c.tx(c.admin, stmt(ins, txn.Int(2), txn.Int(50))),
			c.tx(c.admin, stmt(ins, txn.Int(1), txn.Int(7)))}, // duplicate key: fails
		{c.tx(c.admin, stmt(api.SystemGrant, txn.Bytes(c.user.Public().(ed25519.PublicKey)), txn.Text("acct"))),
			c.tx(c.admin, stmt(api.SystemValidatorAdd, txn.Bytes(seededKey("v4").Public().(ed25519.PublicKey)), txn.Int(10), txn.Bool(false)))},
		{c.tx(c.user, stmt(ins, txn.Int(3), txn.Int(1))), c.tx(c.user, stmt("UPDATE acct SET bal = bal - 10 WHERE id = 1"))},
		{},
		{c.tx(c.user, stmt("UPDATE acct SET bal = bal + length(CAST(CURRENT_TIMESTAMP AS TEXT)) WHERE id = 2"))},
	}
}

// runFixedChain executes the chain on a fresh SQLite executor and returns
// the AppHash of every block.
func runFixedChain(t *testing.T) []string {
	t.Helper()
	c := newFixedChain()
	f := mustNewFixture(t, stores(t)[0], c.params())
	if err := f.ex.InitValidators(c.vals); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, txs := range c.blocks() {
		h := f.ex.State().Height + 1
		res, hash, err := f.ex.FinalizeBlock(context.Background(), blockInfo(h), txs)
		if err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		if _, err := f.ex.Commit(context.Background()); err != nil {
			t.Fatalf("commit %d: %v", h, err)
		}
		t.Logf("block %d: codes %v", h, codes(res))
		out = append(out, hex.EncodeToString(hash))
	}
	return out
}
