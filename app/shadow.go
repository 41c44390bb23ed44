// The shadow gate (issue 37): on a network over several engines, a
// validator whose storage runs PostgreSQL's SQL natively judges every
// statement as the SQLite validators' translation does, on a schema-only
// SQLite copy, so a statement one engine cannot run fails on every node.

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/txn"
)

// beyondPostgres is the refusal, on a network over several engines, of a
// statement SQLite's translation takes beyond PostgreSQL's gate.
const beyondPostgres = "this statement runs on SQLite storage only (PostgreSQL's gate refuses it: ALTER TABLE ... RENAME), and this network's validators run several engines (docs/mixed-networks.md)"

// ExecutorOption configures NewExecutor.
type ExecutorOption func(*executorOptions)

type executorOptions struct {
	openShadow func(ctx context.Context) (backend.Backend, error)
}

// WithShadow gives NewExecutor the way to open the shadow gate's database:
// an empty SQLite database speaking PostgreSQL's SQL (the genesis'
// translator version), node-local and rebuilt at every start. A
// validator of a network over several engines whose own storage does not
// translate PostgreSQL's SQL needs it; NewExecutor refuses to start
// without it.
func WithShadow(open func(ctx context.Context) (backend.Backend, error)) ExecutorOption {
	return func(o *executorOptions) { o.openShadow = open }
}

// ddlLogPrefix keys the system state's log of DDL statements of a network
// over several engines (mixed networks only): every DDL statement of a
// committed tx, in order ("ddl/" height, then its index in the block, in
// hex), as JSON of its txn.Statement. Every node writes it, so it is part
// of the system state alike; the shadow gate replays it at start.
const ddlLogPrefix = "ddl/"

// ddlLogKey is the key of the n-th DDL statement of block height.
func ddlLogKey(height int64, n int) string {
	return fmt.Sprintf("%s%016x/%06x", ddlLogPrefix, height, n)
}

// needsShadow reports whether a node on storage be of a network with
// params judges statements on a shadow: a network over several engines
// whose storage runs PostgreSQL's SQL without translating it.
func needsShadow(be backend.Backend, params Params) bool {
	if !params.Mixed() {
		return false
	}
	d, err := dialect.Lookup(be.Dialect())
	return err == nil && !d.Translated(params.SQLDialect)
}

// openShadowGate opens the shadow database and replays the DDL log of
// system (the committed system state) into it, in one block.
func openShadowGate(ctx context.Context, o executorOptions, system map[string][]byte, st backend.State) (backend.Backend, error) {
	if o.openShadow == nil {
		return nil, fmt.Errorf("this validator of a network over several engines runs PostgreSQL's SQL natively and needs the shadow gate (app.WithShadow), which judges statements as the translating engines do")
	}
	sb, err := o.openShadow(ctx)
	if err != nil {
		return nil, fmt.Errorf("shadow gate: open: %w", err)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range system {
			if strings.HasPrefix(k, ddlLogPrefix) && !yield(k) {
				return
			}
		}
	})
	blk, err := sb.Begin(ctx)
	if err != nil {
		sb.Close()
		return nil, fmt.Errorf("shadow gate: begin: %w", err)
	}
	for _, k := range keys {
		var s txn.Statement
		if err := json.Unmarshal(system[k], &s); err != nil {
			return nil, shadowFail(sb, blk, fmt.Errorf("DDL log entry %s: %w", k, err))
		}
		if _, err := blk.Exec(ctx, s.SQL, argValues(s.Args)); err != nil {
			return nil, shadowFail(sb, blk, fmt.Errorf("replay %s (%q): %w", k, s.SQL, err))
		}
	}
	if err := commitShadow(ctx, blk, st); err != nil {
		sb.Close()
		return nil, err
	}
	return sb, nil
}

func shadowFail(sb backend.Backend, blk backend.Block, err error) error {
	_ = blk.Rollback(context.Background())
	sb.Close()
	return fmt.Errorf("shadow gate: %w", err)
}

// commitShadow commits the shadow's block (its digests first, so that no
// change record outlives it).
func commitShadow(ctx context.Context, blk backend.Block, st backend.State) error {
	if err := backend.CommitDigested(ctx, blk, st); err != nil {
		return fmt.Errorf("shadow gate: %w", err)
	}
	return nil
}

// beginShadow opens block p's shadow block, when the node has a shadow.
func (e *Executor) beginShadow(ctx context.Context, p *pendingBlock) error {
	if e.shadow == nil {
		return nil
	}
	blk, err := e.shadow.Begin(ctx)
	if err != nil {
		return fmt.Errorf("shadow gate: begin: %w", err)
	}
	p.shadow = blk
	return nil
}

// rollback discards block p: its db-transaction and its shadow's.
func (p *pendingBlock) rollback(ctx context.Context) error {
	if p.shadow != nil {
		_ = p.shadow.Rollback(ctx)
		p.shadow = nil
	}
	return p.block.Rollback(ctx)
}

// shadowJudge is the shadow's verdict on statement st before it runs on
// the node's own storage: the translation's refusal (as a translating
// node returns it), and for DDL (which the shadow runs, so that its
// schema follows) the shadow's failure. nil: run it.
func (p *pendingBlock) shadowJudge(ctx context.Context, st txn.Statement, ddl bool) error {
	if p.shadow == nil {
		return nil
	}
	args := argValues(st.Args)
	if ddl {
		_, err := p.shadow.Exec(ctx, st.SQL, args)
		return err
	}
	tj, ok := p.shadow.(backend.TranslationJudge)
	if !ok {
		return fmt.Errorf("shadow gate: its storage has no translation to judge by")
	}
	return tj.JudgeTranslation(ctx, st.SQL, args)
}

// saveDDLLog adds block p's DDL statements to the system entries kv
// (mixed networks).
func saveDDLLog(p *pendingBlock, kv map[string][]byte) {
	for n, st := range p.ddl {
		kv[ddlLogKey(p.height, n)] = encodeJSON(st)
	}
}

// commitShadow commits block p's shadow block after the block committed
// as st. A shadow that cannot commit (its node-local file) is built again
// from the committed DDL log, so that the next block judges by the
// chain's schema; until then the failure is logged.
func (e *Executor) commitShadow(ctx context.Context, p *pendingBlock, st backend.State) {
	if p.shadow == nil {
		return
	}
	blk := p.shadow
	p.shadow = nil
	err := commitShadow(ctx, blk, st)
	if err == nil {
		return
	}
	_ = blk.Rollback(ctx)
	e.db.logger.Error("shadow gate: rebuilding it from the DDL log", "height", st.Height, "err", err)
	e.mu.Lock()
	system := maps.Clone(e.systemRaw)
	e.mu.Unlock()
	maps.Copy(system, p.system)
	e.shadow.Close()
	sb, err := openShadowGate(ctx, e.opts, system, st)
	if err != nil {
		e.db.logger.Error("shadow gate: rebuild failed; the next block will stop on it", "err", err)
		return
	}
	e.shadow = sb
}
