package app

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/statedigest"
)

// Executor validates and executes blocks of bc-transactions on one backend.
//
// FinalizeBlock and Commit are called by one goroutine (CometBFT's consensus
// connection, or a replay tool). Check, State and WaitHeight may be called
// concurrently from others.
type Executor struct {
	be      backend.Backend
	chainID string
	params  Params

	mu        sync.Mutex
	committed backend.State
	// stateDigest is the state (StateDigest) after the committed block:
	// an empty block that leaves it unchanged leaves the AppHash
	// unchanged. systemSum is the system state's part of it, systemRaw
	// the committed system entries it sums (all but the AppHash inputs).
	stateDigest []byte
	systemSum   statedigest.Sum
	systemRaw   map[string][]byte
	heightCh    chan struct{} // closed and replaced at every commit
	pending     *pendingBlock
	laneStats   laneCounters // parallel runs (lanes.go)
	laneChoice  laneChooser  // WithAdaptiveLanes (lanechoice.go)
	laneMinTxs  int          // minTxsPerLane (tests change it)
	planSkip    planBackoff  // WithAdaptiveLanes
	laneWarm    laneWarming  // warmLanes, after each Commit
	// laneAssign, set by tests only, replaces the schedule's lanes.
	laneAssign func(txs int) [][]int
	// slot serializes the backend's Block between consensus and
	// rehearsals (Rehearse).
	slot *blockSlot
	// db is the database's availability and the retry state (dbfault.go).
	db *dbHealth

	// envelopes holds the decoded, signature-verified envelopes of the
	// txs CheckTx admitted, for their block (envelopes.go).
	envelopes *envelopeCache
	// ahead are the envelope verdicts the pool computes for the block
	// being executed (verifyahead.go).
	ahead  atomic.Pointer[aheadVerdicts]
	replay map[string]replayState // committed replay windows, by public key; guarded by mu
	// chainTime is the consensus time of the last block this node
	// committed (zero until the first one since start); guarded by mu.
	// CheckTx bounds nonces with it (see ReplayWindow).
	chainTime time.Time
	perms     perms // admins (fixed) and committed grants (guarded by mu)
	// vals is the committed validator set (guarded by mu); valsKnown
	// whether the database records one (a database written before
	// validator membership does not), valsUnsaved whether it came from
	// InitChain and the first block must write it.
	vals        valSet
	valsKnown   bool
	valsUnsaved bool
	// proto is the committed protocol state (protocol.go; guarded by mu).
	proto protoState
	// auth is the authenticated state (authstate.go): written by the
	// holder of the block slot, its committed part read under mu.
	auth *authState
	// authSnap is the committed authenticated state the query path proves
	// against (proof.go; guarded by mu); nil before version 4.
	authSnap *authSnapshot
	// authSnaps are the last committed authenticated states, oldest
	// first, authSnap last (named-height proofs; guarded by mu).
	authSnaps []*authSnapshot
	// history is this node's row history configuration (history.go;
	// guarded by mu).
	history HistoryConfig
	// rootsKept: a block this process committed recorded the tables'
	// roots in the history (proof_history.go; guarded by mu); past are
	// the states rebuilt from it for proofs.
	rootsKept bool
	past      pastStates
	// startCheck is StartCheck's outcome (set once, by NewExecutor).
	startCheck error
	// shadow is the shadow gate's database (shadow.go), nil on a node
	// that needs none; opts how to open it again.
	shadow backend.Backend
	opts   executorOptions
	// judges are the schema judges of a network over several engines
	// (shadow.go), in the order of their engines' names.
	judges []schemaJudge
	// pgSQL: the network speaks PostgreSQL's SQL (speaksPostgres), fixed
	// by the genesis and the engine: read once, not per statement.
	pgSQL bool
}

