package mysql

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// A postgres-dialect table keeps a CHECK's MariaDB translation only, as
// MariaDB prints it back (information_schema.CHECK_CONSTRAINTS: lower-case
// keywords, no table qualifier, parentheses only where its precedence
// needs them), and a default as MariaDB shows it (COLUMN_DEFAULT). The
// dump writes them back as PostgreSQL's SQL: the text is parsed with
// MariaDB's precedence (chkParser) and printed (chkPrinter) with the
// constructs the translation writes read as the PostgreSQL they stand
// for (X * 4294967296 DIV 4294967296, the check that an int4 result fits,
// as X; DIV as / of integers; CHAR_LENGTH as length; CONCAT as ||; 0 and
// 1 beside a bool as false and true; DATE'…' and TIMESTAMP'…' as literals
// of the column's type, a timestamptz one in UTC). The PostgreSQL text is
// then translated again (verifyChecks): only a text whose translation
// parses to the same tree as MariaDB's is written, so the constraint the
// new engine gets is the one the network enforces; any other is the
// dump's error, never a different constraint.

// errCheckText is a CHECK or default text the reverse translation does
// not read.
var errCheckText = errors.New("a construct the dump cannot write as PostgreSQL's SQL")

// chkNode is one node of a CHECK's (or a default's) expression.
type chkNode struct {
	// op is the node's kind: col, num, str, bytes, date, ts, null, call,
	// not, neg, isnull, isnotnull, istrue, isfalse, isnottrue,
	// isnotfalse, in, notin, between, notbetween, like, notlike, or a
	// binary operator (or, and, =, <>, <, <=, >, >=, +, -, *, div, mod).
	op string
	// text is a column's name, a literal's text (a string's value, a
	// byte string's hex), a function's lower-case name.
	text string
	// flavor is a string's introducer and collation (_utf8mb4 collate
	// utf8mb4_nopad_bin), "" for a bare one.
	flavor string
	args   []*chkNode
}

// chkToken is one token of MariaDB's expression text.
type chkToken struct {
	kind byte   // 'i' quoted identifier, 'w' word (lower case), 'n' number, 's' string, 'o' operator
	text string // the identifier, word, number, operator or string value
	pre  string // a string's prefix, lower case: _utf8mb4, x, date, timestamp or ""
}

// chkTokens splits MariaDB's expression text into tokens.
func chkTokens(s string) ([]chkToken, error) {
	var out []chkToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '`':
			j := i + quotedLen(s[i:])
			if j > len(s) || j == i+1 || s[j-1] != '`' {
				return nil, fmt.Errorf("%w: an unterminated identifier", errCheckText)
			}
			out = append(out, chkToken{kind: 'i', text: strings.ReplaceAll(s[i+1:j-1], "``", "`")})
			i = j
		case c == '\'':
			v, j, err := chkString(s, i)
			if err != nil {
				return nil, err
			}
			out, i = append(out, chkToken{kind: 's', text: v}), j
		case isChkWord(c):
			j := i
			for j < len(s) && (isChkWord(s[j]) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			w := strings.ToLower(s[i:j])
			if j < len(s) && s[j] == '\'' && (strings.HasPrefix(w, "_") || w == "x" || w == "date" || w == "timestamp") {
				v, k, err := chkString(s, j)
				if err != nil {
					return nil, err
				}
				out, i = append(out, chkToken{kind: 's', text: v, pre: w}), k
				continue
			}
			out, i = append(out, chkToken{kind: 'w', text: w}), j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + len(numberPrefix.FindString(s[i:]))
			out, i = append(out, chkToken{kind: 'n', text: s[i:j]}), j
		default:
			n := chkOperator(s[i:])
			if n == 0 {
				return nil, fmt.Errorf("%w: the character %q", errCheckText, c)
			}
			out, i = append(out, chkToken{kind: 'o', text: s[i : i+n]}), i+n
		}
	}
	return out, nil
}

// numberPrefix is the number a text starts with (chkTokens).
var numberPrefix = regexp.MustCompile(`^[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?`)

