package node

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/internal/dbrestore"
	"github.com/relchain/relchain/snapshot"
)

// portableSnapshots serves, on a server-database validator of a network
// over several engines, its checkpoints as SQLite databases speaking
// PostgreSQL's SQL (snapshot.PortableFormat), so that a node of any
// engine of the network, SQLite's included, can join from it (issue 37).
// Each of the node's checkpoints is exported once, in the background,
// when peers ask for snapshots and the newest has no export yet
// (dbrestore.Exporter: restored beside the live database, verified,
// copied through its canonical rows, verified again). An export is whole
// in itself: as many are kept as checkpoints (relchain.toml
// checkpoint.keep and the newest), whether or not the node still holds
// the checkpoint it was made from. The exports lie in
// checkpoints/portable/.
type portableSnapshots struct {
	src    *snapshot.Source
	dir    string
	native func() ([]backend.Checkpoint, error)
	export dbrestore.Exporter
	keep   int
	logger log.Logger

	mu      sync.Mutex
	running bool
	wg      sync.WaitGroup
}

// newPortableSnapshots is the portable snapshots of a node home whose
// restorer r exports, or nil.
func newPortableSnapshots(home string, rc Config, r dbrestore.Restorer, logger log.Logger) *portableSnapshots {
	ex, ok := dbrestore.Export(r)
	if !ok {
		return nil
	}
	dir := filepath.Join(CheckpointDir(home), "portable")
	p := &portableSnapshots{dir: dir, export: ex, keep: rc.Checkpoint.Keep, logger: logger,
		native: func() ([]backend.Checkpoint, error) { return r.List(CheckpointDir(home)) }}
	p.src = &snapshot.Source{Backend: dialect.Portable, Format: snapshot.PortableFormat, ChunkSize: rc.Checkpoint.SnapshotChunkBytes,
		List: func() ([]backend.Checkpoint, error) { return backend.ListCheckpoints(dir, ".db") }}
	return p
}

// refresh starts exporting the node's newest checkpoint if it has no
// export and none is running.
func (p *portableSnapshots) refresh() {
	native, err := p.native()
	if err != nil || len(native) == 0 {
		return
	}
	exported, _ := backend.ListCheckpoints(p.dir, ".db")
	newestDone := len(exported) > 0 && exported[0].Height >= native[0].Height
	p.mu.Lock()
	defer p.mu.Unlock()
	if newestDone || p.running {
		return
	}
	p.running = true
	p.wg.Add(1)
	go p.run(native[0])
}

// run exports cp.
func (p *portableSnapshots) run(cp backend.Checkpoint) {
	defer p.wg.Done()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	out, err := p.export.ExportSQLite(ctx, cp, p.dir)
	if err == nil {
		err = backend.PruneCheckpoints(p.dir, ".db", p.keep)
	}
	if err != nil {
		p.logger.Error("state sync: cannot export a checkpoint for nodes of other engines", "height", cp.Height, "err", err)
	} else {
		p.logger.Info("state sync: exported a checkpoint for nodes of other engines", "height", out.Height, "took", time.Since(start).Round(time.Millisecond))
	}
	p.mu.Lock()
	p.running = false
	p.mu.Unlock()
}