// NewExecutor loads the committed state from be.
func NewExecutor(ctx context.Context, be backend.Backend, chainID string, params Params, options ...ExecutorOption) (*Executor, error) {
	var opts executorOptions
	for _, o := range options {
		o(&opts)
	}
	if params.MaxStatements == 0 {
		params.MaxStatements = DefaultParams().MaxStatements
	}
	if err := checkEngine(be, params); err != nil {
		return nil, err
	}
	if err := checkProfile(ctx, be, params.DBProfile); err != nil {
		return nil, err
	}
	st, err := be.LoadState(ctx)
	if err != nil {
		return nil, fmt.Errorf("load committed state: %w", err)
	}
	sums, _, err := be.StoredState(ctx)
	if err != nil {
		return nil, fmt.Errorf("load the state digest: %w", err)
	}
	admins, err := parseAdmins(params.Admins)
	if err != nil {
		return nil, err
	}
	stored, err := be.LoadSystem(ctx)
	if err != nil {
		return nil, fmt.Errorf("load system state: %w", err)
	}
	sysState, err := loadSystemState(stored, params.GenesisProtocol())
	if err != nil {
		return nil, err
	}
	if err := checkProtocol(sysState.proto, st.Height); err != nil {
		return nil, err
	}
	sys := SystemSum(stored)
	stateDigest := StateDigest(sums.Digest(), &sys)
	auth, authSnap, mismatch, err := loadAuthState(ctx, be, st, stored, stateDigest)
	if err != nil {
		return nil, err
	}
	judges, shadow, err := openJudges(ctx, be, opts, params, stored, st)
	if err != nil {
		return nil, err
	}
	delete(stored, apphashKey)
	ex := &Executor{
		shadow:      shadow,
		judges:      judges,
		opts:        opts,
		laneMinTxs:  minTxsPerLane,
		auth:        auth,
		authSnap:    authSnap,
		authSnaps:   snapList(authSnap),
		startCheck:  mismatch,
		proto:       sysState.proto,
		systemSum:   sys,
		systemRaw:   stored,
		replay:      sysState.replay,
		perms:       perms{admins: admins, grants: sysState.grants},
		vals:        sysState.vals,
		valsKnown:   len(sysState.vals) > 0,
		be:          be,
		chainID:     chainID,
		params:      params,
		committed:   st,
		stateDigest: stateDigest,
		heightCh:    make(chan struct{}),
		slot:        newBlockSlot(),
		db:          newDBHealth(),
		envelopes:   newEnvelopeCache(envelopeCacheEntries, envelopeCacheBytes),
	}
	ex.pgSQL = ex.speaksPostgres()
	return ex, nil
}

// checkEngine refuses a backend the genesis does not name, or opened for
// another SQL dialect than the genesis fixes.
func checkEngine(be backend.Backend, params Params) error {
	switch {
	case params.Mixed() && !slices.Contains(params.Backends, be.Dialect()):
		return fmt.Errorf("genesis says the network's validators run the backends %v, this node is configured with %q: configure one of them", params.Backends, be.Dialect())
	case !params.Mixed() && params.Backend != "" && params.Backend != be.Dialect():
		return fmt.Errorf("genesis says the network runs backend %q, this node is configured with %q: every validator must run the same backend", params.Backend, be.Dialect())
	}
	return checkSQLDialect(be, params)
}

// checkProfile refuses a backend whose database server differs from the
// network's profile (backend.ProfileChecker: the backend's default with
// the genesis's db_profile), so that a node never executes a block on a
// server that computes differently; the backend checks again before every
// block.
func checkProfile(ctx context.Context, be backend.Backend, overrides map[string]string) error {
	pc, ok := be.(backend.ProfileChecker)
	if !ok {
		if len(overrides) > 0 {
			return fmt.Errorf("genesis app_state names a db_profile, but backend %q has no server settings to check", be.Dialect())
		}
		return nil
	}
	if err := pc.CheckProfile(ctx, overrides); err != nil {
		return fmt.Errorf("this node's database server does not match the network's profile: %w", err)
	}
	return nil
}

// systemState is the decoded system state of a database.
type systemState struct {
	replay map[string]replayState
	grants map[string]grantSet
	vals   valSet
	proto  protoState
}

// loadSystemState decodes the system entries LoadSystem returned.
func loadSystemState(stored map[string][]byte, genesisVersion uint64) (systemState, error) {
	s := systemState{replay: make(map[string]replayState), grants: make(map[string]grantSet), vals: make(valSet), proto: genesisProto(genesisVersion)}
	for k, v := range stored {
		switch {
		case k == apphashKey:
			if _, err := decodeAppHashInputs(v); err != nil {
				return s, fmt.Errorf("load system state: %w", err)
			}
		case strings.HasPrefix(k, replayKeyPrefix):
			w, err := decodeReplayState(v)
			if err != nil {
				return s, fmt.Errorf("load replay window of key %X: %w", k[len(replayKeyPrefix):], err)
			}
			s.replay[k[len(replayKeyPrefix):]] = *w
		case strings.HasPrefix(k, grantKeyPrefix):
			g, err := decodeGrantSet(v)
			if err != nil {
				return s, fmt.Errorf("load grants of key %X: %w", k[len(grantKeyPrefix):], err)
			}
			s.grants[k[len(grantKeyPrefix):]] = g
		case strings.HasPrefix(k, validatorKeyPrefix) && len(k) == len(validatorKeyPrefix)+32:
			p, err := decodePower(v)
			if err != nil {
				return s, fmt.Errorf("load validator %X: %w", k[len(validatorKeyPrefix):], err)
			}
			s.vals[k[len(validatorKeyPrefix):]] = p
		case strings.HasPrefix(k, ddlLogPrefix):
			// A mixed network's DDL log: the shadow gate's (shadow.go).
		case k == protocolVersionKey || k == protocolUpgradeKey:
			if err := s.proto.load(k, v); err != nil {
				return s, fmt.Errorf("load system state: %w", err)
			}
		default:
			return s, fmt.Errorf("load system state: unknown key %q (written by a newer relchain?)", k)
		}
	}
	return s, nil
}