// isChkWord reports whether c starts or continues a word.
func isChkWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c >= 0x80
}

// chkString reads the string literal that starts at s[i] (a quote) and
// returns its value and the end of the literal, as MariaDB's lexer reads
// it without NO_BACKSLASH_ESCAPES (mysql.SQLMode): a doubled quote is a
// quote, a backslash escapes the character after it (\0 \b \n \r \t \Z
// are control characters, \% and \_ stay two characters). MariaDB prints
// a stored expression's bare literal escaped so (\' and \\), and reads
// that text again when it opens the table: the value read here is the one
// it enforces.
func chkString(s string, i int) (string, int, error) {
	var v strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\' && j+1 < len(s):
			j++
			if e, ok := chkEscapes[s[j]]; ok {
				v.WriteString(e)
			} else {
				v.WriteByte(s[j])
			}
		case c == '\'' && j+1 < len(s) && s[j+1] == '\'':
			v.WriteByte('\'')
			j++
		case c == '\'':
			return v.String(), j + 1, nil
		default:
			v.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("%w: an unterminated string", errCheckText)
}

// chkEscapes are the escapes of MariaDB's string literals that are not
// the escaped character itself.
var chkEscapes = map[byte]string{'0': "\x00", 'b': "\b", 'n': "\n", 'r': "\r", 't': "\t", 'Z': "\x1a", '%': `\%`, '_': `\_`}

