package cost

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

const chainID = "cost"

// execSide is one in-process validator: the executor over a backend, fed
// signed envelopes block by block as CometBFT would feed it.
type execSide struct {
	be     backend.Backend
	ex     *app.Executor
	key    ed25519.PrivateKey
	nonce  uint64
	height int64

	pending []app.TxResult // the last executed block's results
	grouped bool           // envelopes carry Groups (several wl per bc)
}

func openExecutor(ctx context.Context, dialect, dsn string, lanes int) (*execSide, error) {
	d, err := registry.Lookup(dialect)
	if err != nil {
		return nil, err
	}
	// The raw baseline connects as the DSN's role; so does the executor
	// (the benchmark's server is private; a node would create
	// least-privilege roles, which changes nothing the blocks execute).
	be, err := d.Open(ctx, registry.Spec{DSN: dsn, UnsafeSuperuser: d.Server})
	if err != nil {
		return nil, fmt.Errorf("open %s executor database: %w", dialect, err)
	}
	p := app.DefaultParams()
	p.Backend = dialect
	p.MaxStatements = txn.MaxStatements
	ex, err := app.NewExecutor(ctx, be, chainID, p, app.WithLanes(lanes))
	if err != nil {
		be.Close()
		return nil, fmt.Errorf("new executor: %w", err)
	}
	seed := sha256.Sum256([]byte("relchain cost benchmark"))
	return &execSide{be: be, ex: ex, key: ed25519.NewKeyFromSeed(seed[:]), height: ex.State().Height}, nil
}

func (s *execSide) close() { s.be.Close() }

// setup runs each setup bc-transaction in its own block.
func (s *execSide) setup(ctx context.Context, bcs [][]txn.Statement) error {
	for i, stmts := range bcs {
		raws := [][]byte{s.sign(stmts, nil)}
		if err := s.execute(ctx, raws); err != nil {
			return err
		}
		if r := s.pending[0]; r.Code != api.CodeOK {
			return fmt.Errorf("setup bc-transaction %d: code %d: %s", i, r.Code, r.Log)
		}
	}
	return nil
}

func (s *execSide) sign(stmts []txn.Statement, groups []int) []byte {
	s.nonce++
	tx := &txn.Tx{ChainID: chainID, Nonce: s.nonce, Statements: stmts, Groups: groups}
	tx.Sign(s.key)
	return txn.Encode(tx)
}

// prepare signs a block's bc-transactions (the clients' work, not
// measured): one wl-transaction per bc-transaction as is, several as a
// batch envelope (txn.Tx.Groups).
func (s *execSide) prepare(blk [][]workload.WL) [][]byte {
	raws := make([][]byte, len(blk))
	for i, bc := range blk {
		var stmts []txn.Statement
		var groups []int
		for _, wl := range bc {
			stmts = append(stmts, wl.Statements...)
			groups = append(groups, len(wl.Statements))
		}
		if len(bc) == 1 {
			groups = nil
		} else {
			s.grouped = true
		}
		raws[i] = s.sign(stmts, groups)
	}
	return raws
}

// check is CheckTx for every envelope of the block, as the node runs it
// when the txs reach its mempool (the executor then skips the signatures
// it verified).
func (s *execSide) check(ctx context.Context, raws [][]byte) error {
	for i, raw := range raws {
		if _, rej := s.ex.Check(ctx, raw); rej != nil {
			return fmt.Errorf("check tx %d: %v", i, rej)
		}
	}
	return nil
}

// execute is FinalizeBlock and Commit of one block.
func (s *execSide) execute(ctx context.Context, raws [][]byte) error {
	s.height++
	var hb [8]byte
	binary.BigEndian.PutUint64(hb[:], uint64(s.height))
	hash := sha256.Sum256(hb[:])
	info := app.BlockInfo{Height: s.height, Time: time.Unix(1_700_000_000+s.height, 0).UTC(), Hash: hash[:]}
	results, _, err := s.ex.FinalizeBlock(ctx, info, raws)
	if err != nil {
		return fmt.Errorf("finalize block %d: %w", s.height, err)
	}
	if _, err := s.ex.Commit(ctx); err != nil {
		return fmt.Errorf("commit block %d: %w", s.height, err)
	}
	s.pending = results
	return nil
}

// committed counts the wl-transactions of the last block that committed
// (outside the measured window: it decodes the results).
func (s *execSide) committed() (int, error) {
	n := 0
	for i, r := range s.pending {
		if !s.grouped {
			switch r.Code {
			case api.CodeOK:
				n++
			case api.CodeExecFailed:
			default:
				return 0, fmt.Errorf("block %d tx %d: code %d: %s", s.height, i, r.Code, r.Log)
			}
			continue
		}
		if r.Code != api.CodeOK {
			return 0, fmt.Errorf("block %d batch %d: code %d: %s", s.height, i, r.Code, r.Log)
		}
		var d api.ExecData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return 0, fmt.Errorf("block %d batch %d: result data: %w", s.height, i, err)
		}
		for _, wl := range d.Batch {
			if wl.Code == api.CodeOK {
				n++
			}
		}
	}
	return n, nil
}
