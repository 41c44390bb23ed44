package lightverify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	dbm "github.com/cometbft/cometbft-db"
	"github.com/cometbft/cometbft/libs/log"
	"github.com/cometbft/cometbft/light"
	"github.com/cometbft/cometbft/light/provider"
	lighthttp "github.com/cometbft/cometbft/light/provider/http"
	lightdb "github.com/cometbft/cometbft/light/store/db"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/client/internal/nodehttp"
)

// DefaultTrustingPeriod is how long a trusted header stays a valid
// starting point for verification when the caller does not say
// (light.TrustOptions.Period): it must be shorter than the time a
// validator that left the set could still be punished for misbehaving.
const DefaultTrustingPeriod = 14 * 24 * time.Hour

// requestTimeout bounds each of the light client's calls that ask nodes
// (Update, VerifyLightBlockAtHeight), which run under the Verifier's own
// context, never under a caller's: CometBFT's light client takes a
// request cut short by its context for the node's misbehaviour and drops
// the node. The bound is longer than the HTTP provider's own budget for a
// node that does not answer (5 attempts of 5 s with backoff, about 45 s
// for each of a light block's two RPC methods), so that such a node is
// judged by the light client itself (ErrNoResponse: a witness takes
// over, no node is dropped) before this bound cuts the call short.
const requestTimeout = 2 * time.Minute

// ErrNoHeader: the header asked for did not appear before the context
// ended.
var ErrNoHeader = errors.New("no such header yet")

// ErrClosed: the Verifier was closed.
var ErrClosed = errors.New("light client verifier closed")

// Root is a trust root: the genesis the user trusts, or a header.
type Root struct {
	// Genesis, when set, is the trusted genesis (chain ID and validators).
	Genesis *types.GenesisDoc
	// Height and Hash name a trusted header when Genesis is nil.
	Height int64
	Hash   []byte
	// ChainID is the chain of a header root (a genesis root carries its own).
	ChainID string
	// Period is the trusting period (0: DefaultTrustingPeriod).
	Period time.Duration
}

// FromGenesis is the trust root of a genesis file the user trusts.
func FromGenesis(path string) (Root, error) {
	g, err := types.GenesisDocFromFile(path)
	if err != nil {
		return Root{}, fmt.Errorf("trusted genesis %s: %w", path, err)
	}
	return Root{Genesis: g, ChainID: g.ChainID}, nil
}

// FromHeader is the trust root of a header the user trusts: its chain,
// height and hash.
func FromHeader(chainID string, height int64, hash []byte) Root {
	return Root{ChainID: chainID, Height: height, Hash: hash}
}

// Verifier hands out verified headers of one chain. It is safe for
// concurrent use. Its light client asks the nodes one call at a time,
// under the Verifier's own context: a caller's context bounds only how
// long that caller waits (for the call in flight, then for its own), and
// a call whose caller stopped waiting finishes in the background (a
// header it verified stays trusted: a later ask finds it at once).
// Callers asking the same (the same height, or the newest header) while
// such a call is in flight share its answer.
type Verifier struct {
	lc      *light.Client
	primary string
	// Poll is how often AppHashAfter asks again for a header not made yet.
	Poll time.Duration

	lifetime context.Context // the light client's calls run under it; Close ends it
	stop     context.CancelFunc

	flightMu sync.Mutex
	inFlight *flight // the light client's call in flight, nil when none is

	mu          sync.Mutex
	lastUpdated time.Time // when Latest last asked the primary for its newest header
}

// flight is one call of the light client: for header height (0: the
// newest header, Update). done is closed once lb and err are set.
type flight struct {
	height int64
	done   chan struct{}
	lb     *types.LightBlock
	err    error
}

// providerTimeout bounds each call of a node provider: CometBFT's own
// HTTP provider's (light/provider/http, 5 s).
const providerTimeout = 5 * time.Second

// nodeProvider is CometBFT's HTTP provider of the node at url, on
// relchain's transport (client/internal/nodehttp): a call that went out
// on a kept connection the node had just closed is sent again instead of
// failing with "EOF", which CometBFT's light client takes for a faulty
// witness and drops it (light/detector.go).
func nodeProvider(chainID, url string) (provider.Provider, error) {
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	hc, err := nodehttp.Client(url, nil, providerTimeout)
	if err != nil {
		return nil, err
	}
	rpc, err := rpchttp.NewWithClient(url, "/websocket", hc)
	if err != nil {
		return nil, err
	}
	return lighthttp.NewWithClient(chainID, rpc), nil
}

