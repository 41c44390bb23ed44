// Admission: what CheckTx, recheck and the proposer ask of the executor
// before a tx enters a block (envelope, signature, replay window, the
// gate's verdict, permissions). Nothing here writes the database.

package app

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/txn"
)

// CheckReplay refuses a tx whose nonce its key already executed (or that is
// too old), against committed state: CheckTx and the mempool's recheck.
func (e *Executor) CheckReplay(tx *txn.Tx) *Rejection {
	e.mu.Lock()
	w, ok := e.replay[string(tx.PubKey)]
	chainTime := e.chainTime
	e.mu.Unlock()
	if chainTime.IsZero() {
		// No block committed since start: the node's clock stands in
		// (CheckTx only admits; the block decides with its own time).
		chainTime = time.Now()
	}
	var why string
	if ok {
		why = w.check(tx.Nonce, chainTime)
	} else {
		why = (*replayState)(nil).check(tx.Nonce, chainTime)
	}
	if why != "" {
		return &Rejection{Code: api.CodeReplayed, Reason: why}
	}
	return nil
}

// analysisRejection maps a backend's Analyze failure of statement i (1-based)
// to a rejection: the gate's refusal is code 7 with its deterministic
// message, a parse failure code 6. Other classes are statement failures
// (code 10). It returns nil if err is not a statement failure.
func analysisRejection(i int, err error) *Rejection {
	be := backend.AsError(err)
	if be == nil {
		return nil
	}
	switch be.Class {
	case backend.ClassPermission:
		return &Rejection{Code: api.CodeForbidden, Reason: fmt.Sprintf("statement %d is not allowed: %s", i, be.Message)}
	case backend.ClassSyntax, backend.ClassInvalid:
		return &Rejection{Code: api.CodeSyntax, Reason: fmt.Sprintf("statement %d cannot be accepted", i), Detail: be.Error()}
	}
	return &Rejection{Code: api.CodeExecFailed, Reason: fmt.Sprintf("statement %d failed", i), Detail: be.Error()}
}

// argsRejection refuses statement i (1-based) when its number of
// arguments differs from the placeholders the gate counted (a.Params): a
// deterministic code 6, in CheckTx and again in the block, instead of a
// database error (or, on SQLite, missing arguments silently read as NULL).
// A count the gate could not make yet (sqlcheck.ParamsUnknown) is left to
// the block's analysis.
func argsRejection(i int, a sqlcheck.Analysis, st txn.Statement) *Rejection {
	if a.Params == sqlcheck.ParamsUnknown || a.Params == len(st.Args) {
		return nil
	}
	return &Rejection{Code: api.CodeSyntax, Reason: fmt.Sprintf("statement %d has %s but %s given", i, count(a.Params, "placeholder", "placeholders"), count(len(st.Args), "argument was", "arguments were"))}
}

// count is "1 one" or "n many".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Rejection is a tx that failed the envelope checks.
type Rejection struct {
	Code   uint32
	Reason string // deterministic, short
	Detail string // may carry non-deterministic detail (backend messages)
}

func (r *Rejection) Error() string {
	if r.Detail != "" {
		return r.Reason + ": " + r.Detail
	}
	return r.Reason
}

// Recheck is CheckTx's verdict on a tx still in the mempool after a block:
// only what a block can change is checked again, the replay window and
// whether the sender still holds any grant (a revoked key's txs leave the
// mempool instead of failing in a block). Grants on single tables are
// checked in the block.
func (e *Executor) Recheck(tx *txn.Tx) *Rejection {
	if rej := e.CheckReplay(tx); rej != nil {
		return rej
	}
	e.mu.Lock()
	why := e.perms.admit(tx)
	e.mu.Unlock()
	if why != "" {
		return &Rejection{Code: api.CodeUnauthorized, Reason: why}
	}
	return nil
}

// ddlAlone: the backend, or an engine of the network
// (Params.ddlCommitsSomewhere), commits DDL implicitly (MySQL), so a
// bc-transaction with DDL must be one statement, alone in its block
// (backend.Block). CheckTx refuses such a tx with more statements,
// PrepareProposal puts it alone, and FinalizeBlock fails it, before
// anything runs, in a block with other txs: on every validator alike.
func (e *Executor) ddlAlone() bool {
	return e.ddlCommitsHere() || e.params.ddlCommitsSomewhere()
}

// ddlCommitsHere: this node's backend commits DDL implicitly, so a block
// with DDL is not executed before it is decided (ProcessProposal).
func (e *Executor) ddlCommitsHere() bool { return !e.Backend().Capabilities().TransactionalDDL }

const ddlAloneReason = "on MySQL a bc-transaction with DDL must consist of that one statement, alone in its block (MySQL commits DDL implicitly; the rule holds on every validator of a network with a MySQL or MariaDB validator)"

