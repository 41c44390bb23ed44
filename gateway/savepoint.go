package gateway

import (
	"fmt"
	"strings"

	"github.com/relchain/relchain/pgwire"
)

// Savepoints are emulated over the optimistic transaction (DESIGN.md,
// Savepoints): the transaction is its statements so far and what the
// client observed of each, so a savepoint is a length of that list, and
// rolling back to it drops the statements after it from the
// bc-transaction and from its observations. The next rehearsal runs only
// the kept statements: what the dropped ones wrote is gone, as in
// PostgreSQL.

// maxSavepoints bounds the open savepoints of a transaction: each keeps a
// copy of the session's settings, and a hostile client must not grow a
// session without bound.
const maxSavepoints = 4096

// savepoint is a mark in an open transaction.
type savepoint struct {
	name          string
	stmts         int // len(tx.stmts) when it was set
	writes, ddl   bool
	readOnly      bool
	settings      *savedSettings
	local         map[string]bool
	savepointsLen int // savepoints before it: ROLLBACK TO keeps it, RELEASE drops it
}

// setSavepoint is SAVEPOINT name: a new mark (a name used before is
// shadowed until this one is released, as in PostgreSQL).
func (s *session) setSavepoint(sql string) (*pgwire.Result, error) {
	name, err := savepointName(sql)
	if err != nil {
		return nil, err
	}
	if s.tx == nil {
		return nil, notInBlock("SAVEPOINT")
	}
	if s.tx.failed {
		return nil, failedTx()
	}
	tx := s.tx
	if len(tx.savepoints) >= maxSavepoints {
		return nil, &pgwire.Error{Code: stateProgramLimit, Message: fmt.Sprintf("too many savepoints: at most %d may be open in one transaction", maxSavepoints),
			Hint: "Release or roll back to a savepoint before setting another."}
	}
	tx.savepoints = append(tx.savepoints, savepoint{name: name, stmts: len(tx.stmts), writes: tx.writes, ddl: tx.ddl,
		readOnly: tx.readOnly, settings: s.saveSettings(), local: copySet(tx.local), savepointsLen: len(tx.savepoints)})
	return &pgwire.Result{Tag: "SAVEPOINT"}, nil
}

// releaseSavepoint is RELEASE [SAVEPOINT] name: the newest savepoint of
// that name and every one set after it are forgotten; what ran since
// stays in the transaction.
func (s *session) releaseSavepoint(sql string) (*pgwire.Result, error) {
	name, err := savepointName(sql)
	if err != nil {
		return nil, err
	}
	if s.tx == nil {
		return nil, notInBlock("RELEASE SAVEPOINT")
	}
	if s.tx.failed {
		return nil, failedTx()
	}
	i, err := s.tx.findSavepoint(name)
	if err != nil {
		return nil, err
	}
	s.tx.savepoints = s.tx.savepoints[:i]
	return &pgwire.Result{Tag: "RELEASE"}, nil
}

// rollbackToSavepoint is ROLLBACK [WORK|TRANSACTION] TO [SAVEPOINT] name:
// the statements after the savepoint leave the transaction (its
// bc-transaction and observations), settings return to their values at
// the savepoint, a failed transaction becomes usable again, and the
// savepoint stays (later ones are forgotten), as in PostgreSQL.
func (s *session) rollbackToSavepoint(sql string) (*pgwire.Result, error) {
	name, err := savepointName(sql)
	if err != nil {
		return nil, err
	}
	if s.tx == nil {
		return nil, notInBlock("ROLLBACK TO SAVEPOINT")
	}
	tx := s.tx
	i, err := tx.findSavepoint(name)
	if err != nil {
		return nil, err
	}
	sp := tx.savepoints[i]
	tx.stmts, tx.seen = tx.stmts[:sp.stmts:sp.stmts], tx.seen[:sp.stmts:sp.stmts]
	tx.writes, tx.ddl, tx.readOnly, tx.failed = sp.writes, sp.ddl, sp.readOnly, false
	tx.local = copySet(sp.local)
	s.restoreSettings(sp.settings.copy())
	tx.savepoints = tx.savepoints[:i+1]
	return &pgwire.Result{Tag: "ROLLBACK"}, nil
}

