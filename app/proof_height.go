// Proofs at a named height (issue 36, item 2): the last committed
// authenticated states are kept (HistoryConfig.ProofHeights; the trees
// are path-copying, so an old root stays valid), and a row's image at
// that height comes from the database when it did not change since, or
// else from the row history.

package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
)

// ErrHeightUnavailable is Prove's error for a height outside the
// window of states this node keeps, or whose rows it cannot read any
// more.
var ErrHeightUnavailable = errors.New("not available at this height")

// proveAt answers req at req.Height, an earlier height than the latest.
func (e *Executor) proveAt(ctx context.Context, kr backend.CanonicalKeyReader, req api.ProofRequest) (api.ProofResponse, error) {
	e.mu.Lock()
	snaps, latest := e.authSnaps, e.committed.Height
	e.mu.Unlock()
	var snap *authSnapshot
	for _, s := range snaps {
		if s.height <= req.Height {
			snap = s
		}
	}
	if req.Height > latest {
		return api.ProofResponse{}, fmt.Errorf("%w: proof request for height %d: the latest committed block is %d", ErrHeightUnavailable, req.Height, latest)
	}
	hr, _ := e.Backend().(backend.HistoryReader)
	if snap == nil && hr != nil && !e.historyConfig().Off {
		return e.proveFromHistory(ctx, kr, hr, req)
	}
	if snap == nil {
		return api.ProofResponse{}, fmt.Errorf("%w: proof request for height %d: this node proves heights %d to %d (the last %d states it keeps; it keeps no row history)", ErrHeightUnavailable, req.Height, windowStart(snaps, latest), latest, len(snaps))
	}
	resp, err := snap.prove(ctx, kr, req, e.pastImage(hr, req.Height))
	resp.Height = req.Height // a block that changed nothing keeps its AppHash
	return resp, err
}

// pastImage gives a row's image at height from the history, checked
// against its leaf then.
func (e *Executor) pastImage(hr backend.HistoryReader, height int64) pastImage {
	return func(ctx context.Context, table string, key []byte, leaf [32]byte) ([]byte, error) {
		if hr == nil || e.historyConfig().Off {
			return nil, fmt.Errorf("%w: row %x of %s at height %d: it changed since and this node keeps no row history", ErrHeightUnavailable, key, table, height)
		}
		v, ok, err := hr.VersionAt(ctx, table, key, height)
		switch {
		case err != nil:
			return nil, fmt.Errorf("proof: the history of %s: %w", table, err)
		case !ok || v.Image == nil || rowcanon.LeafHash(v.Image) != leaf:
			return nil, fmt.Errorf("%w: row %x of %s at height %d: it changed since and its version is not in this node's history (pruned, or kept off)", ErrHeightUnavailable, key, table, height)
		}
		return v.Image, nil
	}
}

// windowStart is the first height snaps prove.
func windowStart(snaps []*authSnapshot, latest int64) int64 {
	if len(snaps) == 0 {
		return latest
	}
	return snaps[0].height
}
