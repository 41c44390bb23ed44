package mysql

import (
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/pgcatalog"
)

// chkPrinter prints a chkNode as PostgreSQL's SQL, over the columns of
// one table.
type chkPrinter struct {
	cols map[string]pgdialect.Type
}

// isIntType reports whether typ (a chkPrinter type) is an integer's.
func isIntType(typ string) bool {
	return typ == "int" || typ == "int2" || typ == "int4" || typ == "int8"
}

// typeOf is the PostgreSQL type of n as far as printing needs it: a
// column's, a literal's ("int" for an integer, "unknown" for a string or
// NULL), "bool" for a predicate, an operation's from its operands.
func (c *chkPrinter) typeOf(n *chkNode) string {
	n = unwrapOverflow(n)
	switch n.op {
	case "col":
		return c.cols[n.text].Name
	case "num":
		if strings.ContainsAny(n.text, ".eE") {
			return "numeric"
		}
		return "int"
	case "str", "null":
		return "unknown"
	case "bytes":
		return "bytea"
	case "date":
		return "date"
	case "ts":
		return "timestamp"
	case "+", "-", "*", "div", "mod", "neg":
		return c.operandType(n.args, "int")
	case "call":
		switch n.text {
		case "char_length":
			return "int4"
		case "concat":
			return "text"
		}
		return c.operandType(n.args, "unknown")
	}
	return "bool"
}

// operandType is the first type of args that is not an untyped literal's,
// or dflt.
func (c *chkPrinter) operandType(args []*chkNode, dflt string) string {
	for _, a := range args {
		if t := c.typeOf(a); t != "unknown" && t != "int" {
			return t
		}
	}
	return dflt
}

// pgOps are the binary operators printed as they are (mod as %).
var pgOps = map[string]string{"and": "AND", "or": "OR", "=": "=", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
	"like": "LIKE", "notlike": "NOT LIKE", "+": "+", "-": "-", "*": "*", "mod": "%"}

// print is n as PostgreSQL's SQL; want is the type of the operand it is
// compared or combined with ("bool" where a condition is wanted), which
// decides how 0 and 1 (bool) and a TIMESTAMP literal (timestamptz, in
// UTC) are written.
func (c *chkPrinter) print(n *chkNode, want string) (string, error) {
	n = unwrapOverflow(n)
	switch n.op {
	case "col":
		if _, ok := c.cols[n.text]; !ok {
			return "", fmt.Errorf("%w: the column %s", errCheckText, n.text)
		}
		return pgcatalog.QuoteIdent(n.text), nil
	case "num", "str", "bytes", "date", "ts", "null":
		return c.printLiteral(n, want)
	case "not", "neg":
		x, err := c.print(n.args[0], map[bool]string{true: "bool", false: ""}[n.op == "not"])
		return "(" + map[bool]string{true: "NOT ", false: "- "}[n.op == "not"] + x + ")", err
	case "isnull", "isnotnull", "istrue", "isfalse", "isnottrue", "isnotfalse":
		x, err := c.print(n.args[0], "")
		is := strings.ToUpper(strings.Replace(strings.TrimPrefix(n.op, "is"), "not", "not ", 1))
		return "(" + x + " IS " + is + ")", err
	case "in", "notin", "between", "notbetween":
		return c.printList(n)
	case "call":
		return c.printCall(n)
	case "div":
		if !isIntType(c.typeOf(n.args[0])) || !isIntType(c.typeOf(n.args[1])) {
			return "", fmt.Errorf("%w: DIV of other than integers", errCheckText)
		}
		return c.printBinary(n, "/")
	}
	if op, ok := pgOps[n.op]; ok {
		return c.printBinary(n, op)
	}
	return "", fmt.Errorf("%w: %s", errCheckText, n.op)
}

// printBinary is (l op r), each operand printed for the other's type.
func (c *chkPrinter) printBinary(n *chkNode, op string) (string, error) {
	lt, rt := c.typeOf(n.args[0]), c.typeOf(n.args[1])
	if op == "AND" || op == "OR" {
		lt, rt = "bool", "bool"
	}
	l, err := c.print(n.args[0], rt)
	if err != nil {
		return "", err
	}
	r, err := c.print(n.args[1], lt)
	return "(" + l + " " + op + " " + r + ")", err
}

