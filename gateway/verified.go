// Verified reads (relchain proxy, issue 36): a gateway given a
// ReadVerifier answers every read outside a transaction through it and
// tells the client which guarantee the answer has.

package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/pgwire"
)

// ReadVerifier answers reads without trusting any one node: a key lookup
// or key range with a proof checked against a header the light client
// verified, any other read by the agreement of enough validators. It is
// what relchain proxy runs the gateway with (Config.Verifier).
type ReadVerifier interface {
	// VerifiedRead runs r, a read-only statement, on committed state
	// at a height of at least minHeight and returns the answer with the
	// guarantee it has, in words ("verified by proof against the AppHash
	// of height 12"). An answer that could not be verified is an error,
	// never an answer: a node's answer that verification refuted wraps
	// ErrVerification; a failure of the statement itself is the node's
	// *client.QueryError as Query returns it.
	VerifiedRead(ctx context.Context, minHeight int64, r Read) (*api.QueryResponse, string, error)
}

// Read is a read a ReadVerifier answers.
type Read struct {
	// ClientSQL is the statement as the client wrote it, in
	// PostgreSQL's SQL (what a PostgreSQL parser recognises); SQL is
	// what the nodes run: the same on a network of PostgreSQL's SQL,
	// with the placeholders rewritten on a MySQL network. Args bind the
	// placeholders of both.
	ClientSQL, SQL string
	Args           []any
}

// ErrVerification is wrapped by a ReadVerifier's error when a node's
// answer failed verification (a lie, a stale height, nodes that disagree).
var ErrVerification = errors.New("verification failed")

// SettingReadGuarantee (SHOW only): the guarantee of the session's last
// read outside a transaction, as the NOTICE that came with it said.
const SettingReadGuarantee = "relchain.read_guarantee"

// stateDataCorrupted is PostgreSQL's data_corrupted: the answer of a read
// that failed verification.
const stateDataCorrupted = "XX001"

// unverifiedInTransaction is the guarantee of a read inside an explicit
// transaction under a verifying gateway: it is answered by one node's
// rehearsal or read path, like any gateway's.
const unverifiedInTransaction = "not verified: a read inside a transaction is one node's answer (the chain checks what a writing transaction observed when it commits)"

// verifiedRead answers a read outside a transaction through the verifier.
func (s *session) verifiedRead(ctx context.Context, r Read, h int64) (*api.QueryResponse, []string, error) {
	resp, guarantee, err := s.g.verifier.VerifiedRead(ctx, h, r)
	if errors.Is(err, ErrVerification) {
		s.guarantee = "failed: " + err.Error()
		return nil, nil, &pgwire.Error{Code: stateDataCorrupted, Message: fmt.Sprintf("relchain: the read could not be verified: %v", err),
			Hint: "a node answered something the chain does not prove, or the nodes disagree; nothing unverified is returned"}
	}
	if err != nil {
		return nil, nil, err
	}
	s.guarantee = guarantee
	return resp, []string{"relchain: " + guarantee}, nil
}