// New starts a light client on primary (a node's RPC URL) with witnesses
// (other nodes' RPC URLs that cross-check the primary; with none, the
// primary is its own witness, which checks signatures but cannot detect
// a forked primary), from root. ctx bounds New's own requests (the trust
// root's header, checked against the witnesses); a New whose ctx ends
// fails rather than hand out a light client that may have dropped a
// witness for not answering in time. Close ends the Verifier; one that
// lives as long as its process need not be closed.
func New(ctx context.Context, root Root, primary string, witnesses []string) (*Verifier, error) {
	if root.ChainID == "" {
		return nil, errors.New("light client: no chain ID in the trust root")
	}
	p, err := nodeProvider(root.ChainID, primary)
	if err != nil {
		return nil, fmt.Errorf("light client: primary %s: %w", primary, err)
	}
	if len(witnesses) == 0 {
		witnesses = []string{primary}
	}
	ws := make([]provider.Provider, 0, len(witnesses))
	for _, w := range witnesses {
		wp, err := nodeProvider(root.ChainID, w)
		if err != nil {
			return nil, fmt.Errorf("light client: witness %s: %w", w, err)
		}
		ws = append(ws, wp)
	}
	opts, err := trustOptions(ctx, root, p)
	if err != nil {
		return nil, err
	}
	lc, err := light.NewClient(ctx, root.ChainID, opts, p, ws, lightdb.New(dbm.NewMemDB(), root.ChainID),
		light.Logger(log.NewNopLogger()), light.MaxRetryAttempts(2))
	if err != nil {
		return nil, fmt.Errorf("light client on %s from header %d: %w", primary, opts.Height, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("light client on %s from header %d: cut short: %w", primary, opts.Height, err)
	}
	lifetime, stop := context.WithCancel(context.Background())
	return &Verifier{lc: lc, primary: primary, Poll: 100 * time.Millisecond, lifetime: lifetime, stop: stop}, nil
}

// Close ends the light client's call in flight, if any, without waiting
// for it, and makes every later call that would ask a node fail with
// ErrClosed.
func (v *Verifier) Close() { v.stop() }

// trustOptions turns root into light.TrustOptions: a genesis root trusts
// header 1 once it is signed by more than two thirds of the genesis
// validators and names their set.
func trustOptions(ctx context.Context, root Root, p provider.Provider) (light.TrustOptions, error) {
	period := root.Period
	if period == 0 {
		period = DefaultTrustingPeriod
	}
	if root.Genesis == nil {
		return light.TrustOptions{Period: period, Height: root.Height, Hash: root.Hash}, nil
	}
	g := root.Genesis
	vals := make([]*types.Validator, len(g.Validators))
	for i, v := range g.Validators {
		vals[i] = types.NewValidator(v.PubKey, v.Power)
	}
	set := types.NewValidatorSet(vals)
	lb, err := p.LightBlock(ctx, 1)
	if err != nil {
		return light.TrustOptions{}, fmt.Errorf("light client: header 1 from %s: %w", p, err)
	}
	switch {
	case lb.ChainID != g.ChainID:
		return light.TrustOptions{}, fmt.Errorf("light client: header 1 is of chain %q, the trusted genesis of %q", lb.ChainID, g.ChainID)
	case !bytes.Equal(lb.ValidatorsHash, set.Hash()):
		return light.TrustOptions{}, fmt.Errorf("light client: header 1 names validators %X, the trusted genesis %X", lb.ValidatorsHash, set.Hash())
	}
	if err := lb.ValidateBasic(g.ChainID); err != nil {
		return light.TrustOptions{}, fmt.Errorf("light client: header 1: %w", err)
	}
	if err := set.VerifyCommitLight(g.ChainID, lb.Commit.BlockID, 1, lb.Commit); err != nil {
		return light.TrustOptions{}, fmt.Errorf("light client: header 1 is not signed by the trusted genesis validators: %w", err)
	}
	return light.TrustOptions{Period: period, Height: 1, Hash: lb.Hash()}, nil
}

// Primary is the RPC URL the verifier reads headers from.
func (v *Verifier) Primary() string { return v.primary }

// Header returns the verified header of height h, waiting (every Poll,
// until ctx ends: then an error wrapping ErrNoHeader) while the chain has
// not made it.
func (v *Verifier) Header(ctx context.Context, h int64) (*types.SignedHeader, error) {
	if h <= 0 {
		return nil, fmt.Errorf("header %d: heights start at 1", h)
	}
	for {
		lb, err := v.lc.TrustedLightBlock(h)
		if err != nil { // not verified yet
			lb, err = v.ask(ctx, h)
		}
		if err == nil {
			return lb.SignedHeader, nil
		}
		if err := headerError(ctx, h, err); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, headerError(ctx, h, err)
		case <-time.After(v.Poll):
		}
	}
}

// headerError is what Header returns after asking for header h failed
// with err: nil to ask again (the header is not made yet and ctx lives),
// ErrNoHeader once ctx ended — also when it ended while the request was
// in flight, whose error then says only that — and otherwise err: the
// header does not verify.
func headerError(ctx context.Context, h int64, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("header %d: %w (%w; last error: %v)", h, ErrNoHeader, ctx.Err(), err)
	case notMadeYet(err):
		return nil
	}
	return fmt.Errorf("verify header %d: %w", h, err)
}