// InitValidators records the genesis validator set (InitChain's): the
// first block writes it into the system state. It is ignored when the
// database already records a set or has committed blocks.
func (e *Executor) InitValidators(vals []ValidatorUpdate) error {
	set := make(valSet, len(vals))
	for _, v := range vals {
		if len(v.PubKey) != ed25519.PublicKeySize {
			return fmt.Errorf("genesis validator %X: relchain records ed25519 consensus keys only (32 bytes)", v.PubKey)
		}
		if v.Power <= 0 || v.Power > MaxValidatorPower {
			return fmt.Errorf("genesis validator %X: power %d out of range", v.PubKey, v.Power)
		}
		set[string(v.PubKey)] = v.Power
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.valsKnown || e.committed.Height > 0 || len(set) == 0 {
		return nil
	}
	e.vals, e.valsUnsaved = set, true
	return nil
}

// Validators returns the committed validator set, sorted by key, and
// whether the database records one.
func (e *Executor) Validators() ([]ValidatorUpdate, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vals.updates(), e.valsKnown || e.valsUnsaved
}

func (e *Executor) committedStateDigest() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stateDigest
}

// Grants returns the committed permission state.
func (e *Executor) Grants() api.Grants {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.perms.view(e.committed.Height, e.params.Admins)
}

// ExecutedNonce is the highest nonce key (a raw ed25519 public key)
// executed as of the last committed block (0: never), and that height.
func (e *Executor) ExecutedNonce(key []byte) (uint64, int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.replay[string(key)].Max, e.committed.Height
}

// Backend returns the executor's backend.
func (e *Executor) Backend() backend.Backend {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.be
}

// gate is the backend's determinism and safety gate: the executor's
// verdicts on statements come from it (backend.Gate).
func (e *Executor) gate() backend.Gate { return e.Backend().Gate() }

// Reload makes be the executor's backend, loading its committed state as
// NewExecutor does: after state sync installed a restored database. No
// block may be pending; the caller closes the old backend.
func (e *Executor) Reload(ctx context.Context, be backend.Backend) error {
	fresh, err := NewExecutor(ctx, be, e.chainID, e.params, func(o *executorOptions) { *o = e.opts })
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending != nil {
		if fresh.shadow != nil {
			fresh.shadow.Close()
		}
		return errors.New("reload: a block is pending")
	}
	if e.shadow != nil {
		e.shadow.Close()
	}
	e.shadow, e.judges, e.pgSQL = fresh.shadow, fresh.judges, fresh.pgSQL
	e.be = fresh.be
	e.committed = fresh.committed
	e.stateDigest = fresh.stateDigest
	e.systemSum = fresh.systemSum
	e.systemRaw = fresh.systemRaw
	e.replay = fresh.replay
	e.perms = fresh.perms
	e.vals, e.valsKnown, e.valsUnsaved = fresh.vals, fresh.valsKnown, false
	e.proto = fresh.proto
	e.auth, e.authSnap, e.authSnaps = fresh.auth, fresh.authSnap, fresh.authSnaps
	close(e.heightCh)
	e.heightCh = make(chan struct{})
	return nil
}

// Params returns the network parameters.
func (e *Executor) Params() Params { return e.params }

// State returns the last committed state.
func (e *Executor) State() backend.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.committed
}

// Close rolls back an uncommitted block and closes the shadow gate's
// database; the backend stays open.
func (e *Executor) Close(ctx context.Context) error {
	e.mu.Lock()
	p := e.pending
	e.pending = nil
	e.mu.Unlock()
	if e.shadow != nil {
		defer e.shadow.Close()
	}
	if p == nil {
		return nil
	}
	defer e.slot.releaseBlock()
	return p.rollback(ctx)
}

// checkSQLDialect refuses a backend opened for another SQL dialect than
// the genesis fixes (sql_dialect; backend/registry opens it so): its
// statements would be read in the wrong language.
func checkSQLDialect(be backend.Backend, params Params) error {
	d, err := dialect.Lookup(be.Dialect())
	if err != nil {
		if params.SQLDialect == "" {
			return nil // a test double's own dialect: nothing translated
		}
		return err
	}
	want, got := d.SQLDialect(params.SQLDialect), be.Capabilities().SQLDialect
	if got == "" {
		got = d.Name
	}
	if want != got {
		return fmt.Errorf("genesis says the network speaks the %s SQL dialect, this node opened its %s database for the %s dialect: open it through backend/registry with the genesis' sql_dialect", want, d.Name, got)
	}
	return nil
}
