package gateway

import (
	"fmt"
	"strings"

	"github.com/relchain/relchain/pgwire"
)

// COPY statements, read by the gateway's own small tokenizer (the gateway links no SQL
// parser: libpg_query is cgo and the lint keeps parser calls behind the pre-scan). Both
// option syntaxes PostgreSQL accepts are read: COPY t FROM STDIN WITH (FORMAT csv, HEADER)
// and the old COPY t FROM STDIN CSV HEADER DELIMITER ',' that psql's \copy passes on.

// copyStmt is a parsed COPY statement.
type copyStmt struct {
	table   string   // the table as written (quoted parts kept); "" for COPY (query) TO
	columns []string // the column list as written; nil: every column
	query   string   // COPY (query) TO STDOUT
	from    bool     // FROM (else TO)
	target  string   // "stdin", "stdout", "file" or "program"
	opts    copyOptions
}

// copyOptions are the COPY options the gateway honours.
type copyOptions struct {
	format       string // "text", "csv" or "binary"
	delim        byte
	null         string
	header       bool
	quote        byte
	escape       byte
	forceNotNull []string // column names (unquoted, as compared)
	forceNull    []string
	forceQuote   []string
	forceAll     bool // FORCE_QUOTE *
	set          map[string]bool
}

// copyToken is one token of a COPY statement.
type copyToken struct {
	text   string // identifiers: lower case unless quoted; literals: their value
	raw    string // as written
	kind   byte   // 'w' word, 'q' quoted identifier, 's' string literal, 'p' punctuation, 'n' number
	offset int
}

// lexCopy splits sql into tokens; the parenthesised query of COPY (query) TO is one
// token of kind 'Q'.
func lexCopy(sql string) ([]copyToken, error) {
	var toks []copyToken
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(sql[i:], "--") || strings.HasPrefix(sql[i:], "/*"):
			j, _ := nextToken(sql, i, false)
			i = j
		case c == '\'' || ((c == 'E' || c == 'e') && i+1 < len(sql) && sql[i+1] == '\''):
			start := i
			esc := c != '\''
			if esc {
				i++
			}
			j, class := closeQuote(sql, i, '\'', esc)
			if class != tokLiteral {
				return nil, fmt.Errorf("unterminated quoted string")
			}
			v := strings.ReplaceAll(sql[i+1:j-1], "''", "'")
			if esc {
				v = unescapeE(v)
			}
			toks = append(toks, copyToken{text: v, raw: sql[start:j], kind: 's', offset: start})
			i = j
		case c == '"':
			j, class := closeQuote(sql, i, '"', false)
			if class != tokLiteral {
				return nil, fmt.Errorf("unterminated quoted identifier")
			}
			toks = append(toks, copyToken{text: strings.ReplaceAll(sql[i+1:j-1], `""`, `"`), raw: sql[i:j], kind: 'q', offset: i})
			i = j
		case isWordByte(c) || c >= 0x80:
			j := i
			for j < len(sql) && (isWordByte(sql[j]) || sql[j] >= 0x80 || sql[j] == '$') {
				j++
			}
			kind := byte('w')
			if c >= '0' && c <= '9' {
				kind = 'n'
			}
			toks = append(toks, copyToken{text: strings.ToLower(sql[i:j]), raw: sql[i:j], kind: kind, offset: i})
			i = j
		default:
			toks = append(toks, copyToken{text: string(c), raw: string(c), kind: 'p', offset: i})
			i++
		}
	}
	return toks, nil
}

// unescapeE applies the common backslash escapes of an E” string.
func unescapeE(s string) string {
	r := strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\r`, "\r", `\\`, `\`, `\'`, "'", `\b`, "\b", `\f`, "\f", `\v`, "\v")
	return r.Replace(s)
}

// copySyntax is a 42601 error about a COPY statement.
func copySyntax(format string, a ...any) *pgwire.Error {
	return &pgwire.Error{Code: stateSyntax, Message: fmt.Sprintf(format, a...)}
}

// parseCopy reads a COPY statement.
func parseCopy(sql string) (*copyStmt, error) {
	toks, err := lexCopy(strings.TrimRight(strings.TrimSpace(sql), ";"))
	if err != nil {
		return nil, copySyntax("COPY: %v", err)
	}
	p := &copyParser{toks: toks, sql: sql}
	return p.parse()
}

type copyParser struct {
	toks []copyToken
	i    int
	sql  string
}

func (p *copyParser) peek() copyToken {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return copyToken{}
}

func (p *copyParser) next() copyToken { t := p.peek(); p.i++; return t }

// word consumes the keyword w if it comes next.
func (p *copyParser) word(w string) bool {
	if t := p.peek(); t.kind == 'w' && t.text == w {
		p.i++
		return true
	}
	return false
}

func (p *copyParser) punct(c string) bool {
	if t := p.peek(); t.kind == 'p' && t.text == c {
		p.i++
		return true
	}
	return false
}