// notMadeYet reports whether err says the header is not there (yet),
// rather than that it does not verify.
func notMadeYet(err error) bool {
	return errors.Is(err, provider.ErrLightBlockNotFound) || errors.Is(err, provider.ErrHeightTooHigh) ||
		errors.Is(err, provider.ErrNoResponse)
}

// AppHashAfter returns the trusted AppHash of block h: that of verified
// header h+1, waiting for it (bounded by ctx).
func (v *Verifier) AppHashAfter(ctx context.Context, h int64) ([]byte, error) {
	hd, err := v.Header(ctx, h+1)
	if err != nil {
		return nil, err
	}
	return hd.AppHash, nil
}

// Latest returns the newest header the primary has, verified.
func (v *Verifier) Latest(ctx context.Context) (*types.SignedHeader, error) {
	lb, err := v.ask(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("light client update from %s: %w", v.primary, err)
	}
	if lb == nil { // already at the newest
		if lb, err = v.lc.TrustedLightBlock(0); err != nil {
			return nil, fmt.Errorf("light client: the latest trusted header: %w", err)
		}
	}
	return lb.SignedHeader, nil
}

// LatestWithin returns the newest verified header, asking the primary
// for a newer one (Latest: a round trip, and the verification of what it
// brings) only when the last ask is more than maxAge ago (maxAge <= 0:
// always). Every header it returns is verified; what maxAge trades is how
// recent "newest" is: a caller judging an answer stale against it (a
// verified read's MaxLag) judges against the chain's head as the primary
// had it at most maxAge ago, plus the headers verified since
// (VerifyLightBlockAtHeight stores them as trusted too).
func (v *Verifier) LatestWithin(ctx context.Context, maxAge time.Duration) (*types.SignedHeader, error) {
	v.mu.Lock()
	fresh := maxAge > 0 && !v.lastUpdated.IsZero() && time.Since(v.lastUpdated) < maxAge
	v.mu.Unlock()
	if fresh {
		lb, err := v.lc.TrustedLightBlock(0)
		if err == nil {
			return lb.SignedHeader, nil
		}
	}
	asked := time.Now()
	hd, err := v.Latest(ctx)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	if asked.After(v.lastUpdated) {
		v.lastUpdated = asked
	}
	v.mu.Unlock()
	return hd, nil
}

// Validators returns how many validators sign the newest verified header.
func (v *Verifier) Validators(ctx context.Context) (int, error) {
	if _, err := v.Latest(ctx); err != nil {
		return 0, err
	}
	lb, err := v.lc.TrustedLightBlock(0)
	if err != nil {
		return 0, fmt.Errorf("light client: the latest trusted block: %w", err)
	}
	return lb.ValidatorSet.Size(), nil
}

// ask returns the light client's answer for header height (0: Update,
// the newest header; else VerifyLightBlockAtHeight). It joins the call
// in flight for the same height, else waits for the one in flight to
// end and starts its own. ctx bounds only the wait: once it ends, ask
// returns its error and the call goes on in the background.
func (v *Verifier) ask(ctx context.Context, height int64) (*types.LightBlock, error) {
	for {
		if v.lifetime.Err() != nil {
			return nil, ErrClosed
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("light client call for %s not made: %w", headerName(height), err)
		}
		f := v.flightFor(height)
		select {
		case <-f.done:
			if f.height != height {
				continue // another call ended: start ours
			}
			if f.err != nil && v.lifetime.Err() != nil {
				return nil, fmt.Errorf("%w: %w", ErrClosed, f.err)
			}
			return f.lb, f.err
		case <-ctx.Done():
			return nil, fmt.Errorf("light client call for %s left to finish in the background: %w", headerName(height), ctx.Err())
		}
	}
}

// headerName names the header of height for ask (0: the newest).
func headerName(height int64) string {
	if height == 0 {
		return "the newest header"
	}
	return fmt.Sprintf("header %d", height)
}

// flightFor returns the light client's call in flight, starting one for
// height if none is.
func (v *Verifier) flightFor(height int64) *flight {
	v.flightMu.Lock()
	defer v.flightMu.Unlock()
	if v.inFlight == nil {
		v.inFlight = &flight{height: height, done: make(chan struct{})}
		go v.fly(v.inFlight)
	}
	return v.inFlight
}

// fly makes the light client's call f under the Verifier's lifetime,
// bounded by requestTimeout, then lets the next call start.
func (v *Verifier) fly(f *flight) {
	ctx, cancel := context.WithTimeout(v.lifetime, requestTimeout)
	defer cancel()
	if f.height == 0 {
		f.lb, f.err = v.lc.Update(ctx, time.Now())
	} else {
		f.lb, f.err = v.lc.VerifyLightBlockAtHeight(ctx, f.height, time.Now())
	}
	v.flightMu.Lock()
	v.inFlight = nil
	v.flightMu.Unlock()
	close(f.done)
}
