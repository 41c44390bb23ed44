package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/internal/dbrestore"
	"github.com/relchain/relchain/snapshot"
)

// stateSync is the node's side of CometBFT state sync (app.StateSync).
//
// Serving: every checkpoint (relchain.toml [checkpoint]) is a snapshot of
// its height, cut into chunks (package snapshot).
//
// Restoring, on a node whose database is empty: the offered snapshot's
// chunks are checked against its manifest as they arrive (a chunk that
// does not match is fetched again from another peer, and its sender is
// refused). The assembled file is restored beside the live database
// exactly as `relchain recover` restores a checkpoint, and verified before
// anything uses it: its contents must reproduce the AppHash it records
// (app.VerifyState: a full scan, the system state and the block's recorded
// AppHash inputs), and that AppHash must be the one CometBFT's light client
// verified for the snapshot's height. A snapshot that fails is rejected
// with every peer that sent a chunk of it, and CometBFT tries another.
// Only then is the empty database replaced and the executor reloaded.
type stateSync struct {
	home   string
	rc     Config
	ex     *app.Executor
	logger log.Logger
	src    *snapshot.Source
	recv   *snapshot.Receiver
	// portable serves this node's checkpoints to nodes of other engines
	// (a server database's validator of a network over several engines);
	// nil elsewhere.
	portable *portableSnapshots
	// params are the genesis' parameters when the network runs over
	// several engines (which snapshots of other engines it restores).
	params app.Params

	appHash []byte // trusted AppHash of the snapshot being received
	// progress of the snapshot being received: chunks accepted of total,
	// and the last tenth logged (a daemon's progress is its log).
	total, accepted, loggedTenth uint32
}

// chunkAccepted counts one accepted chunk and logs each further tenth of
// the snapshot received.
func (s *stateSync) chunkAccepted() {
	s.accepted++
	if s.total == 0 {
		return
	}
	if tenth := s.accepted * 10 / s.total; tenth > s.loggedTenth {
		s.loggedTenth = tenth
		s.logger.Info("state sync: receiving the snapshot", "chunks", fmt.Sprintf("%d/%d", s.accepted, s.total), "percent", s.accepted*100/s.total)
	}
}

var _ app.StateSync = (*stateSync)(nil)

func newStateSync(home string, rc Config, ex *app.Executor, logger log.Logger) *stateSync {
	dir := CheckpointDir(home)
	list := func() ([]backend.Checkpoint, error) { return nil, nil }
	if r, err := rc.Restorer(home); err == nil {
		list = func() ([]backend.Checkpoint, error) { return r.List(dir) }
	}
	s := &stateSync{
		home: home, rc: rc, ex: ex, logger: logger,
		src:  &snapshot.Source{Backend: rc.Backend.Kind, List: list, ChunkSize: rc.Checkpoint.SnapshotChunkBytes},
		recv: &snapshot.Receiver{Backend: rc.Backend.Kind, Dir: filepath.Join(home, "data", "statesync")},
	}
	if ex != nil && ex.Params().Mixed() {
		s.params = ex.Params()
		s.recv.Portable = true
		if r, err := rc.Restorer(home); err == nil {
			s.portable = newPortableSnapshots(home, rc, r, logger)
			s.recv.Foreign = func(kind string) bool {
				_, ok := dbrestore.Foreign(r, s.params, kind)
				return ok
			}
		}
	}
	return s
}

func (s *stateSync) ListSnapshots(context.Context, *abci.RequestListSnapshots) (*abci.ResponseListSnapshots, error) {
	snaps, err := s.src.Snapshots(10)
	if err != nil {
		s.logger.Error("state sync: cannot list snapshots", "err", err)
		return &abci.ResponseListSnapshots{}, nil
	}
	if s.portable != nil {
		s.portable.refresh()
		more, err := s.portable.src.Snapshots(10 - len(snaps))
		if err != nil {
			s.logger.Error("state sync: cannot list the snapshots for other engines", "err", err)
		}
		snaps = append(snaps, more...)
	}
	return &abci.ResponseListSnapshots{Snapshots: snaps}, nil
}

func (s *stateSync) LoadSnapshotChunk(_ context.Context, req *abci.RequestLoadSnapshotChunk) (*abci.ResponseLoadSnapshotChunk, error) {
	src := s.src
	if req.Format == snapshot.PortableFormat && s.portable != nil {
		src = s.portable.src
	}
	chunk, err := src.Chunk(req.Height, req.Format, req.Chunk)
	if err != nil {
		// An empty chunk tells the peer this node does not have it.
		s.logger.Error("state sync: cannot serve a chunk", "height", req.Height, "chunk", req.Chunk, "err", err)
		return &abci.ResponseLoadSnapshotChunk{}, nil
	}
	return &abci.ResponseLoadSnapshotChunk{Chunk: chunk}, nil
}

