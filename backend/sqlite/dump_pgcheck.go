package sqlite

import (
	"errors"
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// A postgres-dialect table keeps a CHECK's SQLite translation only (the
// dialect does not keep the PostgreSQL text). The dump writes it back as
// PostgreSQL's SQL (pgCheck): the SQLite text is parsed (checkExpr) and
// printed with the runtime functions the translation calls (pg_int_add,
// pg_num_op, pg_like …) as the operators and functions they stand for
// and the stored constants (numeric keys, bool 0/1) as PostgreSQL's
// literals. The result is then translated again (verifyCheck): only a
// text whose translation is the stored text byte for byte is written, so
// the constraint PostgreSQL gets is the one the network enforces; any
// other is the dump's error, never a different constraint.

// errCheckText is a CHECK text the reverse translation does not read.
var errCheckText = errors.New("a construct the dump cannot write back as PostgreSQL's SQL")

// checkNode is one node of a CHECK's SQLite expression.
type checkNode struct {
	kind byte // 'c' column, 's' string, 'n' number, 'k' keyword literal (NULL), 'b' binary, 'u' unary prefix, 'p' postfix, 'f' call, 'i' IN list, 'x' CAST, 'r' COLLATE RTRIM
	text string
	args []*checkNode
}

// checkParser reads SQLite's expression text as the dialect writes it.
type checkParser struct {
	toks []string
	i    int
}

// checkTokens splits SQLite expression text into tokens: quoted names and
// strings whole, words, numbers, and operators (two-character ones
// together).
func checkTokens(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '"' || c == '\'':
			j = quoteEnd(s, i)
			if j > len(s) || s[j-1] != c || j == i+1 {
				return nil, fmt.Errorf("%w: an unterminated quote", errCheckText)
			}
		case (c == 'X' || c == 'x') && i+1 < len(s) && s[i+1] == '\'':
			j = quoteEnd(s, i+1)
		case isWordByte(c) || c >= 0x80:
			for j < len(s) && (isWordByte(s[j]) || s[j] >= 0x80 || s[j] == '.' && c >= '0' && c <= '9') {
				j++
			}
		case strings.Contains("<>!=|", string(c)) && i+1 < len(s) && strings.Contains("=>|", string(s[i+1])):
			j = i + 2
		}
		out = append(out, s[i:j])
		i = j
	}
	return out, nil
}

// parseCheck parses a CHECK's SQLite expression.
func parseCheck(s string) (*checkNode, error) {
	toks, err := checkTokens(s)
	if err != nil {
		return nil, err
	}
	p := &checkParser{toks: toks}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.i != len(p.toks) {
		return nil, fmt.Errorf("%w: %q", errCheckText, p.toks[p.i])
	}
	return n, nil
}

func (p *checkParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *checkParser) next() string { t := p.peek(); p.i++; return t }

func (p *checkParser) accept(words ...string) bool {
	for k, w := range words {
		if p.i+k >= len(p.toks) || !strings.EqualFold(p.toks[p.i+k], w) {
			return false
		}
	}
	p.i += len(words)
	return true
}

func (p *checkParser) want(w string) error {
	if !p.accept(w) {
		return fmt.Errorf("%w: %q where %q belongs", errCheckText, p.peek(), w)
	}
	return nil
}

