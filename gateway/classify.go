package gateway

import (
	"errors"
	"strings"
	"unicode"

	"github.com/relchain/relchain/pgwire"
)

// kind is what the gateway does with a statement.
type kind int

const (
	kindRead       kind = iota // the query path (or a rehearsal inside a transaction)
	kindWrite                  // a bc-transaction (or a rehearsal inside a transaction)
	kindBegin                  // BEGIN, START TRANSACTION
	kindCommit                 // COMMIT, END
	kindRollback               // ROLLBACK, ABORT
	kindSet                    // SET, RESET: the session's settings
	kindShow                   // SHOW
	kindVersion                // SELECT version()
	kindNoop                   // DISCARD, DEALLOCATE: nothing to do here
	kindSavepoint              // SAVEPOINT name
	kindRelease                // RELEASE [SAVEPOINT] name
	kindRollbackTo             // ROLLBACK [WORK|TRANSACTION] TO [SAVEPOINT] name
	kindVacuum                 // VACUUM, ANALYZE: each node's own business, answered here
	kindRefused                // LISTEN, cursors…: refused with a clear error
	kindCopy                   // COPY: copy.go
	// kindSetConstraints: SET CONSTRAINTS, a statement of the
	// transaction (constraints.go).
	kindSetConstraints
)