func (p *copyParser) parse() (*copyStmt, error) {
	st := &copyStmt{}
	if !p.word("copy") {
		return nil, copySyntax("not a COPY statement")
	}
	if t := p.peek(); t.kind == 'p' && t.text == "(" {
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		st.query = q
	} else {
		name, err := p.name()
		if err != nil {
			return nil, err
		}
		st.table = name
		if p.punct("(") {
			for {
				t := p.next()
				if t.kind != 'w' && t.kind != 'q' {
					return nil, copySyntax("COPY: syntax error in the column list at %q", t.raw)
				}
				st.columns = append(st.columns, t.raw)
				if p.punct(")") {
					break
				}
				if !p.punct(",") {
					return nil, copySyntax("COPY: syntax error in the column list")
				}
			}
		}
	}
	switch {
	case p.word("from"):
		st.from = true
	case p.word("to"):
	default:
		return nil, copySyntax("COPY: expected FROM or TO after the table")
	}
	if st.query != "" && st.from {
		return nil, copySyntax("COPY (query) FROM is not possible: COPY FROM needs a table")
	}
	switch t := p.next(); {
	case t.kind == 'w' && (t.text == "stdin" || t.text == "stdout"):
		st.target = t.text
		if (t.text == "stdin") != st.from {
			return nil, copySyntax("COPY: %s with %s", strings.ToUpper(t.text), map[bool]string{true: "FROM", false: "TO"}[st.from])
		}
	case t.kind == 'w' && t.text == "program":
		st.target = "program"
		return st, nil
	case t.kind == 's':
		st.target = "file"
		return st, nil
	default:
		return nil, copySyntax("COPY: expected STDIN, STDOUT, a file name or PROGRAM at %q", t.raw)
	}
	opts, err := p.options()
	if err != nil {
		return nil, err
	}
	st.opts = opts
	return st, nil
}

// name reads a possibly qualified table name, as written.
func (p *copyParser) name() (string, error) {
	var b strings.Builder
	for {
		t := p.next()
		if t.kind != 'w' && t.kind != 'q' {
			return "", copySyntax("COPY: expected a table name at %q", t.raw)
		}
		b.WriteString(t.raw)
		if !p.punct(".") {
			return b.String(), nil
		}
		b.WriteByte('.')
	}
}

// query reads the parenthesised query of COPY (query) TO, as written.
func (p *copyParser) query() (string, error) {
	open := p.next()
	depth := 1
	for p.i < len(p.toks) {
		t := p.next()
		if t.kind == 'p' && t.text == "(" {
			depth++
		} else if t.kind == 'p' && t.text == ")" {
			depth--
			if depth == 0 {
				return strings.TrimSpace(p.sql[open.offset+1 : t.offset]), nil
			}
		}
	}
	return "", copySyntax("COPY: unbalanced parentheses around the query")
}

// options reads [WITH] (option [value], …) or the old option words.
func (p *copyParser) options() (copyOptions, error) {
	o := copyOptions{format: "text", set: map[string]bool{}}
	p.word("with")
	if p.punct("(") {
		for {
			t := p.next()
			if t.kind != 'w' {
				return o, copySyntax("COPY: expected an option name at %q", t.raw)
			}
			var val []copyToken
			depth := 0
			for p.i < len(p.toks) {
				v := p.peek()
				if depth == 0 && v.kind == 'p' && (v.text == "," || v.text == ")") {
					break
				}
				if v.kind == 'p' && v.text == "(" {
					depth++
				} else if v.kind == 'p' && v.text == ")" {
					depth--
				}
				val = append(val, p.next())
			}
			if err := o.apply(t.text, val); err != nil {
				return o, err
			}
			if p.punct(")") {
				break
			}
			if !p.punct(",") {
				return o, copySyntax("COPY: syntax error in the option list")
			}
		}
	} else {
		for p.i < len(p.toks) {
			t := p.next()
			if t.kind != 'w' {
				return o, copySyntax("COPY: syntax error at %q", t.raw)
			}
			var err error
			switch t.text {
			case "binary", "csv":
				err = o.apply("format", []copyToken{{text: t.text, kind: 'w'}})
			case "header", "freeze":
				err = o.apply(t.text, nil)
			case "delimiter", "null", "quote", "escape", "encoding":
				p.word("as")
				err = o.apply(t.text, []copyToken{p.next()})
			case "force":
				if p.word("not") {
					if !p.word("null") {
						return o, copySyntax("COPY: expected FORCE NOT NULL")
					}
					err = o.apply("force_not_null", p.oldColumnList())
				} else if p.word("quote") {
					err = o.apply("force_quote", p.oldColumnList())
				} else if p.word("null") {
					err = o.apply("force_null", p.oldColumnList())
				} else {
					return o, copySyntax("COPY: expected FORCE QUOTE, FORCE NOT NULL or FORCE NULL")
				}
			default:
				return o, copySyntax("COPY: option %q not recognized", t.raw)
			}
			if err != nil {
				return o, err
			}
		}
	}
	if p.i < len(p.toks) {
		return o, copySyntax("COPY: syntax error at %q", p.peek().raw)
	}
	return o, o.check()
}