// binaryLevels are SQLite's binary operators by precedence, lowest
// first.
var binaryLevels = [][]string{{"OR"}, {"AND"}, {"=", "==", "<>", "!="}, {"<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}, {"||"}}

// expr parses operators of precedence level and above.
func (p *checkParser) expr(level int) (*checkNode, error) {
	if level == len(binaryLevels) {
		return p.unary()
	}
	if level == 2 && p.accept("NOT") { // NOT binds looser than comparisons
		x, err := p.expr(2)
		return &checkNode{kind: 'u', text: "NOT", args: []*checkNode{x}}, err
	}
	l, err := p.expr(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		if level == 2 {
			if l, err = p.predicate(l); err != nil {
				return nil, err
			}
		}
		op := ""
		for _, o := range binaryLevels[level] {
			if strings.EqualFold(p.peek(), o) {
				op = strings.ToUpper(o)
			}
		}
		if op == "" {
			return l, nil
		}
		p.i++
		r, err := p.expr(level + 1)
		if err != nil {
			return nil, err
		}
		l = &checkNode{kind: 'b', text: op, args: []*checkNode{l, r}}
	}
}

// predicate parses IS [NOT] NULL and [NOT] IN (…) after l.
func (p *checkParser) predicate(l *checkNode) (*checkNode, error) {
	switch {
	case p.accept("IS", "NOT", "NULL"):
		return &checkNode{kind: 'p', text: "IS NOT NULL", args: []*checkNode{l}}, nil
	case p.accept("IS", "NULL"):
		return &checkNode{kind: 'p', text: "IS NULL", args: []*checkNode{l}}, nil
	case p.accept("NOT", "IN"), p.accept("IN"):
		not := strings.EqualFold(p.toks[p.i-2], "NOT")
		if err := p.want("("); err != nil {
			return nil, err
		}
		list, err := p.list()
		if err != nil {
			return nil, err
		}
		op := "IN"
		if not {
			op = "NOT IN"
		}
		return &checkNode{kind: 'i', text: op, args: append([]*checkNode{l}, list...)}, nil
	}
	return l, nil
}

// list parses expressions separated by commas up to ")".
func (p *checkParser) list() ([]*checkNode, error) {
	var out []*checkNode
	if p.accept(")") {
		return nil, nil
	}
	for {
		x, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		if p.accept(")") {
			return out, nil
		}
		if err := p.want(","); err != nil {
			return nil, err
		}
	}
}

// unary parses a prefix minus, a primary and its COLLATE RTRIM.
func (p *checkParser) unary() (*checkNode, error) {
	if p.accept("-") {
		x, err := p.unary()
		return &checkNode{kind: 'u', text: "-", args: []*checkNode{x}}, err
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.accept("COLLATE", "RTRIM") {
		x = &checkNode{kind: 'r', args: []*checkNode{x}}
	}
	return x, nil
}

// primary parses a literal, a column, a call, a CAST or a parenthesized
// expression.
func (p *checkParser) primary() (*checkNode, error) {
	t := p.next()
	switch {
	case t == "":
		return nil, fmt.Errorf("%w: the text ends early", errCheckText)
	case t == "(":
		x, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		return x, p.want(")")
	case t[0] == '"':
		return &checkNode{kind: 'c', text: strings.ReplaceAll(t[1:len(t)-1], `""`, `"`)}, nil
	case t[0] == '\'':
		return &checkNode{kind: 's', text: unquoteString(t)}, nil
	case t[0] >= '0' && t[0] <= '9':
		return &checkNode{kind: 'n', text: t}, nil
	case strings.EqualFold(t, "NULL"):
		return &checkNode{kind: 'k', text: "NULL"}, nil
	case strings.EqualFold(t, "CAST"):
		return p.cast()
	case isWordByte(t[0]) && p.accept("("):
		args, err := p.list()
		return &checkNode{kind: 'f', text: strings.ToLower(t), args: args}, err
	}
	return nil, fmt.Errorf("%w: %q", errCheckText, t)
}

// cast parses CAST(x AS type) after CAST.
func (p *checkParser) cast() (*checkNode, error) {
	if err := p.want("("); err != nil {
		return nil, err
	}
	x, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if err := p.want("AS"); err != nil {
		return nil, err
	}
	typ := strings.ToUpper(p.next())
	return &checkNode{kind: 'x', text: typ, args: []*checkNode{x}}, p.want(")")
}

// checkPrinter prints a parsed CHECK as PostgreSQL's SQL; cols are the
// table's columns by name.
type checkPrinter struct {
	cols map[string]pgdialect.Type
}

// pgTypeOf is the PostgreSQL type name of n as far as printing needs it
// ("numeric", "bool", "" unknown).
func (c *checkPrinter) pgTypeOf(n *checkNode) string {
	switch n.kind {
	case 'c':
		return c.cols[n.text].Name
	case 'r':
		return c.pgTypeOf(n.args[0])
	case 'f':
		if n.text == "pg_num_op" {
			return "numeric"
		}
		if n.text == "pg_cast" && len(n.args) == 4 && n.args[2].kind == 's' {
			return n.args[2].text
		}
	}
	return ""
}

// print is n as PostgreSQL's SQL; want is the type the context gives a
// constant ("numeric": a stored numeric key; "bool": 0/1).
func (c *checkPrinter) print(n *checkNode, want string) (string, error) {
	switch n.kind {
	case 'c':
		return quoteIdent(n.text), nil
	case 'k':
		return n.text, nil
	case 'n':
		if want == "bool" && (n.text == "0" || n.text == "1") {
			return map[string]string{"0": "false", "1": "true"}[n.text], nil
		}
		return n.text, nil
	case 's':
		return c.printString(n.text, want)
	case 'r':
		return c.print(n.args[0], want)
	case 'u':
		x, err := c.print(n.args[0], want)
		if n.text == "-" {
			return "(-" + x + ")", err
		}
		return "(NOT " + x + ")", err
	case 'p':
		x, err := c.print(n.args[0], "")
		return "(" + x + " " + n.text + ")", err
	case 'b':
		return c.printBinary(n)
	case 'i':
		return c.printIn(n)
	case 'x':
		if n.text == "REAL" && n.args[0].kind == 'n' {
			return n.args[0].text, nil // an integer constant beside a float
		}
	case 'f':
		return c.printCall(n)
	}
	return "", fmt.Errorf("%w: %s", errCheckText, n.text)
}

// printString is a string constant in a context of type want.
func (c *checkPrinter) printString(s, want string) (string, error) {
	if want == "numeric" {
		v, err := pgruntime.Value(pgdialect.Type{Name: "numeric", Typmod: -1}, s)
		if err != nil {
			return "", fmt.Errorf("%w: a numeric constant: %w", errCheckText, err)
		}
		if t := v.(string); strings.HasPrefix(t, "-") {
			return "(" + t + ")", nil
		}
		return v.(string), nil
	}
	return quoteLiteral(s), nil
}

// printBinary prints a binary operator, the operands' constants typed by
// the other operand.
func (c *checkPrinter) printBinary(n *checkNode) (string, error) {
	lt, rt := c.pgTypeOf(n.args[0]), c.pgTypeOf(n.args[1])
	if n.text == "AND" || n.text == "OR" {
		lt, rt = "bool", "bool"
	}
	l, err := c.print(n.args[0], rt)
	if err != nil {
		return "", err
	}
	r, err := c.print(n.args[1], lt)
	if err != nil {
		return "", err
	}
	op := map[string]string{"==": "=", "!=": "<>"}[n.text]
	if op == "" {
		op = n.text
	}
	return "(" + l + " " + op + " " + r + ")", nil
}

// printIn prints x [NOT] IN (list).
func (c *checkPrinter) printIn(n *checkNode) (string, error) {
	want := c.pgTypeOf(n.args[0])
	x, err := c.print(n.args[0], "")
	if err != nil {
		return "", err
	}
	items := make([]string, len(n.args)-1)
	for i, a := range n.args[1:] {
		if items[i], err = c.print(a, want); err != nil {
			return "", err
		}
	}
	return "(" + x + " " + n.text + " (" + strings.Join(items, ", ") + "))", nil
}

// intOps are the runtime's checked integer operators.
var intOps = map[string]string{"pg_int_add": "+", "pg_int_sub": "-", "pg_int_mul": "*", "pg_int_div": "/", "pg_int_mod": "%"}

// plainFuncs are SQLite functions the dialect calls by PostgreSQL's name
// or whose PostgreSQL name is known.
var plainFuncs = map[string]string{"length": "length", "coalesce": "coalesce", "trim": "btrim", "ltrim": "ltrim",
	"rtrim": "rtrim", "pg_lower": "lower", "pg_upper": "upper", "nullif": "nullif"}

// printCall prints a call of a runtime or SQLite function.
func (c *checkPrinter) printCall(n *checkNode) (string, error) {
	args := func(from, to int, want string) ([]string, error) {
		var out []string
		for _, a := range n.args[from:to] {
			s, err := c.print(a, want)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	switch {
	case intOps[n.text] != "" && len(n.args) == 3:
		a, err := args(0, 2, "")
		if err != nil {
			return "", err
		}
		return "(" + a[0] + " " + intOps[n.text] + " " + a[1] + ")", nil
	case n.text == "pg_int_abs" && len(n.args) == 2:
		a, err := args(0, 1, "")
		return "abs(" + strings.Join(a, "") + ")", err
	case n.text == "pg_num_op" && len(n.args) == 3 && n.args[0].kind == 's':
		a, err := args(1, 3, "numeric")
		if err != nil {
			return "", err
		}
		return "(" + a[0] + " " + n.args[0].text + " " + a[1] + ")", nil
	case n.text == "pg_like" && len(n.args) == 3 && n.args[2].kind == 'n':
		a, err := args(0, 2, "")
		if err != nil {
			return "", err
		}
		op := map[string]string{"0": "LIKE", "1": "ILIKE"}[n.args[2].text]
		if op == "" {
			break
		}
		return "(" + a[0] + " " + op + " " + a[1] + ")", nil
	case n.text == "pg_cast" && len(n.args) == 4 && n.args[2].kind == 's' && isMinusOne(n.args[3]):
		a, err := args(0, 1, "")
		return "(" + strings.Join(a, "") + ")::" + n.args[2].text, err
	case n.text == "pg_array_fn" && len(n.args) == 3 && n.args[0].kind == 's':
		a, err := args(1, 3, "")
		if err != nil {
			return "", err
		}
		if n.args[0].text == "cardinality" && n.args[2].kind == 'n' && n.args[2].text == "1" {
			return "cardinality(" + a[0] + ")", nil
		}
		return n.args[0].text + "(" + strings.Join(a, ", ") + ")", nil
	case n.text == "pg_substr" && len(n.args) == 4 && n.args[3].kind == 'n':
		if n.args[3].text == "0" && n.args[2].kind == 'k' {
			a, err := args(0, 2, "")
			return "substr(" + strings.Join(a, ", ") + ")", err
		}
		a, err := args(0, 3, "")
		return "substr(" + strings.Join(a, ", ") + ")", err
	case plainFuncs[n.text] != "":
		a, err := args(0, len(n.args), "")
		return plainFuncs[n.text] + "(" + strings.Join(a, ", ") + ")", err
	}
	return "", fmt.Errorf("%w: %s()", errCheckText, n.text)
}

// noTables is a translation catalog without tables: the probe of
// verifyTable names none but its own.
type noTables struct{}

func (noTables) Columns(string) ([]pgdialect.Column, bool) { return nil, false }

// verifyTable translates t as the dump writes it (its columns' types and
// defaults, checks its CHECK expressions) and compares the translation
// with sql, the CREATE TABLE SQLite keeps: the CHECK expressions and the
// columns' defaults must be the stored ones byte for byte, else what the
// dump writes is not the table the network has.
func verifyTable(t pgcatalog.Table, sql string, checks []string) error {
	var els []string
	for _, col := range t.Columns {
		typ, _ := pgcatalog.FormatType(col.Type, col.Typmod)
		el := pgIdent(col.Name) + " " + typ
		if col.Default != "" && !strings.HasPrefix(col.Default, "nextval(") {
			el += " DEFAULT " + col.Default
		}
		els = append(els, el)
	}
	for _, k := range checks {
		els = append(els, "CHECK "+k)
	}
	tr, err := pgdialect.Translate("CREATE TABLE "+pgIdent(t.Name)+" ("+strings.Join(els, ", ")+")", noTables{})
	if err != nil {
		return fmt.Errorf("the table as PostgreSQL's SQL does not translate back: %w", err)
	}
	probe := tr.Statements[0]
	var got []string
	for _, k := range parseConstraints(probe) {
		if k.kind == 'c' {
			got = append(got, stripParens(strings.TrimSpace(k.expr)))
		}
	}
	i := 0
	for _, k := range parseConstraints(sql) {
		if k.kind != 'c' {
			continue
		}
		// Parentheses around the whole expression change nothing (ALTER
		// TABLE's rebuild adds a pair).
		if i >= len(got) || got[i] != stripParens(strings.TrimSpace(k.expr)) {
			return fmt.Errorf("CHECK constraint %s: %w: %s", t.Checks[i].Name, errCheckText, k.expr)
		}
		i++
	}
	want, have := columnDefaults(sql), columnDefaults(probe)
	for _, col := range t.Columns {
		if want[col.Name] != have[col.Name] && !strings.EqualFold(want[col.Name], "NULL") {
			return fmt.Errorf("column %s: its default %s is not written as PostgreSQL's SQL exactly", col.Name, want[col.Name])
		}
	}
	return nil
}

// columnDefaults are the DEFAULT texts of the column definitions of a
// CREATE TABLE text the dialect wrote, by column ("" none).
func columnDefaults(sql string) map[string]string {
	out := map[string]string{}
	var body *ddlToken
	for _, t := range ddlTokens(sql) {
		if t.kind == tokGroup {
			body = &t
			break
		}
	}
	if body == nil {
		return out
	}
	for _, el := range splitTop(body.text[1 : len(body.text)-1]) {
		toks := ddlTokens(el)
		if len(toks) == 0 || toks[0].kind == tokWord && strings.Contains(" CONSTRAINT PRIMARY UNIQUE FOREIGN CHECK ", " "+strings.ToUpper(toks[0].text)+" ") {
			continue
		}
		for i := 1; i+1 < len(toks); i++ {
			if toks[i].kind == tokWord && strings.EqualFold(toks[i].text, "DEFAULT") {
				d := toks[i+1].text
				if d == "-" && i+2 < len(toks) {
					d += toks[i+2].text
				}
				out[toks[0].ident()] = stripParens(d)
				break
			}
		}
	}
	return out
}

// isMinusOne reports the constant -1 (a typmod of none).
func isMinusOne(n *checkNode) bool {
	return n.kind == 'u' && n.text == "-" && n.args[0].kind == 'n' && n.args[0].text == "1"
}
