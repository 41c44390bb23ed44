// Proofs on the query path (issue 36): rows of the latest committed block
// with a proof against its AppHash (api.ProofPath).

package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// authSnapshot is the authenticated state of the last committed block, as
// the AppHash commits to it: immutable once published (under e.mu), so
// the query path reads it without holding the executor.
type authSnapshot struct {
	height  int64
	version uint64
	base    []byte
	mapRoot statetree.TablesRoot
	tables  map[string]statetree.Root // the authenticated tables' roots
	// hashes are the root hashes of every authenticated table, when
	// tables holds only some (a past state rebuilt from the history).
	hashes map[string][32]byte
}

// tableHash is the root hash of the authenticated table name.
func (s *authSnapshot) tableHash(name string) ([32]byte, bool) {
	if r, ok := s.tables[name]; ok {
		return r.Hash(), true
	}
	h, ok := s.hashes[name]
	return h, ok
}

// snapshot is the committed state as an authSnapshot of block height,
// whose AppHash has base and version. a holds the committed state (commit
// or load just ran).
func (a *authState) snapshot(height int64, version uint64, base []byte) *authSnapshot {
	s := &authSnapshot{height: height, version: version, base: base, mapRoot: a.committed, tables: make(map[string]statetree.Root, len(a.tables))}
	for name, t := range a.tables {
		if t.tree != nil {
			s.tables[name] = t.committed
		}
	}
	return s
}

// ErrNoProofs is Prove's error on a chain, or a node, that has no
// authenticated state to prove against.
var ErrNoProofs = errors.New("no authenticated state to prove against")

// Prove answers a proof request on the latest committed block. The tree
// decides which keys the proof covers; the database supplies their images
// (backend.CanonicalKeyReader), each checked against its leaf, so that a
// block committing meanwhile can never mix two states into one proof:
// the read is tried again on the newer block instead.
func (e *Executor) Prove(ctx context.Context, req api.ProofRequest) (api.ProofResponse, error) {
	if err := req.Check(); err != nil {
		return api.ProofResponse{}, err
	}
	kr, ok := e.Backend().(backend.CanonicalKeyReader)
	if !ok {
		return api.ProofResponse{}, fmt.Errorf("%w: this node's storage cannot read rows by key", ErrNoProofs)
	}
	var err error
	for range 3 {
		e.mu.Lock()
		snap, latest := e.authSnap, e.committed.Height
		e.mu.Unlock()
		switch {
		case snap == nil:
			return api.ProofResponse{}, fmt.Errorf("%w: the chain has not committed a block of protocol version 4 or later", ErrNoProofs)
		case req.Height != 0 && req.Height != latest:
			return e.proveAt(ctx, kr, req)
		}
		var resp api.ProofResponse
		resp, err = snap.prove(ctx, kr, req, movedSince)
		if !errors.Is(err, errMoved) {
			return resp, err
		}
	}
	return api.ProofResponse{}, fmt.Errorf("proof: blocks kept committing while the rows were read: %w", err)
}

// errMoved: a row read for a proof is not the snapshot's (a later block
// changed it).
var errMoved = errors.New("the rows changed since the snapshot")

// pastImage returns the image of table's key whose leaf in a snapshot is
// leaf, when the database holds another row now.
type pastImage func(ctx context.Context, table string, key []byte, leaf [32]byte) ([]byte, error)

// movedSince is the latest snapshot's pastImage: the read is tried again
// on the newer block.
func movedSince(context.Context, string, []byte, [32]byte) ([]byte, error) { return nil, errMoved }

