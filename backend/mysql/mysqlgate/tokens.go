package mysqlgate

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Token is one lexical token of a statement text, as the gate's parser
// (Vitess) scans it: a word (keyword, unquoted identifier or number), a
// quoted identifier, a string literal, or an operator or punctuation mark.
// Comments and whitespace are not tokens.
type Token struct {
	// Up is a word or operator upper-cased, or a backquoted identifier's
	// name (unquoted, case kept). It is empty for a string literal.
	Up string
	// Raw is the token's text; Start and End its offsets in the text.
	Raw        string
	Start, End int
	// Quoted marks a backquoted identifier, Str a string literal.
	Quoted, Str bool
}

// Word reports whether t is a word (not quoted, not a literal string).
func (t Token) Word() bool { return !t.Quoted && !t.Str }

// Tokens splits sql into tokens with the parser's tokenizer, reading the
// text as MySQL does where the two differ: "--" starts a comment only
// before a space or control character, "//" starts none, /*! ... */ is
// skipped as a comment, form feed and vertical tab are whitespace, '@'
// and ':' are single characters, '$' and bytes from 0x80 are identifier
// characters, and a character the
// tokenizer cannot start a token with is a token of its own. ok is false
// when a string, quoted identifier or comment is unterminated.
func Tokens(sql string) (toks []Token, ok bool) {
	toks, ok, _ = tokens(sql)
	return toks, ok
}

// tokens is Tokens, with its work: the bytes handed to the tokenizer,
// summed over its restarts (each copies the rest of the text and may read
// to the end of a line). mysqlBytes leaves few restarts (a backslash or
// an invalid hexadecimal literal in code); a text needing more than
// maxRestartWork is not tokenized (ok is false), so the work stays linear.
func tokens(sql string) (toks []Token, ok bool, work int) {
	lexed := mysqlBytes(sql)
	for off := 0; off < len(sql); {
		var restart int
		work += len(sql) - off
		if work > maxRestartWork*len(sql)+4096 {
			return toks, false, work
		}
		toks, restart, ok = scanFrom(sql, lexed, off, toks)
		if !ok || restart < 0 {
			return toks, ok, work
		}
		off = restart
	}
	return toks, true, work
}

// maxRestartWork bounds the tokenizer's work, in passes over the text.
const maxRestartWork = 8

// unterminated reports whether a token the tokenizer could not scan is an
// unterminated string, quoted identifier or comment.
func unterminated(rest string) bool {
	return rest == "" || rest[0] == '\'' || rest[0] == '"' || rest[0] == '`' || strings.HasPrefix(rest, "/*")
}

// mysqlBytes is sql with the bytes the tokenizer reads differently from
// MySQL replaced, one for one, so that offsets stay the same: '$' and
// bytes from 0x80 by '_' (identifier characters), form feed and vertical
// tab by spaces, NUL, ':' and '@' by '~' (single characters).
//
// It also removes the comments the tokenizer would see where MySQL sees
// operators, so that no run of them makes the tokenizer restart after
// each (quadratic: 40,000 '-' took 6 s): the first '-' of a "--" not
// followed by a blank or control character, and the second '/' of a "//"
// not followed by '*', become '~'. Neither byte can end a string, a
// quoted name or a comment, or start one, so wherever they are the
// tokenizer's boundaries stay MySQL's.
func mysqlBytes(sql string) string {
	b := []byte(sql)
	for i, c := range b {
		switch {
		case c == '-' && i+2 < len(sql) && sql[i+1] == '-' && sql[i+2] > ' ' && sql[i+2] != 0x7f:
			b[i] = '~'
		case c == '/' && i+1 < len(sql) && sql[i+1] == '/' && (i+2 >= len(sql) || sql[i+2] != '*'):
			b[i+1] = '~'
			continue
		case c == '$' || c >= 0x80:
			b[i] = '_'
		case c == '[' || c == ']' || c == '{' || c == '}' || c == 0x7f || c < ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v':
			// Characters the tokenizer cannot start a token with, and
			// MySQL reads as tokens of their own: each would restart it.
			b[i] = '~'
		case c == 0 || c == ':' || c == '@':
			// The tokenizer skips a NUL, reads ":name" as a bind
			// variable and quotes after "@name" and "@@name" as part of
			// the name; for MySQL's lexer they are characters of their own.
			b[i] = '~'
		case c == '\f' || c == '\v':
			b[i] = ' '
		}
	}
	return string(b)
}

// scanFrom appends the tokens of sql from offset off. It stops early at a
// "--" or "//" that MySQL does not read as a comment, returning the offset
// to go on from (after appending the first character as a token); restart
// is -1 when the text is done.
func scanFrom(sql, lexed string, off int, toks []Token) (_ []Token, restart int, ok bool) {
	tkn := sqlparser.NewStringTokenizer(lexed[off:])
	tkn.SkipSpecialComments = true
	end := off
	for {
		typ, val := tkn.Scan()
		switch typ {
		case 0:
			return toks, -1, true
		}
		start := skipBlanks(lexed, end)
		if typ == sqlparser.LEX_ERROR {
			if unterminated(lexed[start:]) {
				return toks, -1, false
			}
			// A character the tokenizer does not start a token with
			// ("{", "[", a malformed number): a token of its own, as in
			// MySQL's lexer, which leaves it to the parser.
			return append(toks, token(sql, start, start+1)), start + 1, true
		}
		end = off + tkn.Position - 1
		if typ == sqlparser.FOR || typ == sqlparser.NOT {
			// The tokenizer looked one token ahead of these keywords.
			end = start + len(val)
		}
		raw := sql[start:end]
		if typ == sqlparser.COMMENT {
			if notComment(raw) {
				return append(toks, Token{Up: raw[:1], Raw: raw[:1], Start: start, End: start + 1}), start + 1, true
			}
			continue
		}
		toks = append(toks, token(sql, start, end))
	}
}

// token is the Token at sql[start:end].
func token(sql string, start, end int) Token {
	raw := sql[start:end]
	switch raw[0] {
	case '\'', '"':
		// The tokenizer joins adjacent literals and reads the blanks after one.
		raw = strings.TrimRight(raw, " \t\r\n\f\v")
		return Token{Raw: raw, Start: start, End: start + len(raw), Str: true}
	case '`':
		return Token{Up: strings.ReplaceAll(raw[1:len(raw)-1], "``", "`"), Raw: raw, Start: start, End: end, Quoted: true}
	}
	if (raw[0] == 'x' || raw[0] == 'X' || raw[0] == 'b' || raw[0] == 'B') && len(raw) > 1 && raw[1] == '\'' {
		return Token{Raw: raw, Start: start, End: end, Str: true} // x'..', b'..'
	}
	return Token{Up: strings.ToUpper(raw), Raw: raw, Start: start, End: end}
}

// notComment reports a comment of the tokenizer's that MySQL reads as
// code: "//", or "--" followed by a character above the space.
func notComment(c string) bool {
	return strings.HasPrefix(c, "//") || (strings.HasPrefix(c, "--") && len(c) > 2 && c[2] > ' ')
}

// skipBlanks is the offset of the first byte from i that is not a blank
// the tokenizer skips.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
