package client

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// resignClient is a client of an unreachable node with a fresh key (the
// nonce counter is per key and process) and its chain id set.
func resignClient(t *testing.T) *Client {
	t.Helper()
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := New("http://127.0.0.1:1", key)
	if err != nil {
		t.Fatal(err)
	}
	c.SetChainID("chain-S")
	return c
}

// submissions records every envelope a fake node got, decoded.
type submissions struct {
	t   *testing.T
	txs []*txn.Tx
}

func (s *submissions) add(raw []byte) *txn.Tx {
	tx, err := txn.Decode(raw)
	if err != nil {
		s.t.Fatalf("decode submitted envelope: %v", err)
	}
	s.txs = append(s.txs, tx)
	return tx
}

// A proven "too old" refusal (another process advanced the key) makes the
// signer sign the same statements and observations again above the
// executed nonce the refusal names; the second envelope commits, and the
// counter stays above it for the next transaction.
func TestSubmitInteractiveResignsAboveTheExecutedNonce(t *testing.T) {
	c := resignClient(t)
	executed := c.nonce.Load() + 1_000_000 // another process ran far ahead
	stmts := []txn.Statement{{SQL: "INSERT INTO t VALUES (1)"}}
	subs := &submissions{t: t}
	res, err := c.SubmitInteractive(context.Background(), stmts, nil, func(_ context.Context, raw []byte) (*Result, error) {
		tx := subs.add(raw)
		if tx.Nonce <= executed {
			return &Result{Hash: "A", Code: api.CodeReplayed, Error: fmt.Sprintf("nonce %d is too old: this key has executed nonce %d, and only the 1024 nonces below it are still accepted (this transaction is not committed: …)", tx.Nonce, executed)}, nil
		}
		return &Result{Hash: "B", Height: 7}, nil
	})
	if err != nil || !res.OK() || res.Height != 7 {
		t.Fatalf("SubmitInteractive = %+v, %v; want the re-signed envelope committed", res, err)
	}
	if len(subs.txs) != 2 {
		t.Fatalf("%d envelopes submitted, want 2 (the refused one, the re-signed one)", len(subs.txs))
	}
	if got := subs.txs[1]; got.Nonce <= executed || !reflect.DeepEqual(got.Statements, subs.txs[0].Statements) {
		t.Fatalf("re-signed envelope: nonce %d (executed %d), statements %v; want above, same statements %v", got.Nonce, executed, got.Statements, subs.txs[0].Statements)
	}
	if c.nonce.Load() < executed {
		t.Fatalf("counter %d fell back below the executed nonce %d", c.nonce.Load(), executed)
	}
}

// Only a proven replay is re-signed: an unknown outcome, a refusal inside
// a block (the index may hide an earlier commit), another refusal or a
// failure is answered with the one envelope submitted.
func TestSubmitInteractiveNeverResignsWithoutProof(t *testing.T) {
	tooOld := "nonce 5 is too old: this key has executed nonce 999999999999999999999"
	cases := map[string]func() (*Result, error){
		"outcome unknown": func() (*Result, error) {
			return nil, fmt.Errorf("tx X: node refused it (replayed) and cannot say whether this very tx committed: %w", ErrOutcomeUnknown)
		},
		"replay refused in a block": func() (*Result, error) {
			return &Result{Hash: "X", Height: 12, Code: api.CodeReplayed, Error: tooOld}, nil
		},
		"replay with an error": func() (*Result, error) {
			return &Result{Hash: "X", Code: api.CodeReplayed, Error: tooOld}, ErrOutcomeUnknown
		},
		"committed": func() (*Result, error) {
			return &Result{Hash: "X", Height: 3}, nil
		},
		"failed in its block": func() (*Result, error) {
			return &Result{Hash: "X", Height: 3, Code: api.CodeExecFailed, Error: "boom"}, nil
		},
		"already committed": func() (*Result, error) {
			return &Result{Hash: "X", Code: api.CodeCommitted, Error: "committed"}, nil
		},
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			c := resignClient(t)
			subs := &submissions{t: t}
			wantRes, wantErr := answer()
			res, err := c.SubmitInteractive(context.Background(), []txn.Statement{{SQL: "UPDATE t SET v = v + 1"}}, nil, func(_ context.Context, raw []byte) (*Result, error) {
				subs.add(raw)
				return answer()
			})
			if len(subs.txs) != 1 {
				t.Fatalf("%d envelopes submitted, want exactly 1", len(subs.txs))
			}
			if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(res, wantRes) {
				t.Fatalf("SubmitInteractive = %+v, %v; want the one outcome %+v, %v", res, err, wantRes, wantErr)
			}
		})
	}
}