// prove answers req from s, with images read through kr.
// past gives the image of a key whose row is not the snapshot's any more.
func (s *authSnapshot) prove(ctx context.Context, kr backend.CanonicalKeyReader, req api.ProofRequest, past pastImage) (api.ProofResponse, error) {
	resp := api.ProofResponse{Height: s.height, Version: s.version, Base: s.base, Table: req.Table, Key: req.Key, Lo: req.Lo, Hi: req.Hi, Rows: []api.ProofRow{}}
	mh := s.mapRoot.Hash()
	resp.TablesRoot = mh[:]
	root, ok := s.tables[req.Table]
	if _, known := s.hashes[req.Table]; !ok && known {
		return resp, fmt.Errorf("proof: the tree of %s is not held for height %d", req.Table, s.height)
	}
	if !ok {
		return s.proveTableAbsent(resp)
	}
	images, err := s.images(ctx, kr, req, root, past)
	if err != nil {
		return resp, err
	}
	values := func(key []byte) ([]byte, error) {
		if img, ok := images[string(key)]; ok {
			return img, nil
		}
		return nil, fmt.Errorf("proof: no image read for key %x", key)
	}
	tp, err := s.mapRoot.ProveTable(req.Table, root.Hash())
	if err != nil {
		return resp, err
	}
	cp := statetree.ChainedProof{Table: tp}
	switch {
	case req.IsRange():
		cp.Rows, err = root.ProveRange(req.Lo, req.Hi, values)
		root.Ascend(req.Lo, req.Hi, func(key []byte, _ [32]byte) bool {
			resp.Rows = append(resp.Rows, api.ProofRow{Key: bytes.Clone(key), Image: images[string(key)]})
			return true
		})
	default:
		if img, ok := images[string(req.Key)]; ok {
			cp.Rows, err = root.ProveExistence(req.Key, img)
			resp.Rows = append(resp.Rows, api.ProofRow{Key: req.Key, Image: img})
		} else {
			cp.Rows, err = root.ProveNonExistence(req.Key, values)
		}
	}
	if err != nil {
		return resp, fmt.Errorf("proof of %s: %w", req.Table, err)
	}
	if resp.Proof, err = cp.Marshal(); err != nil {
		return resp, err
	}
	return resp, nil
}

// proveTableAbsent answers a request for a table the map does not hold.
func (s *authSnapshot) proveTableAbsent(resp api.ProofResponse) (api.ProofResponse, error) {
	key, err := statetree.TableKey(resp.Table)
	if err != nil {
		return resp, err
	}
	p, err := s.mapRoot.ProveNonExistence(key, func(k []byte) ([]byte, error) {
		name := string(k[:len(k)-1]) // TableKey: the name and a NUL
		h, ok := s.tableHash(name)
		if !ok {
			return nil, fmt.Errorf("proof: no table %q in the snapshot", name)
		}
		return h[:], nil
	})
	if err != nil {
		return resp, fmt.Errorf("proof of the absence of table %s: %w", resp.Table, err)
	}
	resp.TableAbsence, err = p.Marshal()
	return resp, err
}

// images reads the images of every key a proof of req on root needs (the
// keys in the range or the point, and their neighbours) and checks each
// against its leaf; one that is not the snapshot's comes from past.
func (s *authSnapshot) images(ctx context.Context, kr backend.CanonicalKeyReader, req api.ProofRequest, root statetree.Root, past pastImage) (map[string][]byte, error) {
	keys, err := proofKeys(req, root)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return map[string][]byte{}, nil
	}
	imgs, _, err := kr.CanonicalRowsByKey(ctx, req.Table, keys)
	if err != nil {
		return nil, fmt.Errorf("proof: read the rows of %s: %w", req.Table, err)
	}
	if len(imgs) != len(keys) {
		return nil, fmt.Errorf("proof: read %d images of %s for %d keys", len(imgs), req.Table, len(keys))
	}
	out := make(map[string][]byte, len(keys))
	for i, k := range keys {
		leaf, _ := root.Get(k)
		img := imgs[i]
		if img == nil || rowcanon.LeafHash(img) != leaf {
			if img, err = past(ctx, req.Table, k, leaf); err != nil {
				return nil, err
			}
		}
		out[string(k)] = img
	}
	return out, nil
}

// proofKeys lists the keys whose images a proof of req needs: the point
// the tree holds, or those it holds in the range and the nearest key on
// each side (a non-existence or range proof shows its neighbours).
func proofKeys(req api.ProofRequest, root statetree.Root) ([][]byte, error) {
	lo, hi := req.Lo, req.Hi
	if !req.IsRange() {
		if _, ok := root.Get(req.Key); ok {
			return [][]byte{req.Key}, nil // an existence proof shows no neighbour
		}
		lo, hi = req.Key, req.Key
	}
	set := map[string]bool{}
	n := 0
	var err error
	root.Ascend(lo, hi, func(key []byte, _ [32]byte) bool {
		if n++; n > api.MaxProofRows {
			err = fmt.Errorf("proof: the range holds more than %d rows: narrow it", api.MaxProofRows)
			return false
		}
		set[string(key)] = true
		return true
	})
	if err != nil {
		return nil, err
	}
	below, above := root.Neighbours(lo, hi)
	for _, k := range [][]byte{below, above} {
		if k != nil {
			set[string(k)] = true
		}
	}
	keys := make([][]byte, 0, len(set))
	for _, k := range slices.Sorted(maps.Keys(set)) {
		keys = append(keys, []byte(k))
	}
	return keys, nil
}
