package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/pgwire"
)

// SQLSTATEs the gateway sends. Every relchain result code maps to one of
// them deliberately (docs/clients.md#sqlstates).
const (
	stateSerialization  = "40001" // conflict: retry the whole transaction
	stateSyntax         = "42601"
	stateFeature        = "0A000" // refused by the determinism gate, or not supported here
	statePrivilege      = "42501" // no on-chain permission
	stateProgramLimit   = "54000" // envelope larger than max_tx_bytes
	stateQueryCanceled  = "57014" // canceled, timed out, quarantined
	stateInFailedTx     = "25P02"
	stateReadOnlyTx     = "25006"
	stateActiveTx       = "25001"
	stateNoActiveTx     = "25P01"
	stateNoSavepoint    = "3B001"
	stateUndefinedParam = "42704"
	stateInvalidValue   = "22023"
	stateConnFailure    = "08006" // no node answered; a write's outcome may be unknown
	stateInternal       = "XX000"
)

// classState is the SQLSTATE of a backend failure class, for backends
// that report a class but no SQLSTATE of PostgreSQL's.
var classState = map[string]string{
	"syntax":          "42601",
	"invalid":         "42601",
	"undefined":       "42P01",
	"duplicate":       "42P07",
	"constraint":      "23000",
	"data":            "22000",
	"permission":      "42501",
	"resource":        "54000",
	"not_implemented": "0A000",
}

// codeState maps a relchain result code to its SQLSTATE.
func codeState(code uint32) string {
	switch code {
	case api.CodeSyntax, api.CodeNoStatements:
		return stateSyntax
	case api.CodeForbidden:
		return stateFeature
	case api.CodeUnauthorized:
		return statePrivilege
	case api.CodeTooLarge:
		return stateProgramLimit
	case api.CodeConflict, api.CodeBlockAborted, api.CodeQueryBusy:
		return stateSerialization
	case api.CodeQuarantined, api.CodeQueryTimeout:
		return stateQueryCanceled
	case api.CodeValidatorRefused:
		return stateInvalidValue
	}
	return stateInternal
}

// failureState is the SQLSTATE of a failed statement: the backend's own
// when it has one, else its class's, else the code's.
func failureState(code uint32, f *api.FailureData) string {
	if f != nil && len(f.SQLState) == 5 {
		return f.SQLState
	}
	if f != nil {
		if s, ok := classState[f.Class]; ok {
			return s
		}
	}
	return codeState(code)
}

// ownFailure is r's failure with the SQLSTATE the answering node's engine
// gave, where the result data records only its class (a network over
// several engines: docs/mixed-networks.md) and the node's is of that class.
func ownFailure(r *client.Result) *api.FailureData {
	f := r.Failure
	if f == nil || r.Own == nil || len(f.SQLState) != 5 || r.Own.SQLState[:2] != f.SQLState[:2] {
		return f
	}
	g := *f
	g.SQLState, g.Class = r.Own.SQLState, r.Own.Class
	return &g
}

// txFailure is the ErrorResponse of a committed or rejected
// bc-transaction that did not succeed.
func txFailure(r *client.Result) *pgwire.Error {
	e := &pgwire.Error{Code: failureState(r.Code, ownFailure(r)), Message: r.Error}
	if e.Message == "" {
		e.Message = "transaction " + api.CodeName(r.Code)
	}
	e.Detail = fmt.Sprintf("relchain result code %d (%s)", r.Code, api.CodeName(r.Code))
	if r.Height > 0 {
		e.Detail += fmt.Sprintf(" in block %d, tx %s", r.Height, r.Hash)
	}
	switch r.Code {
	case api.CodeConflict:
		e.Message = "could not serialize access: " + r.Error
		e.Hint = "The chain's state changed what this transaction read; nothing was applied. Retry the whole transaction."
	case api.CodeForbidden:
		e.Hint = "relchain refuses statements whose outcome could differ between validators (docs/sql.md#what-the-gate-refuses)."
	case api.CodeUnauthorized:
		e.Hint = "An admin grants write access: relchain admin grant <key> <table>."
	}
	return e
}

// nodeError is the ErrorResponse of a failed read, rehearsal or
// submission.
func nodeError(err error) *pgwire.Error {
	var pe *pgwire.Error
	if errors.As(err, &pe) {
		return pe
	}
	var qe *client.QueryError
	if errors.As(err, &qe) {
		return &pgwire.Error{Code: failureState(qe.Code, qe.Failure), Message: qe.Message,
			Detail: fmt.Sprintf("relchain result code %d (%s)", qe.Code, api.CodeName(qe.Code))}
	}
	var te *client.TxError
	if errors.As(err, &te) {
		return txFailure(&client.Result{Code: te.Code, Error: te.Message, Failure: te.Failure})
	}
	var me *client.MismatchError
	if errors.As(err, &me) {
		return &pgwire.Error{Code: stateInternal, Message: err.Error(),
			Hint: "At least one node's database differs from the others': check them with relchain verify."}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &pgwire.Error{Code: stateQueryCanceled, Message: "canceling statement: " + err.Error()}
	}
	if errors.Is(err, client.ErrQuarantined) {
		return &pgwire.Error{Code: stateQueryCanceled, Message: err.Error(),
			Hint: "The node could not execute the transaction within its tx_timeout and no longer proposes it; it will not commit unless other validators can run it (look it up with relchain tx to be certain)."}
	}
	if errors.Is(err, client.ErrOutcomeUnknown) {
		return &pgwire.Error{Code: stateConnFailure, Message: err.Error(),
			Hint: "The transaction's outcome is unknown (the node cannot tell whether it committed): look it up by hash (relchain tx) on a node that indexes transactions before retrying."}
	}
	if errors.Is(err, client.ErrNotCommitted) {
		return &pgwire.Error{Code: stateConnFailure, Message: err.Error(),
			Hint: "The transaction's outcome is unknown: look it up by hash (relchain tx) before retrying."}
	}
	return &pgwire.Error{Code: stateConnFailure, Message: "relchain node: " + err.Error()}
}

// refused is a statement the gateway does not carry out.
func refused(format string, args ...any) *pgwire.Error {
	return &pgwire.Error{Code: stateFeature, Message: fmt.Sprintf(format, args...)}
}

// writeError is nodeError for a submitted transaction: when the wait was
// cut short, the transaction may still commit.
func writeError(err error) *pgwire.Error {
	e := nodeError(err)
	if e.Code == stateQueryCanceled || e.Code == stateConnFailure {
		e.Hint = "The transaction was submitted and may still commit: read its effect (or look it up with relchain tx) before retrying."
	}
	return e
}
