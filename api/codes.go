package api

// Result codes of CheckTx and of each tx in FinalizeBlock. They are part of
// the consensus-critical tx results: never renumber them.
const (
	CodeOK uint32 = 0

	// Rejections of the envelope (CheckTx and FinalizeBlock).
	CodeMalformed    uint32 = 1 // bytes are not a canonical relchain envelope
	CodeWrongChain   uint32 = 2 // chain id differs from this network's
	CodeBadSignature uint32 = 3 // ed25519 signature does not verify
	CodeTooLarge     uint32 = 4 // envelope larger than the genesis max_tx_bytes
	CodeNoStatements uint32 = 5 // envelope carries no statement
	CodeSyntax       uint32 = 6 // a statement cannot be parsed, or is not exactly one statement
	CodeForbidden    uint32 = 7 // a statement is not allowed by the determinism and safety gate
	CodeReplayed     uint32 = 8 // the key already executed this nonce, or the nonce is too old
	CodeUnauthorized uint32 = 9 // the sender's key lacks the on-chain permission (admin, or a grant on the table)

	// Execution failures (FinalizeBlock only). The tx was rolled back.
	CodeExecFailed   uint32 = 10 // a statement failed; data names the class and SQLSTATE
	CodeBlockAborted uint32 = 11 // block_atomic: another tx of the block failed, so this one was rolled back too
	// CodeConflict: an interactive transaction (txn.VersionExpect) whose
	// statement returned other results in the block than the client
	// observed when it ran them; the whole bc-transaction was rolled back.
	// Retrying the transaction from its start is safe.
	CodeConflict uint32 = 13
	// CodeValidatorRefused: a validator membership statement was refused
	// (malformed key or power, unknown or duplicate validator, or a change
	// that would remove the last validator or lower the number of faults
	// the set tolerates without force). CheckTx and FinalizeBlock.
	CodeValidatorRefused uint32 = 14

	// Node-local admission (CheckTx only, never a block result): this node
	// could not execute the tx within its tx_timeout or memory when
	// it was proposed, and no longer proposes or accepts it.
	CodeQuarantined uint32 = 12
	// CodeCommitted: node-local admission (CheckTx only, never a block
	// result): these very bytes are already committed. Their nonce is
	// used, and this node's tx index holds a tx with the same hash; the
	// log names its height and code. A client that resubmitted to learn
	// an unknown outcome looks the tx up by hash (the tx RPC) for its
	// committed result: this is not a failure of the tx. A different tx
	// that reuses a nonce is refused with CodeReplayed.
	CodeCommitted uint32 = 15

	// Query failures.
	CodeQueryFailed   uint32 = 20 // the read failed; log has the backend's message
	CodeQueryBadInput uint32 = 21 // the query request could not be decoded
	CodeQueryTimeout  uint32 = 22 // min_height was not reached in time
	CodeUnknownPath   uint32 = 23 // abci_query path is not served
	CodeQueryBusy     uint32 = 24 // the rehearsal could not get the block slot in time, or a block needing the read's locks cancelled it; retry
	// CodeStaleRequest: a signed query request (a rehearsal) names a
	// height too far from the node's committed height (older than
	// RehearsalWindow blocks, or more than RehearsalAhead ahead). The
	// response's Height is the node's: sign again with it.
	CodeStaleRequest uint32 = 25
)

// CodeName returns a short name for a code, for logs and CLI output.
func CodeName(code uint32) string {
	switch code {
	case CodeOK:
		return "ok"
	case CodeMalformed:
		return "malformed"
	case CodeWrongChain:
		return "wrong_chain"
	case CodeBadSignature:
		return "bad_signature"
	case CodeTooLarge:
		return "too_large"
	case CodeNoStatements:
		return "no_statements"
	case CodeSyntax:
		return "syntax"
	case CodeForbidden:
		return "forbidden"
	case CodeUnauthorized:
		return "unauthorized"
	case CodeReplayed:
		return "replayed"
	case CodeExecFailed:
		return "exec_failed"
	case CodeBlockAborted:
		return "block_aborted"
	case CodeQuarantined:
		return "quarantined"
	case CodeCommitted:
		return "already_committed"
	case CodeConflict:
		return "conflict"
	case CodeValidatorRefused:
		return "validator_refused"
	case CodeQueryFailed:
		return "query_failed"
	case CodeQueryBadInput:
		return "query_bad_input"
	case CodeQueryTimeout:
		return "query_timeout"
	case CodeUnknownPath:
		return "unknown_path"
	case CodeQueryBusy:
		return "query_busy"
	case CodeStaleRequest:
		return "stale_request"
	}
	return "unknown"
}