// HasDDL reports whether raw decodes to a bc-transaction one of whose
// statements the backend's Analyze calls DDL. A tx that does not decode,
// or whose statements Analyze refuses, is not DDL: FinalizeBlock fails it
// wherever it stands.
func (e *Executor) HasDDL(ctx context.Context, raw []byte) bool {
	ddl, _ := e.hasDDL(ctx, raw)
	return ddl
}

// hasDDL is HasDDL, and the error of an Analyze that could not ask the
// database (backend.ErrDatabaseUnavailable): then no verdict is given,
// since a block must not take "not DDL" from a node-local outage.
func (e *Executor) hasDDL(ctx context.Context, raw []byte) (bool, error) {
	tx, err := e.decode(raw)
	if err != nil {
		return false, nil
	}
	for _, st := range tx.Statements {
		if isSystem(st.SQL) {
			continue
		}
		a, err := e.gate().Analyze(ctx, st.SQL)
		if backend.IsUnavailable(err) {
			return false, err
		}
		if err == nil && a.DDL {
			return true, nil
		}
	}
	return false, nil
}

// anyDDL reports whether any of txs has DDL (HasDDL), or the error of an
// Analyze that could not ask the database (hasDDL): then it is not known.
func (e *Executor) anyDDL(ctx context.Context, txs [][]byte) (bool, error) {
	for _, raw := range txs {
		ddl, err := e.hasDDL(ctx, raw)
		if ddl || err != nil {
			return ddl, err
		}
	}
	return false, nil
}

// Check runs the envelope checks CheckTx performs: size, decoding, chain
// id, signature, statements present and each one parseable. It never
// executes a statement. A nil error means the tx may enter a block.
func (e *Executor) Check(ctx context.Context, raw []byte) (*txn.Tx, *Rejection) {
	h := key(raw)
	// The Tx decoded here may be cached (envelopes.go) and outlive the
	// request; it shares the bytes it was decoded from (key, signature,
	// byte arguments), so it gets bytes of its own.
	tx, rej := e.validate(bytes.Clone(raw), h)
	if rej != nil {
		return nil, rej
	}
	if rej := e.CheckReplay(tx); rej != nil {
		return nil, rej
	}
	e.mu.Lock()
	why := e.perms.admit(tx)
	e.mu.Unlock()
	if why != "" {
		return nil, &Rejection{Code: api.CodeUnauthorized, Reason: why}
	}
	sender := string(tx.PubKey)
	txVals := make(valSet)
	for i, st := range tx.Statements {
		if isValidatorStmt(st.SQL) {
			if why := e.checkValidator(st, txVals); why != "" {
				return nil, &Rejection{Code: api.CodeValidatorRefused, Reason: fmt.Sprintf("statement %d: %s", i+1, why)}
			}
			continue
		}
		if isUpgradeStmt(st.SQL) {
			if rej := e.admitUpgrade(st); rej != nil {
				rej.Reason = fmt.Sprintf("statement %d: %s", i+1, rej.Reason)
				return nil, rej
			}
			continue
		}
		if isSystem(st.SQL) {
			if _, err := parseSystem(st, e.gate()); err != nil {
				return nil, &Rejection{Code: api.CodeSyntax, Reason: fmt.Sprintf("statement %d: %v", i+1, err)}
			}
			continue
		}
		a, err := e.gate().Analyze(ctx, st.SQL)
		if err != nil {
			if rej := refusalAtCheck(i+1, err); rej != nil {
				return nil, rej
			}
			if rej := analysisRejection(i+1, err); rej != nil && rej.Code != api.CodeExecFailed {
				return nil, rej
			}
			// A failure that depends on state (a table created by an
			// earlier tx of the same block, say): the block decides.
			continue
		}
		if rej := argsRejection(i+1, a, st); rej != nil {
			return nil, rej
		}
		if a.BeyondPostgres && e.params.Mixed() {
			return nil, &Rejection{Code: api.CodeForbidden, Reason: fmt.Sprintf("statement %d: %s", i+1, beyondPostgres)}
		}
		if rej := e.judgedAtCheck(ctx, i+1, st); rej != nil {
			return nil, rej
		}
		e.mu.Lock()
		why := e.perms.authorize(sender, a)
		e.mu.Unlock()
		if why != "" {
			return nil, &Rejection{Code: api.CodeUnauthorized, Reason: fmt.Sprintf("statement %d: %s", i+1, why)}
		}
		if a.DDL && len(tx.Statements) > 1 && e.ddlAlone() {
			return nil, &Rejection{Code: api.CodeForbidden, Reason: fmt.Sprintf("statement %d: %s", i+1, ddlAloneReason)}
		}
	}
	e.envelopes.add(h, tx, len(raw))
	return tx, nil
}

