// The shadow gate (issue 37): on a network over several engines, a
// validator whose storage runs PostgreSQL's SQL natively judges every
// statement as the SQLite validators' translation does, on a schema-only
// SQLite copy, so a statement one engine cannot run fails on every node.

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/txn"
)

// beyondPostgres is the refusal, on a network over several engines, of a
// statement SQLite's translation takes beyond PostgreSQL's gate.
const beyondPostgres = "this statement runs on SQLite storage only (PostgreSQL's gate refuses it: ALTER TABLE ... RENAME), and this network's validators run several engines (docs/mixed-networks.md)"

// ExecutorOption configures NewExecutor.
type ExecutorOption func(*executorOptions)

type executorOptions struct {
	openShadow    func(ctx context.Context) (backend.Backend, error)
	schemaJudges  map[string]func() backend.SchemaJudge
	lanes         int  // WithLanes
	adaptiveLanes bool // WithAdaptiveLanes
	verifyPool    int  // WithVerifyPool
}

// WithSchemaJudge gives NewExecutor the way to make engine's schema judge
// (backend.SchemaJudge; dialect.Dialect.SchemaJudged: MariaDB's
// translation, mysql.NewSchemaJudge). Every validator of a network over
// several engines among which engine runs needs it, that engine's own
// included; NewExecutor refuses to start without it.
func WithSchemaJudge(engine string, judge func() backend.SchemaJudge) ExecutorOption {
	return func(o *executorOptions) {
		if o.schemaJudges == nil {
			o.schemaJudges = make(map[string]func() backend.SchemaJudge)
		}
		o.schemaJudges[engine] = judge
	}
}