// printLiteral is a literal (see print for want).
func (c *chkPrinter) printLiteral(n *chkNode, want string) (string, error) {
	switch n.op {
	case "num":
		if want == "bool" && (n.text == "0" || n.text == "1") {
			return map[string]string{"0": "false", "1": "true"}[n.text], nil
		}
		if !numberLit.MatchString(n.text) {
			return "", fmt.Errorf("%w: the number %s", errCheckText, n.text)
		}
		return n.text, nil
	case "str":
		return pgQuoteLiteral(n.text), nil
	case "bytes":
		return `'\x` + n.text + "'", nil
	case "date":
		return pgQuoteLiteral(n.text), nil
	case "ts":
		if want == "timestamptz" {
			return pgQuoteLiteral(n.text + "+00"), nil
		}
		return pgQuoteLiteral(n.text), nil
	}
	return "NULL", nil
}

// printList is [NOT] IN and [NOT] BETWEEN.
func (c *chkPrinter) printList(n *chkNode) (string, error) {
	typ := c.typeOf(n.args[0])
	items := make([]string, len(n.args))
	for i, a := range n.args {
		want := typ
		if i == 0 {
			want = c.operandType(n.args[1:], "")
		}
		s, err := c.print(a, want)
		if err != nil {
			return "", err
		}
		items[i] = s
	}
	not := map[bool]string{true: "NOT ", false: ""}[strings.HasPrefix(n.op, "not")]
	if strings.HasSuffix(n.op, "between") {
		return "(" + items[0] + " " + not + "BETWEEN " + items[1] + " AND " + items[2] + ")", nil
	}
	return "(" + items[0] + " " + not + "IN (" + strings.Join(items[1:], ", ") + "))", nil
}

// printCall is a function the translation writes for one of
// PostgreSQL's: CHAR_LENGTH (length), ABS, COALESCE, CONCAT (||).
func (c *chkPrinter) printCall(n *chkNode) (string, error) {
	want := c.operandType(n.args, "")
	args := make([]string, len(n.args))
	for i, a := range n.args {
		s, err := c.print(a, want)
		if err != nil {
			return "", err
		}
		args[i] = s
	}
	switch {
	case n.text == "char_length" && len(args) == 1:
		return "length(" + args[0] + ")", nil
	case n.text == "abs" && len(args) == 1, n.text == "coalesce" && len(args) > 0:
		return n.text + "(" + strings.Join(args, ", ") + ")", nil
	case n.text == "concat" && len(args) > 1:
		return "(" + strings.Join(args, " || ") + ")", nil
	}
	return "", fmt.Errorf("%w: the function %s with %d arguments", errCheckText, n.text, len(args))
}