// chkOperator is the length of the operator s starts with, 0 if none.
func chkOperator(s string) int {
	for _, op := range []string{"<=>", "<=", ">=", "<>", "!=", "&&", "||", "<<", ">>"} {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	if strings.ContainsRune("=<>+-*/%(),.!|&^~", rune(s[0])) {
		return 1
	}
	return 0
}

// chkParser reads tokens as MariaDB's expressions, with its precedence:
// OR, AND, NOT, the comparisons (IS, LIKE, IN and BETWEEN among them),
// + and -, *, /, DIV, % and MOD, unary minus and !, COLLATE.
type chkParser struct {
	toks []chkToken
	i    int
}

// parseChk parses s, one whole expression as information_schema shows
// it. A string holding '?' is refused: information_schema's text is
// utf8mb3, which shows a character beyond the BMP as '?' (checked: a
// default '😀' reads '????'), so a '?' there may not be the one MariaDB
// enforces. One holding NUL is refused too: PostgreSQL's text cannot.
func parseChk(s string) (*chkNode, error) {
	toks, err := chkTokens(s)
	if err != nil {
		return nil, err
	}
	for _, t := range toks {
		switch {
		case t.kind != 's' || t.pre == "x":
		case strings.Contains(t.text, "?"):
			return nil, fmt.Errorf("%w: a string with '?' (information_schema shows a character beyond the BMP as '?')", errCheckText)
		case strings.Contains(t.text, "\x00"):
			return nil, fmt.Errorf("%w: a string holding NUL", errCheckText)
		}
	}
	p := &chkParser{toks: toks}
	n, err := p.or()
	if err == nil && p.i < len(p.toks) {
		err = fmt.Errorf("%w: %q after the expression", errCheckText, p.toks[p.i].text)
	}
	return n, err
}

func (p *chkParser) peek(k int) chkToken {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return chkToken{}
}

// word consumes the word w if it comes next.
func (p *chkParser) word(w string) bool {
	if t := p.peek(0); t.kind == 'w' && t.text == w {
		p.i++
		return true
	}
	return false
}

// op consumes one of the operators ops if it comes next and returns it.
func (p *chkParser) op(ops ...string) string {
	if t := p.peek(0); t.kind == 'o' {
		for _, o := range ops {
			if t.text == o {
				p.i++
				return o
			}
		}
	}
	return ""
}

// want consumes the operator o or fails.
func (p *chkParser) want(o string) error {
	if p.op(o) == "" {
		return fmt.Errorf("%w: %q where %q was expected", errCheckText, p.peek(0).text, o)
	}
	return nil
}

func bin(op string, l, r *chkNode) *chkNode { return &chkNode{op: op, args: []*chkNode{l, r}} }

func (p *chkParser) or() (*chkNode, error) {
	l, err := p.and()
	for err == nil && (p.word("or") || p.op("||") != "") {
		var r *chkNode
		if r, err = p.and(); err == nil {
			l = bin("or", l, r)
		}
	}
	return l, err
}

func (p *chkParser) and() (*chkNode, error) {
	l, err := p.not()
	for err == nil && (p.word("and") || p.op("&&") != "") {
		var r *chkNode
		if r, err = p.not(); err == nil {
			l = bin("and", l, r)
		}
	}
	return l, err
}

func (p *chkParser) not() (*chkNode, error) {
	if p.word("not") {
		x, err := p.not()
		return &chkNode{op: "not", args: []*chkNode{x}}, err
	}
	return p.predicate()
}

// predicate reads the comparisons, IS, [NOT] IN, BETWEEN and LIKE after
// an operand.
func (p *chkParser) predicate() (*chkNode, error) {
	l, err := p.additive()
	for err == nil {
		if o := p.op("=", "<>", "!=", "<", "<=", ">", ">="); o != "" {
			var r *chkNode
			if r, err = p.additive(); err == nil {
				l = bin(strings.ReplaceAll(o, "!=", "<>"), l, r)
			}
			continue
		}
		if p.word("is") {
			neg := map[bool]string{true: "isnot", false: "is"}[p.word("not")]
			t := p.peek(0)
			if t.kind != 'w' || (t.text != "null" && t.text != "true" && t.text != "false") {
				return nil, fmt.Errorf("%w: IS %s", errCheckText, t.text)
			}
			p.i++
			l = &chkNode{op: neg + t.text, args: []*chkNode{l}}
			continue
		}
		neg := ""
		if t := p.peek(1); t.kind == 'w' && (t.text == "in" || t.text == "between" || t.text == "like") && p.word("not") {
			neg = "not"
		}
		switch {
		case p.word("in"):
			var items []*chkNode
			if items, err = p.list(); err == nil {
				l = &chkNode{op: neg + "in", args: append([]*chkNode{l}, items...)}
			}
		case p.word("between"):
			l, err = p.between(l, neg)
		case p.word("like"):
			var r *chkNode
			if r, err = p.additive(); err == nil {
				l = bin(neg+"like", l, r)
			}
		default:
			return l, nil
		}
	}
	return l, err
}

// between reads BETWEEN's bounds after x.
func (p *chkParser) between(x *chkNode, neg string) (*chkNode, error) {
	lo, err := p.additive()
	if err != nil {
		return nil, err
	}
	if !p.word("and") {
		return nil, fmt.Errorf("%w: BETWEEN without AND", errCheckText)
	}
	hi, err := p.additive()
	return &chkNode{op: neg + "between", args: []*chkNode{x, lo, hi}}, err
}

// list reads a parenthesised list of expressions.
func (p *chkParser) list() ([]*chkNode, error) {
	if err := p.want("("); err != nil {
		return nil, err
	}
	var out []*chkNode
	if p.op(")") != "" {
		return out, nil
	}
	for {
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.op(")") != "" {
			return out, nil
		}
		if err := p.want(","); err != nil {
			return nil, err
		}
	}
}

func (p *chkParser) additive() (*chkNode, error) {
	l, err := p.multiplicative()
	for err == nil {
		o := p.op("+", "-")
		if o == "" {
			break
		}
		var r *chkNode
		if r, err = p.multiplicative(); err == nil {
			l = bin(o, l, r)
		}
	}
	return l, err
}

func (p *chkParser) multiplicative() (*chkNode, error) {
	l, err := p.unary()
	for err == nil {
		o := p.op("*", "/", "%")
		switch {
		case o == "%":
			o = "mod"
		case o == "" && p.word("div"):
			o = "div"
		case o == "" && p.word("mod"):
			o = "mod"
		case o == "":
			return l, nil
		}
		var r *chkNode
		if r, err = p.unary(); err == nil {
			l = bin(o, l, r)
		}
	}
	return l, err
}

// unary reads unary minus (a number's sign is the number's) and !.
func (p *chkParser) unary() (*chkNode, error) {
	switch p.op("-", "!") {
	case "-":
		x, err := p.unary()
		if err == nil && x.op == "num" && !strings.HasPrefix(x.text, "-") {
			return &chkNode{op: "num", text: "-" + x.text}, nil
		}
		return &chkNode{op: "neg", args: []*chkNode{x}}, err
	case "!":
		x, err := p.unary()
		return &chkNode{op: "not", args: []*chkNode{x}}, err
	}
	return p.primary()
}

// primary reads a parenthesised expression, a column, a literal or a
// function call.
func (p *chkParser) primary() (*chkNode, error) {
	t := p.peek(0)
	p.i++
	switch t.kind {
	case 'o':
		if t.text != "(" {
			break
		}
		n, err := p.or()
		if err == nil {
			err = p.want(")")
		}
		return n, err
	case 'i':
		if p.peek(0).text == "." && p.peek(1).kind == 'i' { // a qualified column: the table's name dropped
			t = p.peek(1)
			p.i += 2
		}
		return &chkNode{op: "col", text: t.text}, nil
	case 'n':
		return &chkNode{op: "num", text: t.text}, nil
	case 's':
		return p.literal(t)
	case 'w':
		return p.wordPrimary(t)
	}
	return nil, fmt.Errorf("%w: %q", errCheckText, t.text)
}

// literal is the string token t as a literal, with its collation.
func (p *chkParser) literal(t chkToken) (*chkNode, error) {
	switch t.pre {
	case "x":
		if _, err := hexDecode(t.text); err != nil {
			return nil, fmt.Errorf("%w: X'%s'", errCheckText, t.text)
		}
		return &chkNode{op: "bytes", text: strings.ToLower(t.text)}, nil
	case "date":
		return &chkNode{op: "date", text: t.text}, nil
	case "timestamp":
		return &chkNode{op: "ts", text: t.text}, nil
	}
	n := &chkNode{op: "str", text: t.text, flavor: t.pre}
	if p.word("collate") {
		c := p.peek(0)
		if c.kind != 'w' {
			return nil, fmt.Errorf("%w: COLLATE %q", errCheckText, c.text)
		}
		p.i++
		n.flavor += " collate " + c.text
	}
	return n, nil
}

// wordPrimary is NULL, TRUE and FALSE (MariaDB's 1 and 0) or a call.
func (p *chkParser) wordPrimary(t chkToken) (*chkNode, error) {
	switch t.text {
	case "null":
		return &chkNode{op: "null"}, nil
	case "true":
		return &chkNode{op: "num", text: "1"}, nil
	case "false":
		return &chkNode{op: "num", text: "0"}, nil
	}
	if p.peek(0).text != "(" || p.peek(0).kind != 'o' {
		return nil, fmt.Errorf("%w: %s", errCheckText, t.text)
	}
	args, err := p.list()
	if err != nil {
		return nil, err
	}
	if t.text == "mod" && len(args) == 2 { // MariaDB prints MOD(a, b) as a MOD b
		return bin("mod", args[0], args[1]), nil
	}
	return &chkNode{op: "call", text: t.text, args: args}, nil
}

// hexDecode checks a byte string's hex digits.
func hexDecode(s string) ([]byte, error) {
	b, err := pgByteaText(`\x` + s)
	if err != nil {
		return nil, err
	}
	return b.([]byte), nil
}

// overflowScales are the factors of the translation's check that an
// integer result fits its PostgreSQL type (X * f DIV f fails where X
// does not fit): int4's and int2's.
var overflowScales = map[string]bool{"4294967296": true, "281474976710656": true}

// unwrapOverflow is X of X * f DIV f (an overflowScales f), or n.
func unwrapOverflow(n *chkNode) *chkNode {
	if n.op == "div" && n.args[0].op == "*" && n.args[1].op == "num" && overflowScales[n.args[1].text] {
		if f := n.args[0].args[1]; f.op == "num" && f.text == n.args[1].text {
			return n.args[0].args[0]
		}
	}
	return n
}
