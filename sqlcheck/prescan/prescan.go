package prescan

import (
	"errors"
	"fmt"
)

// Dialect is the lexical dialect a text is scanned in.
type Dialect uint8

// The dialects, one per engine family whose server lexes the text.
const (
	PostgreSQL Dialect = iota + 1
	MySQL              // MySQL and MariaDB, with backslash escapes (relchain's sql_mode)
	SQLite
)

// String is the dialect's name.
func (d Dialect) String() string {
	switch d {
	case PostgreSQL:
		return "PostgreSQL"
	case MySQL:
		return "MySQL"
	case SQLite:
		return "SQLite"
	}
	return fmt.Sprintf("Dialect(%d)", uint8(d))
}

// The limits. Each sits far below every parser's and engine's own limit
// (see DESIGN.md beside this file for the measurements); they are part of
// the protocol: a change changes which txs succeed.
const (
	// MaxBytes bounds a statement text (the default max_tx_bytes).
	MaxBytes = 1 << 20
	// MaxTokens bounds a statement's tokens.
	MaxTokens = 1 << 18
	// MaxDepth bounds the nesting depth (parentheses, brackets, CASE,
	// block keywords, operator chains; see the package documentation).
	MaxDepth = 128
	// MaxLiteralDepth bounds the nesting of (, [ and { inside a string
	// literal (arrays, JSON, jsonpath, regular expressions).
	MaxLiteralDepth = 128
	// MaxIdentifier bounds an identifier's length in bytes, quoted or not.
	MaxIdentifier = 1024
	// MaxLexWork bounds PostgreSQL's lexer work (Stats.LexWork).
	MaxLexWork = 4 << 20
)

// ErrLimit is wrapped by every refusal of Check.
var ErrLimit = errors.New("the statement text exceeds one of relchain's bounds")

// Error is Check's refusal: which limit, the measured value and the limit.
type Error struct {
	// What names the measure ("nesting depth", "size", ...), Unit its
	// unit ("bytes" or ""), Note what it counts.
	What, Unit, Note string
	Value, Limit     int
}

// Error is the refusal's message, e.g. "statement nesting depth 5123
// exceeds relchain's limit of 256 (parentheses, brackets, CASE, operator
// chains)".
func (e *Error) Error() string {
	unit := ""
	if e.Unit != "" {
		unit = " " + e.Unit
	}
	msg := fmt.Sprintf("statement %s %d%s exceeds relchain's limit of %d", e.What, e.Value, unit, e.Limit)
	if e.Note != "" {
		msg += " (" + e.Note + ")"
	}
	return msg
}

// Unwrap is ErrLimit.
func (e *Error) Unwrap() error { return ErrLimit }

// Stats is what one scan measured.
type Stats struct {
	// Tokens counts tokens (words, numbers, literals, quoted identifiers,
	// operator characters, punctuation); comments and blanks are none.
	Tokens int
	// Depth is the nesting depth (see the package documentation).
	Depth int
	// LiteralDepth is the deepest nesting of (, [, { inside a literal.
	LiteralDepth int
	// Identifier is the longest identifier's length in bytes.
	Identifier int
	// LexWork bounds, in PostgreSQL, the bytes its lexer reads: it
	// rescans a run of operator characters (+-*/<>=~!@#%^&|`?) from each
	// token it cuts from it, and from each /* inside it, in comments too
	// ("/*/*/*..." is quadratic). A run of length L costs at most L(L+1)/2,
	// each /* the rest of its run. Zero in the other dialects.
	LexWork int
	// SlashSlash counts, in MySQL, the "//" in code: MySQL reads two
	// division signs, the gate's parser (Vitess) a comment to the end of
	// the line, and the gate's tokenizer rescans the line after each.
	SlashSlash int
	// Opens counts the (, [ and { in code (outside literals, quoted
	// identifiers and comments): tests compare it with each parser's own
	// tokenizer to show the scan reads the text as the parser does.
	Opens int
	// Steps counts the scanner's inner-loop iterations: its work, which
	// tests compare at n and 2n to show it linear.
	Steps int
}

// Check refuses a text that exceeds one of the limits, naming the limit
// and the value: an *Error wrapping ErrLimit, nil otherwise. It is a pure
// function of sql and d, linear in len(sql), safe for concurrent use.
func Check(sql string, d Dialect) error {
	if len(sql) > MaxBytes {
		return &Error{What: "size", Unit: "bytes", Value: len(sql), Limit: MaxBytes}
	}
	s := Measure(sql, d)
	switch {
	case s.Tokens > MaxTokens:
		return &Error{What: "token count", Value: s.Tokens, Limit: MaxTokens}
	case s.Depth > MaxDepth:
		return &Error{What: "nesting depth", Value: s.Depth, Limit: MaxDepth,
			Note: "parentheses, brackets, CASE, block keywords, operator chains, subqueries"}
	case s.LiteralDepth > MaxLiteralDepth:
		return &Error{What: "literal nesting depth", Value: s.LiteralDepth, Limit: MaxLiteralDepth,
			Note: "(, [ and { inside a string literal: arrays, JSON, jsonpath, regular expressions"}
	case s.LexWork > MaxLexWork:
		return &Error{What: "lexer work", Value: s.LexWork, Limit: MaxLexWork,
			Note: "long runs of operator characters, or of /* in a comment, which PostgreSQL's lexer rescans"}
	case s.SlashSlash > 0:
		return &Error{What: `count of "//" outside literals and comments`, Value: s.SlashSlash, Limit: 0,
			Note: "MySQL reads two division signs where the gate's parser reads a comment"}
	case s.Identifier > MaxIdentifier:
		return &Error{What: "identifier length", Unit: "bytes", Value: s.Identifier, Limit: MaxIdentifier}
	}
	return nil
}

// Measure scans sql once in dialect d and returns what it measured. It
// never fails: an unterminated literal or comment runs to the end of the
// text (the parser refuses it), an unbalanced closer is ignored.
func Measure(sql string, d Dialect) Stats {
	sc := scanner{s: sql, d: d, stack: make([]level, 1, 16)}
	sc.run()
	return sc.st
}