// words returns the first n keywords of sql, upper case, skipping
// whitespace, comments and opening parentheses.
func words(sql string, n int) []string {
	var out []string
	s := sql
	for len(out) < n {
		s = skipSpaceAndComments(s)
		s = strings.TrimLeft(s, "(")
		s = skipSpaceAndComments(s)
		if s == "" {
			break
		}
		end := strings.IndexFunc(s, func(r rune) bool { return !isWordRune(r) })
		if end == 0 {
			break
		}
		if end < 0 {
			end = len(s)
		}
		out = append(out, strings.ToUpper(s[:end]))
		s = s[end:]
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// skipSpaceAndComments drops leading whitespace, -- and /* */ comments.
func skipSpaceAndComments(s string) string {
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		switch {
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		case strings.HasPrefix(s, "/*"):
			i := strings.Index(s, "*/")
			if i < 0 {
				return ""
			}
			s = s[i+2:]
		default:
			return s
		}
	}
}

// classify says what to do with one statement.
func classify(sql string) kind {
	w := words(sql, 3)
	if len(w) == 0 {
		return kindRead
	}
	switch w[0] {
	case "BEGIN", "START":
		return kindBegin
	case "COMMIT", "END":
		return kindCommit
	case "ROLLBACK", "ABORT":
		if len(w) > 1 && (w[1] == "TO" || (len(w) > 2 && w[2] == "TO")) {
			return kindRollbackTo
		}
		return kindRollback
	case "SET", "RESET":
		if w[0] == "SET" && len(w) > 1 && w[1] == "CONSTRAINTS" {
			return kindSetConstraints
		}
		return kindSet
	case "SHOW":
		return kindShow
	case "DISCARD", "DEALLOCATE":
		return kindNoop
	case "SAVEPOINT":
		return kindSavepoint
	case "RELEASE":
		return kindRelease
	case "COPY":
		return kindCopy
	case "VACUUM", "ANALYZE", "ANALYSE":
		return kindVacuum
	case "LISTEN", "UNLISTEN", "NOTIFY", "PREPARE", "EXECUTE", "DECLARE", "FETCH", "CLOSE", "LOCK":
		return kindRefused
	case "SELECT":
		if isVersionQuery(sql) {
			return kindVersion
		}
		return kindRead
	case "VALUES", "TABLE", "EXPLAIN":
		return kindRead
	case "WITH":
		if modifiesData(sql) {
			return kindWrite
		}
		return kindRead
	}
	return kindWrite
}

// maintenance answers VACUUM and ANALYZE (pgbench -i sends VACUUM ANALYZE
// t after loading) as PostgreSQL completes them, without reaching the
// chain: vacuuming and statistics change no row and no result, and each
// node's database runs autovacuum on its own schedule; the gate refuses
// them in blocks. Like PostgreSQL, VACUUM refuses to run inside a
// transaction block (25001); ANALYZE may.
func maintenance(sql string, inTx bool) (*pgwire.Result, error) {
	if words(sql, 1)[0] == "VACUUM" {
		if inTx {
			return nil, &pgwire.Error{Code: stateActiveTx, Message: "VACUUM cannot run inside a transaction block"}
		}
		return &pgwire.Result{Tag: "VACUUM"}, nil
	}
	return &pgwire.Result{Tag: "ANALYZE"}, nil
}

// isVersionQuery matches "SELECT version()" in any spacing and case.
func isVersionQuery(sql string) bool {
	s := strings.ToLower(strings.Join(strings.Fields(stripComments(sql)), ""))
	s = strings.TrimSuffix(s, ";")
	return s == "selectversion()" || s == "selectpg_catalog.version()"
}

// modifiesData reports a WITH statement that contains a data-modifying
// keyword outside literals (WITH x AS (INSERT … RETURNING …) SELECT …).
func modifiesData(sql string) bool {
	for _, tok := range strings.FieldsFunc(strings.ToUpper(stripLiterals(sql)), func(r rune) bool { return !isWordRune(r) }) {
		switch tok {
		case "INSERT", "UPDATE", "DELETE", "MERGE":
			return true
		}
	}
	return false
}

// stripComments removes comments outside literals.
func stripComments(sql string) string {
	var b strings.Builder
	scan(sql, false, func(seg string, literal bool) { b.WriteString(seg) }, true)
	return b.String()
}

// stripLiterals replaces quoted literals and identifiers with a space.
func stripLiterals(sql string) string {
	var b strings.Builder
	scan(sql, false, func(seg string, literal bool) {
		if literal {
			b.WriteByte(' ')
		} else {
			b.WriteString(seg)
		}
	}, true)
	return b.String()
}

// errUnterminated is a simple query whose quote or comment never closes.
var errUnterminated = errors.New("unterminated quoted string, identifier or comment")

// split cuts a simple-query string into statements at top-level
// semicolons; dollar quotes count on PostgreSQL only, backquotes on
// MySQL and SQLite. Empty statements are dropped.
func split(sql string, dollarQuotes bool) ([]string, error) {
	var stmts []string
	var cur strings.Builder
	ok := scanSplit(sql, dollarQuotes, func(seg string, end bool) {
		cur.WriteString(seg)
		if end {
			if s := strings.TrimSpace(cur.String()); strings.TrimSpace(stripComments(s)) != "" {
				stmts = append(stmts, s)
			}
			cur.Reset()
		}
	})
	if !ok {
		return nil, errUnterminated
	}
	if s := strings.TrimSpace(cur.String()); strings.TrimSpace(stripComments(s)) != "" {
		stmts = append(stmts, s)
	}
	return stmts, nil
}

// scanSplit walks sql, calling emit with consecutive segments; end marks
// a segment that a top-level semicolon closed (the semicolon is dropped).
// It returns false when a quote or comment is left open.
func scanSplit(sql string, dollarQuotes bool, emit func(seg string, end bool)) bool {
	start := 0
	ok := true
	scanTokens(sql, dollarQuotes, func(i, j int, class tokenClass) {
		if class == tokOpen {
			ok = false
		}
		if class == tokPlain && sql[i] == ';' {
			emit(sql[start:i], true)
			start = j
		}
	})
	emit(sql[start:], false)
	return ok
}

// scan calls emit with literal and non-literal segments of sql; comments
// are dropped when dropComments is set.
func scan(sql string, dollarQuotes bool, emit func(seg string, literal bool), dropComments bool) {
	scanTokens(sql, dollarQuotes, func(i, j int, class tokenClass) {
		switch class {
		case tokComment:
			if !dropComments {
				emit(sql[i:j], false)
			} else {
				emit(" ", false)
			}
		case tokLiteral, tokOpen:
			emit(sql[i:j], true)
		default:
			emit(sql[i:j], false)
		}
	})
}
