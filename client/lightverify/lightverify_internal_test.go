package lightverify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/cometbft/cometbft/light/provider"
	"github.com/cometbft/cometbft/types"
)

// fakeProvider serves one light block as header 1 (or an error).
type fakeProvider struct {
	lb  *types.LightBlock
	err error
}

func (p fakeProvider) ChainID() string { return "test-chain" }
func (p fakeProvider) LightBlock(context.Context, int64) (*types.LightBlock, error) {
	return p.lb, p.err
}
func (p fakeProvider) ReportEvidence(context.Context, types.Evidence) error { return nil }
func (p fakeProvider) String() string                                       { return "fake" }

// A genesis root trusts header 1 only if it is of the genesis chain,
// names the genesis validators and is signed by them: a node serving
// another chain's, another set's or an unsigned header 1 is refused.
func TestGenesisRootRefusesAnotherHeaderOne(t *testing.T) {
	pub := ed25519.GenPrivKey().PubKey()
	g := &types.GenesisDoc{ChainID: "test-chain", Validators: []types.GenesisValidator{{PubKey: pub, Power: 10}}}
	set := types.NewValidatorSet([]*types.Validator{types.NewValidator(pub, 10)})
	header := func(chain string, vals []byte) *types.LightBlock {
		return &types.LightBlock{SignedHeader: &types.SignedHeader{
			Header: &types.Header{ChainID: chain, Height: 1, ValidatorsHash: vals},
			Commit: &types.Commit{Height: 1}}, ValidatorSet: set}
	}
	other := types.NewValidatorSet([]*types.Validator{types.NewValidator(ed25519.GenPrivKey().PubKey(), 10)})
	for _, c := range []struct {
		p    fakeProvider
		want string
	}{
		{fakeProvider{err: errors.New("down")}, "header 1 from"},
		{fakeProvider{lb: header("other-chain", set.Hash())}, `of chain "other-chain"`},
		{fakeProvider{lb: header("test-chain", other.Hash())}, "names validators"},
		{fakeProvider{lb: header("test-chain", set.Hash())}, "header 1"},
	} {
		_, err := trustOptions(context.Background(), Root{Genesis: g, ChainID: g.ChainID}, c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("trust options from %+v: %v, want an error saying %q", c.p.lb, err, c.want)
		}
	}
}

// Roots: a header root is taken as given; a genesis file that does not
// parse, and a root without a chain ID, are errors before any request.
func TestRoots(t *testing.T) {
	r := FromHeader("c", 5, []byte{1})
	opts, err := trustOptions(context.Background(), r, fakeProvider{err: errors.New("not asked")})
	if err != nil || opts.Height != 5 || opts.Period != DefaultTrustingPeriod {
		t.Fatalf("header root: %+v, %v", opts, err)
	}
	bad := filepath.Join(t.TempDir(), "genesis.json")
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := FromGenesis(bad); err == nil {
		t.Fatal("a genesis that does not parse: no error")
	}
	if _, err := New(context.Background(), Root{}, "http://127.0.0.1:1", nil); err == nil || !strings.Contains(err.Error(), "chain ID") {
		t.Fatalf("a root without a chain ID: %v", err)
	}
}

// Asking for a header: not made yet, asked again while the wait lasts;
// a wait that ended, during the request too (its error is then a post cut
// short), is ErrNoHeader; anything else is the header's failure to verify.
func TestHeaderErrors(t *testing.T) {
	live := context.Background()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	cut := fmt.Errorf("post failed: %w", context.Canceled)
	for _, c := range []struct {
		ctx         context.Context
		err         error
		again, none bool
	}{
		{live, provider.ErrHeightTooHigh, true, false},
		{live, provider.ErrLightBlockNotFound, true, false},
		{ended, provider.ErrHeightTooHigh, false, true},
		{ended, cut, false, true},
		{live, errors.New("invalid commit"), false, false},
	} {
		err := headerError(c.ctx, 7, c.err)
		if (err == nil) != c.again || errors.Is(err, ErrNoHeader) != c.none {
			t.Errorf("header 7 failed with %q (context ended: %v): %v; want asked again %v, ErrNoHeader %v",
				c.err, c.ctx.Err() != nil, err, c.again, c.none)
		}
	}
}