// judgedAtCheck is the refusal of statement i (1-based) on the committed
// schema by the translations of the network's other engines, asked as the
// block asks them (docs/mixed-networks.md, "One verdict per statement"):
// the shadow gate's (SQLite's translation), then each schema judge's
// (MariaDB's). A refusal there fails the statement on every node, so it
// is refused here with the translation's message, which names the engine;
// any other verdict (a table an earlier tx of the block creates) the block
// gives.
func (e *Executor) judgedAtCheck(ctx context.Context, i int, st txn.Statement) *Rejection {
	e.mu.Lock()
	shadow, judges := e.shadow, e.judges
	e.mu.Unlock()
	if shadow != nil {
		if _, err := shadow.Gate().Analyze(ctx, st.SQL); err != nil {
			if rej := refusalAtCheck(i, err); rej != nil {
				return rej
			}
		}
	}
	for _, j := range judges {
		if rej := refusalAtCheck(i, j.judge.Judge(st.SQL, argValues(st.Args), sqlcheck.Env{})); rej != nil {
			return rej
		}
	}
	return nil
}

// refusalAtCheck is the CheckTx rejection (code 7) of statement i whose
// verdict err is a translation's refusal (0A000: the postgres dialect on
// an engine does not support a construct), or nil.
func refusalAtCheck(i int, err error) *Rejection {
	be := backend.AsError(err)
	if be == nil || be.Class != backend.ClassNotImplemented {
		return nil
	}
	return &Rejection{Code: api.CodeForbidden, Reason: fmt.Sprintf("statement %d is refused: %s", i, be.Message)}
}

// validate performs the deterministic envelope checks of raw, whose tx
// hash is h, in this order: size, decoding (canonical form), chain id,
// statements present and not too many, signature. Decoding and the
// signature are pure functions of the bytes: for a tx this node admitted
// in CheckTx they come from the envelope cache; every other check runs on
// every call.
func (e *Executor) validate(raw []byte, h [32]byte) (*txn.Tx, *Rejection) {
	if len(raw) > e.params.MaxTxBytes {
		return nil, &Rejection{Code: api.CodeTooLarge, Reason: fmt.Sprintf("transaction is %d bytes, the network's limit (genesis max_tx_bytes) is %d", len(raw), e.params.MaxTxBytes)}
	}
	if tx, ok := e.envelopes.get(h); ok {
		return tx, e.checkHeader(tx)
	}
	tx, err := txn.Decode(raw)
	if err != nil {
		return nil, &Rejection{Code: api.CodeMalformed, Reason: err.Error()}
	}
	if rej := e.checkHeader(tx); rej != nil {
		return nil, rej
	}
	if err := verifySignature(tx); err != nil {
		return nil, &Rejection{Code: api.CodeBadSignature, Reason: err.Error()}
	}
	return tx, nil
}

// checkHeader checks what of a decoded envelope depends on the network's
// parameters: its chain id and its number of statements.
func (e *Executor) checkHeader(tx *txn.Tx) *Rejection {
	if tx.ChainID != e.chainID {
		return &Rejection{Code: api.CodeWrongChain, Reason: fmt.Sprintf("transaction is for chain %q, this is chain %q", tx.ChainID, e.chainID)}
	}
	if len(tx.Statements) == 0 {
		return &Rejection{Code: api.CodeNoStatements, Reason: "transaction has no statements"}
	}
	if len(tx.Statements) > e.params.MaxStatements {
		return &Rejection{Code: api.CodeTooLarge, Reason: fmt.Sprintf("transaction has %d statements, the network's limit (genesis max_statements) is %d", len(tx.Statements), e.params.MaxStatements)}
	}
	return nil
}

// decode returns the envelope raw decodes to, from the envelope cache if
// this node admitted it (recheck, the DDL question): the same Tx or error
// txn.Decode gives. The signature is not verified here.
func (e *Executor) decode(raw []byte) (*txn.Tx, error) {
	if tx, ok := e.envelopes.get(key(raw)); ok {
		return tx, nil
	}
	return txn.Decode(raw)
}

// checkValidator judges a validator statement against the committed set as
// changed by the tx's earlier statements (overlays, innermost last), and
// records its change in the last overlay; it returns "" or why not.
func (e *Executor) checkValidator(st txn.Statement, overlays ...valSet) string {
	op, err := parseValidator(st)
	if err != nil {
		return err.Error()
	}
	e.mu.Lock()
	known := e.valsKnown || e.valsUnsaved
	cur := e.vals.with(overlays...)
	e.mu.Unlock()
	if !known {
		return "this node's database records no validator set (it was created before relchain recorded one), so the set cannot be changed by a transaction"
	}
	power, why := applyValidator(cur, op)
	if why != "" {
		return why
	}
	overlays[len(overlays)-1][op.key] = power
	return ""
}
