package backendtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// CancelAtCompletion checks that a block statement whose context ends as it
// completes leaves nothing behind that fails a later statement: a server
// backend cancels a statement from another connection (a cancel request, a
// KILL QUERY), and that cancel must have reached the server, or been
// dropped, before the block's next statement is sent. open must give a
// backend that runs slow, a statement of about 10 ms (the gate may be
// off for it: a sleep). Each round cancels slow at a different moment, from
// before it is sent to well after it returned; the statements after it,
// under a live context, must always succeed, and a cancelled one must be a
// node fault wrapping context.Canceled, never a tx result.
func CancelAtCompletion(t *testing.T, open Open, slow string) {
	n := mustOpen(t, subject{open: open})
	blk := n.begin()
	n.exec(blk, `CREATE TABLE cancel_at_completion (id BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL)`)
	n.exec(blk, `INSERT INTO cancel_at_completion VALUES (1, 0)`)
	n.commit(blk, 1)
	const rounds = 80
	height, cancelled := int64(2), 0
	for round := range rounds {
		blk := n.begin()
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(time.Duration(round%40)*400*time.Microsecond, cancel)
		_, err := blk.Exec(short, slow, nil)
		timer.Stop()
		cancel()
		if err != nil {
			if !errors.Is(err, context.Canceled) || backend.AsError(err) != nil {
				t.Fatalf("round %d: a cancelled statement = %v, want a node fault wrapping context.Canceled", round, err)
			}
			cancelled++
			if err := blk.Rollback(ctx(t)); err != nil {
				t.Fatalf("round %d: rollback after a cancelled statement: %v", round, err)
			}
			continue
		}
		for i := range 3 {
			if _, err := blk.Exec(ctx(t), `UPDATE cancel_at_completion SET v = v + 1 WHERE id = 1`, nil); err != nil {
				t.Fatalf("round %d: statement %d after one whose context ended as it completed: %v", round, i, err)
			}
		}
		if err := blk.Release(ctx(t)); err != nil {
			t.Fatal(err)
		}
		n.commit(blk, height)
		height++
	}
	t.Logf("%d of %d statements were cancelled", cancelled, rounds)
}
