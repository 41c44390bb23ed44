package client

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// resignTries bounds how often SubmitInteractive signs the same
// statements: the first envelope and up to resignTries-1 re-signed ones.
// Each re-signing needs a proof that the previous bytes did not commit, so
// the bound only stops a key that another process keeps advancing.
const resignTries = 4

// SubmitFunc submits signed envelope bytes and returns their settled
// outcome with Broadcast's contract: a CodeReplayed result with Height 0
// and no error only when the node proved these bytes are not committed.
type SubmitFunc func(ctx context.Context, raw []byte) (*Result, error)

// executedNonce matches the executed nonce a "too old" refusal names
// (app's replay window: "nonce N is too old: this key has executed nonce
// M, …").
var executedNonce = regexp.MustCompile(`this key has executed nonce (\d+)`)

// ExecutedNonce returns the key's highest executed nonce a CodeReplayed
// refusal's log names, if it names one.
func ExecutedNonce(log string) (uint64, bool) {
	m := executedNonce.FindStringSubmatch(log)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	return n, err == nil
}

// provenReplay reports an outcome that proves the submitted bytes did not
// commit because their nonce is used by another tx of the key: a CheckTx
// replay refusal (Height 0) that Broadcast settled against the node's tx
// index without error. A refusal inside a block (Height > 0) is not taken
// as proof: the index keeps a hash's last inclusion, which may hide an
// earlier committed one.
func provenReplay(res *Result, err error) bool {
	return err == nil && res != nil && res.Code == api.CodeReplayed && res.Height == 0
}

// AdvanceNonce moves this key's counter (shared by every Client of the key
// in the process) to at least executed, so that the next envelope signed
// is numbered above it. It never moves the counter back.
func (c *Client) AdvanceNonce(executed uint64) {
	for {
		cur := c.nonce.Load()
		if cur >= executed || c.nonce.CompareAndSwap(cur, executed) {
			return
		}
	}
}

// KeyExecutedNonce asks the node for the highest nonce the client's key
// executed as of its last committed block (0: never).
func (c *Client) KeyExecutedNonce(ctx context.Context) (uint64, error) {
	if c.key == nil {
		return 0, errors.New("this client has no signing key")
	}
	r, err := c.abciQuery(ctx, api.NoncePath, c.key.Public().(ed25519.PublicKey))
	if err != nil {
		return 0, c.wrap("abci_query", err)
	}
	if r.Code != api.CodeOK {
		return 0, &QueryError{Code: r.Code, Message: r.Log}
	}
	var out api.NonceResponse
	if err := decodeJSON(r.Value, &out); err != nil {
		return 0, fmt.Errorf("decode the key's executed nonce: %w", err)
	}
	return out.Executed, nil
}

// startAboveExecuted moves the key's counter above the nonce the node says
// the key executed, once per Client: a fresh signer does not start below
// another process of its key. A node that cannot say (an older node, an
// unreachable one) leaves the counter as it is: the re-signing of
// SubmitInteractive still recovers.
func (c *Client) startAboveExecuted(ctx context.Context) {
	if c.nonceSynced.Load() {
		return
	}
	if n, err := c.KeyExecutedNonce(ctx); err == nil {
		c.AdvanceNonce(n)
		c.nonceSynced.Store(true)
	}
}

// advanceAfterReplay moves the counter above the key's executed nonce
// after a proven replay refusal. A "too old" refusal names that nonce; an
// "already executed" one does not (its nonce lies inside the window, among
// nonces another process of the key used after moving its own counter to
// this process's region), so the node is asked: stepping one by one
// through a range the other process filled would exhaust the tries.
func (c *Client) advanceAfterReplay(ctx context.Context, log string) {
	if n, ok := ExecutedNonce(log); ok {
		c.AdvanceNonce(n)
		return
	}
	if n, err := c.KeyExecutedNonce(ctx); err == nil {
		c.AdvanceNonce(n)
	}
}

// SubmitInteractive signs stmts (with seen, as SignInteractive) and submits
// the envelope with submit; the first time, it asks the node for the
// key's executed nonce and numbers above it (startAboveExecuted). When another process of the same key advanced
// its nonce past this process's counter, the node refuses the envelope as
// a replay (nonce too old, or already executed by another tx); only when
// the node proves these bytes are not committed (provenReplay) does it
// move the counter above the executed nonce the refusal names and sign the
// same statements again, up to resignTries envelopes in all. Any other
// outcome is returned as is, the last envelope's: a commit, a failure, a
// refusal for another reason, or an error (ErrOutcomeUnknown among them),
// so that bytes whose outcome is unknown are never followed by other
// bytes of the same statements: a client's statement is neither lost nor
// submitted twice.
func (c *Client) SubmitInteractive(ctx context.Context, stmts []txn.Statement, seen []txn.Observation, submit SubmitFunc) (*Result, error) {
	c.startAboveExecuted(ctx)
	var res *Result
	var err error
	for try := 0; try < resignTries; try++ {
		raw, serr := c.SignInteractive(ctx, stmts, seen)
		if serr != nil {
			return nil, serr
		}
		res, err = submit(ctx, raw)
		if !provenReplay(res, err) {
			return res, err
		}
		c.advanceAfterReplay(ctx, res.Error)
	}
	if res != nil {
		res.Error = fmt.Sprintf("%s (signed %d times, each above the nonce the node reported executed; another process keeps using this key)", res.Error, resignTries)
	}
	return res, err
}