// checkColumn is the one column n reads, "" if it reads none or several
// (PostgreSQL's name of a CHECK constraint names that column).
func checkColumn(n *chkNode) string {
	cols := map[string]bool{}
	var walk func(*chkNode)
	walk = func(n *chkNode) {
		if n.op == "col" {
			cols[n.text] = true
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(n)
	if len(cols) != 1 {
		return ""
	}
	for c := range cols {
		return c
	}
	return ""
}

// pgChecks writes t's CHECK constraints (MariaDB's text in t.stored) as
// PostgreSQL's SQL with PostgreSQL's default names, and verifies them
// (verifyChecks).
func pgChecks(t *pgDumpTable) error {
	p := &chkPrinter{cols: map[string]pgdialect.Type{}}
	for i, c := range t.Columns {
		p.cols[c.Name] = t.types[i]
	}
	trees := make([]*chkNode, len(t.stored))
	for i, s := range t.stored {
		n, err := parseChk(s)
		var pg string
		if err == nil {
			pg, err = p.print(n, "bool")
		}
		if err != nil {
			return fmt.Errorf("CHECK (%s): %w", s, err)
		}
		if !strings.HasPrefix(pg, "(") || !strings.HasSuffix(pg, ")") {
			pg = "(" + pg + ")"
		}
		trees[i] = n
		t.Checks[i] = pgcatalog.Check{Name: t.chooseName(checkColumn(n), "check"), Expr: pg}
	}
	return verifyChecks(t, trees)
}

// verifyChecks translates t's columns, primary key and CHECK constraints
// as PostgreSQL's SQL for MariaDB again and fails unless each CHECK's
// translation parses to the tree of MariaDB's text (want).
func verifyChecks(t *pgDumpTable, want []*chkNode) error {
	if len(want) == 0 {
		return nil
	}
	var els []string
	for _, c := range t.Columns {
		typ, _ := pgcatalog.FormatType(c.Type, c.Typmod)
		els = append(els, pgcatalog.QuoteIdent(c.Name)+" "+typ)
	}
	if len(t.PrimaryKey) > 0 {
		els = append(els, pgcatalog.PrimaryKeyDef(t.PrimaryKey))
	}
	for _, k := range t.Checks {
		els = append(els, "CHECK "+k.Expr)
	}
	tr, err := pgdialect.Translate("CREATE TABLE "+pgcatalog.QuoteIdent(t.Name)+" ("+strings.Join(els, ", ")+")", pgdialect.NewSchema())
	if err != nil {
		return fmt.Errorf("its CHECK constraints written as PostgreSQL's SQL do not translate: %w", err)
	}
	got, err := translatedChecks(tr.Statements[0])
	if err != nil {
		return fmt.Errorf("read the translation of its CHECK constraints: %w", err)
	}
	if len(got) != len(want) {
		return fmt.Errorf("%d CHECK constraints translate to %d", len(want), len(got))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Errorf("CHECK (%s): %w: written as %s, it translates to another constraint", t.stored[i], errCheckText, t.Checks[i].Expr)
		}
	}
	return nil
}

// translatedChecks are the CHECK expressions of a translated CREATE
// TABLE, parsed.
func translatedChecks(stmt string) ([]*chkNode, error) {
	toks, err := chkTokens(stmt)
	if err != nil {
		return nil, err
	}
	var out []*chkNode
	depth := 0
	for i := 0; i < len(toks); i++ {
		switch t := toks[i]; {
		case t.kind == 'o' && t.text == "(":
			depth++
		case t.kind == 'o' && t.text == ")":
			depth--
		case t.kind == 'w' && t.text == "check" && depth == 1:
			p := &chkParser{toks: toks, i: i + 1}
			n, err := p.primary()
			if err != nil {
				return nil, err
			}
			out = append(out, n)
			i = p.i - 1
		}
	}
	return out, nil
}

// pgDumpDefault is MariaDB's default d of a column of PostgreSQL type t
// (COLUMN_DEFAULT: a number, a quoted literal, X'…', or the expression
// the dialect writes for a text, in parentheses) as PostgreSQL's
// constant, "" for none.
func pgDumpDefault(d sql.NullString, t pgdialect.Type) (string, error) {
	if !d.Valid || d.String == "NULL" {
		return "", nil
	}
	n, err := parseChk(d.String)
	if err != nil {
		return "", err
	}
	switch {
	case n.op == "num" && (t.Name == "int2" || t.Name == "int4" || t.Name == "int8"):
		if _, err := strconv.ParseInt(n.text, 10, 64); err == nil {
			return n.text, nil
		}
	case n.op == "num" && (t.Name == "numeric" || t.Name == "float8") && numberLit.MatchString(n.text):
		return n.text, nil
	case n.op == "num" && t.Name == "bool" && (n.text == "0" || n.text == "1"):
		return map[string]string{"0": "false", "1": "true"}[n.text], nil
	case n.op == "str" && (t.Name == "text" || t.Name == "varchar"):
		return pgQuoteLiteral(n.text), nil
	case n.op == "bytes" && t.Name == "bytea":
		return `'\x` + n.text + "'", nil
	case (n.op == "str" && n.flavor == "" || n.op == "date" || n.op == "ts") && (t.Name == "date" || t.Name == "timestamp" || t.Name == "timestamptz"):
		v, err := pgValue(t, []byte(n.text))
		if s, ok := v.(string); ok && err == nil {
			return pgQuoteLiteral(s), nil
		}
	}
	return "", fmt.Errorf("%w: a default of type %s", errCheckText, t.Name)
}