func (s *stateSync) OfferSnapshot(_ context.Context, req *abci.RequestOfferSnapshot) (*abci.ResponseOfferSnapshot, error) {
	if h := s.ex.State().Height; h != 0 {
		s.logger.Error("state sync: refusing a snapshot: this node's database already holds blocks", "height", h)
		return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_ABORT}, nil
	}
	res, err := s.recv.Offer(req.Snapshot)
	if err != nil {
		s.logger.Error("state sync: refusing a snapshot", "height", req.GetSnapshot().GetHeight(), "err", err)
		return &abci.ResponseOfferSnapshot{Result: res}, nil
	}
	s.appHash = req.AppHash
	s.total, s.accepted, s.loggedTenth = req.Snapshot.Chunks, 0, 0
	s.logger.Info("state sync: receiving a snapshot", "height", req.Snapshot.Height, "chunks", req.Snapshot.Chunks)
	return &abci.ResponseOfferSnapshot{Result: res}, nil
}

func (s *stateSync) ApplySnapshotChunk(ctx context.Context, req *abci.RequestApplySnapshotChunk) (*abci.ResponseApplySnapshotChunk, error) {
	done, err := s.recv.Apply(req.Index, req.Chunk, req.Sender)
	switch {
	case errors.Is(err, snapshot.ErrBadChunk):
		s.logger.Error("state sync: refused a chunk; fetching it from another peer", "err", err)
		return &abci.ResponseApplySnapshotChunk{
			Result:        abci.ResponseApplySnapshotChunk_RETRY,
			RefetchChunks: []uint32{req.Index},
			RejectSenders: []string{req.Sender},
		}, nil
	case err != nil:
		s.logger.Error("state sync: cannot apply a chunk", "err", err)
		s.recv.Abort()
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ABORT}, nil
	case !done:
		s.chunkAccepted()
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ACCEPT}, nil
	}
	s.chunkAccepted()
	cp, kind, format := s.recv.File(), s.recv.Kind(), s.recv.Format()
	senders := s.recv.Senders()
	start := time.Now()
	verified, err := s.restore(ctx, cp, kind)
	s.recv.Abort()
	if errors.Is(err, errInstall) {
		s.logger.Error("state sync: cannot install the verified snapshot", "height", cp.Height, "err", err)
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ABORT}, nil
	}
	if err != nil {
		s.logger.Error("state sync: the snapshot does not verify; rejecting it and its senders", "height", cp.Height, "senders", senders, "err", err)
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT, RejectSenders: senders}, nil
	}
	s.logger.Info("state sync: restored and verified the snapshot", "height", cp.Height, "engine", kind, "format", format,
		"restore_and_verify", verified.Sub(start).Round(time.Millisecond), "install", time.Since(verified).Round(time.Millisecond))
	crashPoint("statesync-restored")
	return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ACCEPT}, nil
}

// errInstall marks a failure after the snapshot verified.
var errInstall = errors.New("install")

// restore stages and verifies cp, a checkpoint of the engine kind, then
// installs it in place of the node's empty database and reloads the
// executor. It returns when the snapshot had verified.
func (s *stateSync) restore(ctx context.Context, cp backend.Checkpoint, kind string) (verified time.Time, err error) {
	r, err := s.rc.Restorer(s.home)
	if err != nil {
		return verified, err
	}
	if err := s.stage(ctx, r, cp, kind); err != nil {
		return verified, err
	}
	verified = time.Now()
	return verified, s.install(ctx, r, cp)
}

// stage restores cp beside the node's database with r: a checkpoint of
// the node's own engine as recover does, one of another engine of a
// network over several engines through its canonical rows
// (dbrestore.CrossEngine: it reproduces the same AppHash).
func (s *stateSync) stage(ctx context.Context, r dbrestore.Restorer, cp backend.Checkpoint, kind string) error {
	if kind == s.rc.Backend.Kind {
		return r.Stage(ctx, cp, s.appHash)
	}
	foreign, ok := dbrestore.Foreign(r, s.params, kind)
	if !ok {
		return fmt.Errorf("a %s node cannot restore a snapshot of %s", s.rc.Backend.Kind, kind)
	}
	return foreign.StageForeign(ctx, kind, cp, s.appHash)
}

// install replaces the empty database by the staged one.
func (s *stateSync) install(ctx context.Context, r dbrestore.Restorer, cp backend.Checkpoint) error {
	_ = os.Remove(cp.Path)
	if err := s.ex.Backend().Close(); err != nil {
		r.Discard(ctx)
		return fmt.Errorf("%w: close the empty database: %v", errInstall, err)
	}
	_, ierr := r.Install(ctx, time.Now().UTC().Format("20060102T150405Z"))
	be, err := openBackend(ctx, s.home, s.rc, logCheckpointError(s.logger))
	if err != nil {
		return fmt.Errorf("%w: reopen the database: %v (install: %v)", errInstall, err, ierr)
	}
	if ierr != nil {
		_ = s.ex.Reload(ctx, be) // back on the old, empty database
		return fmt.Errorf("%w: %v", errInstall, ierr)
	}
	if err := s.ex.Reload(ctx, be); err != nil {
		return fmt.Errorf("%w: load the restored database: %v", errInstall, err)
	}
	// The database set aside held no block.
	if err := r.DropReplaced(ctx); err != nil {
		s.logger.Error("state sync: could not delete the empty database it replaced", "err", err)
	}
	return nil
}