// A key another process keeps advancing is re-signed a bounded number of
// times, and the last proven refusal is the answer.
func TestSubmitInteractiveBoundsResigning(t *testing.T) {
	c := resignClient(t)
	subs := &submissions{t: t}
	res, err := c.SubmitInteractive(context.Background(), []txn.Statement{{SQL: "DELETE FROM t"}}, nil, func(_ context.Context, raw []byte) (*Result, error) {
		tx := subs.add(raw)
		return &Result{Hash: "X", Code: api.CodeReplayed, Error: fmt.Sprintf("nonce %d is too old: this key has executed nonce %d", tx.Nonce, tx.Nonce+5000)}, nil
	})
	if err != nil || res.Code != api.CodeReplayed {
		t.Fatalf("SubmitInteractive = %+v, %v; want the last replay refusal", res, err)
	}
	if len(subs.txs) != resignTries {
		t.Fatalf("%d envelopes submitted, want %d", len(subs.txs), resignTries)
	}
	for i := 1; i < len(subs.txs); i++ {
		if subs.txs[i].Nonce <= subs.txs[i-1].Nonce+5000 {
			t.Fatalf("envelope %d has nonce %d, not above the executed nonce %d the refusal of envelope %d named", i, subs.txs[i].Nonce, subs.txs[i-1].Nonce+5000, i-1)
		}
	}
}

// A fresh signer asks the node for its key's executed nonce once and
// numbers its first envelope above it, so that it does not start below
// another process of the key.
func TestSubmitInteractiveStartsAboveTheKeysExecutedNonce(t *testing.T) {
	c := resignClient(t)
	executed := c.nonce.Load() + 50_000
	asked := 0
	c.SetLocalQueries(func(_ context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error) {
		if req.Path != api.NoncePath || !bytes.Equal(req.Data, c.key.Public().(ed25519.PublicKey)) {
			t.Fatalf("query %q with %x, want %q with the key", req.Path, req.Data, api.NoncePath)
		}
		asked++
		v, _ := json.Marshal(api.NonceResponse{Executed: executed, Height: 9})
		return &abci.ResponseQuery{Code: api.CodeOK, Value: v, Height: 9}, nil
	})
	subs := &submissions{t: t}
	for range 2 {
		if _, err := c.SubmitInteractive(context.Background(), []txn.Statement{{SQL: "SELECT 1"}}, nil, func(_ context.Context, raw []byte) (*Result, error) {
			subs.add(raw)
			return &Result{Hash: "X", Height: 10}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 1 || len(subs.txs) != 2 || subs.txs[0].Nonce <= executed || subs.txs[1].Nonce <= subs.txs[0].Nonce {
		t.Fatalf("asked %d times, nonces %d then %d, executed %d; want one question and both above", asked, subs.txs[0].Nonce, subs.txs[1].Nonce, executed)
	}
}

// An "already executed" refusal names no executed nonce: the signer's
// nonce lies inside a range another process of the key filled after
// moving its counter there. The signer asks the node for the executed
// nonce and signs once more above it, instead of stepping through the
// range one nonce per try (and giving up after resignTries).
func TestSubmitInteractiveAsksTheNodeAfterAnAlreadyExecutedRefusal(t *testing.T) {
	c := resignClient(t)
	executed := c.nonce.Load() + 100 // the other process used the next 100 nonces
	c.SetLocalQueries(func(_ context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error) {
		v, _ := json.Marshal(api.NonceResponse{Executed: executed, Height: 9})
		return &abci.ResponseQuery{Code: api.CodeOK, Value: v, Height: 9}, nil
	})
	c.nonceSynced.Store(true) // the first question was answered before the other process moved on
	subs := &submissions{t: t}
	res, err := c.SubmitInteractive(context.Background(), []txn.Statement{{SQL: "INSERT INTO t VALUES (2)"}}, nil, func(_ context.Context, raw []byte) (*Result, error) {
		tx := subs.add(raw)
		if tx.Nonce <= executed {
			return &Result{Hash: "A", Code: api.CodeReplayed, Error: fmt.Sprintf("nonce %d of this key was already executed (replay) (this transaction is not committed: …)", tx.Nonce)}, nil
		}
		return &Result{Hash: "B", Height: 10}, nil
	})
	if err != nil || !res.OK() {
		t.Fatalf("SubmitInteractive = %+v, %v; want the envelope signed above the executed nonce committed", res, err)
	}
	if len(subs.txs) != 2 || subs.txs[1].Nonce <= executed {
		t.Fatalf("%d envelopes, last nonce %d (executed %d); want 2, the second above", len(subs.txs), subs.txs[len(subs.txs)-1].Nonce, executed)
	}
}