// oldColumnList reads the column list of the old FORCE options: names separated by
// commas, or *.
func (p *copyParser) oldColumnList() []copyToken {
	var out []copyToken
	for p.i < len(p.toks) {
		t := p.next()
		out = append(out, t)
		if !p.punct(",") {
			break
		}
	}
	return out
}

// apply sets one option; val is its value's tokens (none: a boolean option turned on).
func (o *copyOptions) apply(name string, val []copyToken) error {
	if o.set[name] {
		return copySyntax("conflicting or redundant options: %s", name)
	}
	o.set[name] = true
	single := func() (string, error) {
		if len(val) != 1 || (val[0].kind != 's' && val[0].kind != 'w' && val[0].kind != 'n') {
			return "", copySyntax("COPY: option %s needs one value", name)
		}
		return val[0].text, nil
	}
	oneByte := func(what string) (byte, error) {
		v, err := single()
		if err != nil {
			return 0, err
		}
		if len(v) != 1 {
			return 0, copySyntax("COPY %s must be a single one-byte character", what)
		}
		return v[0], nil
	}
	boolean := func() (bool, error) {
		if len(val) == 0 {
			return true, nil
		}
		v, err := single()
		if err != nil {
			return false, err
		}
		switch v {
		case "true", "on", "1", "yes":
			return true, nil
		case "false", "off", "0", "no":
			return false, nil
		case "match":
			return true, nil
		}
		return false, copySyntax("%s requires a Boolean value", name)
	}
	columns := func() ([]string, bool) {
		var cols []string
		for _, t := range val {
			switch {
			case t.kind == 'p' && t.text == "*":
				return nil, true
			case t.kind == 'w' || t.kind == 'q':
				cols = append(cols, t.text)
			}
		}
		return cols, false
	}
	var err error
	switch name {
	case "format":
		var v string
		if v, err = single(); err == nil {
			if v != "text" && v != "csv" && v != "binary" {
				return copySyntax("COPY format %q not recognized", v)
			}
			o.format = v
		}
	case "delimiter":
		o.delim, err = oneByte("delimiter")
	case "null":
		o.null, err = single()
		o.set["null"] = true
	case "header":
		o.header, err = boolean()
	case "quote":
		o.quote, err = oneByte("quote")
	case "escape":
		o.escape, err = oneByte("escape")
	case "freeze":
		_, err = boolean() // no effect on what is stored
	case "encoding":
		var v string
		if v, err = single(); err == nil && !strings.EqualFold(strings.ReplaceAll(v, "-", ""), "utf8") {
			return &pgwire.Error{Code: stateFeature, Message: fmt.Sprintf("COPY ENCODING %q is not supported: relchain stores UTF-8", v)}
		}
	case "force_not_null":
		o.forceNotNull, _ = columns()
	case "force_null":
		o.forceNull, _ = columns()
	case "force_quote":
		o.forceQuote, o.forceAll = columns()
	default:
		return copySyntax("COPY option %q not recognized", name)
	}
	return err
}

// check completes the defaults and refuses combinations PostgreSQL refuses.
func (o *copyOptions) check() error {
	csv := o.format == "csv"
	if o.format == "binary" {
		for _, n := range []string{"delimiter", "null", "header", "quote", "escape"} {
			if o.set[n] {
				return copySyntax("cannot specify %s in BINARY mode", strings.ToUpper(n))
			}
		}
	}
	if !o.set["delimiter"] {
		o.delim = '\t'
		if csv {
			o.delim = ','
		}
	}
	if !o.set["null"] {
		o.null = `\N`
		if csv {
			o.null = ""
		}
	}
	if !csv && (o.set["quote"] || o.set["escape"] || o.forceNotNull != nil || o.forceNull != nil || o.forceQuote != nil || o.forceAll) {
		return &pgwire.Error{Code: stateFeature, Message: "COPY QUOTE, ESCAPE and FORCE options are available only in CSV mode"}
	}
	if !o.set["quote"] {
		o.quote = '"'
	}
	if !o.set["escape"] {
		o.escape = o.quote
	}
	if o.delim == '\n' || o.delim == '\r' {
		return copySyntax("COPY delimiter cannot be newline or carriage return")
	}
	if strings.ContainsAny(o.null, "\r\n") {
		return copySyntax("COPY null representation cannot use newline or carriage return")
	}
	if o.format == "text" && (o.delim == '\\' || strings.IndexByte("abcdefghijklmnopqrstuvwxyz0123456789.", o.delim) >= 0) {
		return copySyntax("COPY delimiter cannot be %q", string(o.delim))
	}
	if csv && o.delim == o.quote {
		return copySyntax("COPY delimiter and quote must be different")
	}
	if csv && strings.IndexByte(o.null, o.delim) >= 0 {
		return copySyntax("COPY delimiter must not appear in the NULL specification")
	}
	return nil
}