// findSavepoint is the index of the newest savepoint named name, or 3B001.
func (tx *transaction) findSavepoint(name string) (int, error) {
	for i := len(tx.savepoints) - 1; i >= 0; i-- {
		if tx.savepoints[i].name == name {
			return i, nil
		}
	}
	return 0, &pgwire.Error{Code: stateNoSavepoint, Message: fmt.Sprintf("savepoint %q does not exist", name)}
}

// notInBlock is PostgreSQL's error for a savepoint statement outside a
// transaction block.
func notInBlock(what string) *pgwire.Error {
	return &pgwire.Error{Code: stateNoActiveTx, Message: what + " can only be used in transaction blocks"}
}

func failedTx() *pgwire.Error {
	return &pgwire.Error{Code: stateInFailedTx, Message: "current transaction is aborted, commands ignored until end of transaction block"}
}

// savepointName reads the name of SAVEPOINT name, RELEASE [SAVEPOINT]
// name and ROLLBACK [WORK|TRANSACTION] TO [SAVEPOINT] name: an unquoted
// name folds to lower case, a quoted one is kept as written.
func savepointName(sql string) (string, error) {
	toks, err := savepointTokens(sql)
	if err != nil {
		return "", err
	}
	upper := func(i int) string {
		if i < len(toks) && !strings.HasPrefix(toks[i], `"`) {
			return strings.ToUpper(toks[i])
		}
		return ""
	}
	i := 1
	switch upper(0) {
	case "ABORT": // PostgreSQL has no ABORT TO
		return "", syntaxError(sql)
	case "ROLLBACK":
		if w := upper(i); w == "WORK" || w == "TRANSACTION" {
			i++
		}
		if upper(i) != "TO" {
			return "", syntaxError(sql)
		}
		i++
		if upper(i) == "SAVEPOINT" && i+1 < len(toks) {
			i++
		}
	case "RELEASE":
		if upper(i) == "SAVEPOINT" && i+1 < len(toks) {
			i++
		}
	}
	if i != len(toks)-1 {
		return "", syntaxError(sql)
	}
	name := identifier(toks[i])
	if name == "" {
		return "", &pgwire.Error{Code: stateSyntax, Message: "zero-length delimited identifier"}
	}
	return name, nil
}

// identifier is a name token as PostgreSQL reads it: an unquoted one
// folds to lower case, a quoted one is kept as written.
func identifier(tok string) string {
	if strings.HasPrefix(tok, `"`) {
		return strings.ReplaceAll(tok[1:len(tok)-1], `""`, `"`)
	}
	return strings.ToLower(tok)
}

// savepointTokens splits a savepoint statement into words and quoted
// identifiers (comments and a final semicolon dropped); anything else is
// a syntax error.
func savepointTokens(sql string) ([]string, error) {
	var toks []string
	bad := false
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			toks = append(toks, word.String())
			word.Reset()
		}
	}
	scanTokens(sql, false, func(i, j int, class tokenClass) {
		switch {
		case class == tokComment:
			flush()
		case class == tokLiteral && sql[i] == '"':
			flush()
			toks = append(toks, sql[i:j])
		case class == tokLiteral || class == tokOpen:
			bad = true
		case isWordRune(rune(sql[i])) && sql[i] != '.' || sql[i] >= 0x80:
			word.WriteString(sql[i:j])
		case sql[i] == ' ' || sql[i] == '\t' || sql[i] == '\n' || sql[i] == '\r' || sql[i] == '\f':
			flush()
		case sql[i] == ';' && strings.TrimSpace(stripComments(sql[j:])) == "":
			flush()
		default:
			bad = true
		}
	})
	flush()
	if bad || len(toks) < 2 {
		return nil, syntaxError(sql)
	}
	return toks, nil
}

func syntaxError(sql string) *pgwire.Error {
	return &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf("syntax error in %q", strings.TrimSpace(sql))}
}

func copySet(m map[string]bool) map[string]bool {
	if m == nil {
		return nil
	}
	c := make(map[string]bool, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