// WithSchemaJudges is WithSchemaJudge for each engine of judges.
func WithSchemaJudges(judges map[string]func() backend.SchemaJudge) ExecutorOption {
	return func(o *executorOptions) {
		for engine, j := range judges {
			WithSchemaJudge(engine, j)(o)
		}
	}
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
// with SQLite validators, on another engine.
func needsShadow(be backend.Backend, params Params) bool {
	return params.Mixed() && be.Dialect() != shadowEngine && slices.Contains(params.Engines(), shadowEngine)
}

// shadowEngine is the engine whose translation the shadow gate's database
// runs. Its verdict comes after every schema judge's (engines judge in
// the order of their names: openSchemaJudges checks that they sort
// before it), and a node on it reaches its own verdict last, when it runs
// the statement.
const shadowEngine = "sqlite"

// schemaJudge is one engine's schema judge.
type schemaJudge struct {
	engine string
	judge  backend.SchemaJudge
}

// openSchemaJudges makes the schema judge of every engine of a network
// over several engines that needs one (dialect.Dialect.SchemaJudged), in
// the order of their names, and replays the DDL log of system into each.
func openSchemaJudges(o executorOptions, params Params, system map[string][]byte) ([]schemaJudge, error) {
	if !params.Mixed() {
		return nil, nil
	}
	var out []schemaJudge
	for _, engine := range params.Engines() { // sorted (setEngines)
		d, err := dialect.Lookup(engine)
		if err != nil || !d.SchemaJudged {
			continue
		}
		if engine > shadowEngine {
			return nil, fmt.Errorf("schema judge of %s: engines judge in the order of their names, before %s's shadow gate", engine, shadowEngine)
		}
		newJudge := o.schemaJudges[engine]
		if newJudge == nil {
			return nil, fmt.Errorf("this validator of a network over several engines needs %s's schema judge (app.WithSchemaJudge), which judges statements as %s's validators do", engine, engine)
		}
		log, err := ddlLog(system)
		if err != nil {
			return nil, fmt.Errorf("schema judge of %s: %w", engine, err)
		}
		j := newJudge()
		for _, st := range log {
			if err := j.Apply(st.SQL, argValues(st.Args)); err != nil {
				return nil, fmt.Errorf("schema judge of %s: replay the DDL log: %w", engine, err)
			}
		}
		out = append(out, schemaJudge{engine: engine, judge: j})
	}
	return out, nil
}

// ddlLog is the DDL log of system (the committed system state), in order.
func ddlLog(system map[string][]byte) ([]txn.Statement, error) {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range system {
			if strings.HasPrefix(k, ddlLogPrefix) && !yield(k) {
				return
			}
		}
	})
	out := make([]txn.Statement, 0, len(keys))
	for _, k := range keys {
		var s txn.Statement
		if err := json.Unmarshal(system[k], &s); err != nil {
			return nil, fmt.Errorf("DDL log entry %s: %w", k, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// openJudges makes what a validator on be of a network over several
// engines judges statements by besides its own gate (none on other
// networks): the schema judges and the shadow gate's database, from the
// committed system state (its DDL log) at st.
func openJudges(ctx context.Context, be backend.Backend, o executorOptions, params Params, system map[string][]byte, st backend.State) ([]schemaJudge, backend.Backend, error) {
	judges, err := openSchemaJudges(o, params, system)
	if err != nil || !needsShadow(be, params) {
		return judges, nil, err
	}
	shadow, err := openShadowGate(ctx, o, system, st)
	return judges, shadow, err
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
	blk, err := sb.Begin(ctx)
	if err != nil {
		sb.Close()
		return nil, fmt.Errorf("shadow gate: begin: %w", err)
	}
	log, err := ddlLog(system)
	if err != nil {
		return nil, shadowFail(sb, blk, err)
	}
	for n, s := range log {
		if _, err := blk.Exec(ctx, s.SQL, argValues(s.Args)); err != nil {
			return nil, shadowFail(sb, blk, fmt.Errorf("replay DDL log entry %d (%q): %w", n, s.SQL, err))
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

// beginShadow opens block p's shadow block, when the node has a shadow,
// and gives it the schema judges.
func (e *Executor) beginShadow(ctx context.Context, p *pendingBlock) error {
	p.judges = e.judges
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

// shadowJudge is the verdict of the engines of a network over several
// engines on statement st before it runs on the node's own storage, in
// the order of their names, as every node reaches it: each schema
// judge's, then the shadow's (the translation's refusal, as a SQLite
// node returns it, and for DDL, which the shadow runs so that its schema
// follows, the shadow's failure). nil: run it.
func (p *pendingBlock) shadowJudge(ctx context.Context, st txn.Statement, ddl bool, env sqlcheck.Env) error {
	args := argValues(st.Args)
	for _, j := range p.judges {
		if err := j.judge.Judge(st.SQL, args, env); err != nil {
			return err
		}
	}
	if p.shadow == nil {
		return nil
	}
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
// as st, and applies its DDL to the schema judges. A shadow that cannot
// commit (its node-local file) is built again from the committed DDL log,
// so that the next block judges by the chain's schema; until then the
// failure is logged.
func (e *Executor) commitShadow(ctx context.Context, p *pendingBlock, st backend.State) {
	e.applyDDL(p)
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
	e.mu.Lock()
	e.shadow = sb
	e.mu.Unlock()
}

// applyDDL makes the schema judges follow block p's committed DDL. A
// judge that cannot (a committed statement it does not translate: a bug)
// is built again from the whole DDL log; if that fails too the node
// cannot judge as the network does, and the next block stops on it.
func (e *Executor) applyDDL(p *pendingBlock) {
	if len(p.ddl) == 0 || len(e.judges) == 0 {
		return
	}
	for _, j := range e.judges {
		for _, st := range p.ddl {
			if err := j.judge.Apply(st.SQL, argValues(st.Args)); err != nil {
				e.rebuildJudges(p, err)
				return
			}
		}
	}
}

// rebuildJudges builds the schema judges again from the committed DDL log
// after cause; on failure the node has none and stops at its next block.
func (e *Executor) rebuildJudges(p *pendingBlock, cause error) {
	e.db.logger.Error("schema judge: rebuilding it from the DDL log", "height", p.height, "err", cause)
	e.mu.Lock()
	system := maps.Clone(e.systemRaw)
	e.mu.Unlock()
	maps.Copy(system, p.system)
	judges, err := openSchemaJudges(e.opts, e.params, system)
	if err != nil {
		e.db.logger.Error("schema judge: rebuild failed; the next block will stop on it", "err", err)
		judges = []schemaJudge{{engine: "(failed)", judge: failedJudge{err}}}
	}
	e.mu.Lock()
	e.judges = judges
	e.mu.Unlock()
}

// errJudgeFailed is the node's fault (never a statement's verdict) of a
// schema judge that could not be built.
var errJudgeFailed = errors.New("shadow gate")

// failedJudge refuses to judge: the node's schema judge could not be
// built, and the block stops on the error (a node fault, not a verdict).
type failedJudge struct{ err error }

func (f failedJudge) Judge(string, []any, sqlcheck.Env) error {
	return fmt.Errorf("%w: the schema judge could not be built: %v", errJudgeFailed, f.err)
}
func (f failedJudge) Apply(string, []any) error { return f.err }
