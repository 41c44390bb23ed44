package app_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/txn"
)

// boundFailsBackend hands out Blocks whose lock-wait bound fails, as it
// does on PostgreSQL when a block preempts the rehearsal between Begin and
// the bound's SET (the rehearsal's context is cancelled).
type boundFailsBackend struct{ backend.Backend }

func (b boundFailsBackend) Begin(ctx context.Context) (backend.Block, error) {
	blk, err := b.Backend.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return boundFailsBlock{blk}, nil
}

type boundFailsBlock struct{ backend.Block }

func (boundFailsBlock) BoundLockWaits(context.Context, time.Duration) (backend.Block, error) {
	return nil, errors.New("test: bound lock waits: context canceled")
}

// A rehearsal whose lock-wait bound fails returns an error and rolls its
// db-transaction back; the next block begins. (After issue 32's merge a
// failed bound left blk nil: the deferred Rollback panicked, the gateway
// session answered XX000, the db-transaction stayed open, and the node
// halted at its next block: "begin: a block db-transaction is already
// open".)
func TestRehearsalWhoseLockBoundFailsRollsBack(t *testing.T) {
	s := stores(t)[1] // PostgreSQL: its gate judges text, not the wrapped Block
	f := mustNewFixture(t, store{s.dialect, func(t *testing.T) backend.Backend { return boundFailsBackend{s.open(t)} }}, app.DefaultParams())
	_, err := f.ex.Rehearse(context.Background(), f.key.Public().(ed25519.PublicKey),
		[]txn.Statement{stmt("SELECT 1")})
	if err == nil {
		t.Fatal("a rehearsal whose lock-wait bound failed succeeded")
	}
	res, _ := f.block(f.tx(stmt("CREATE TABLE t (id INTEGER PRIMARY KEY)")))
	if len(res) != 1 || res[0].Code != api.CodeOK {
		t.Fatalf("the block after the rehearsal: %+v", res)
	}
}
