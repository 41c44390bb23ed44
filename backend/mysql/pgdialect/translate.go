package pgdialect

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// translator holds one statement's translation state.
type translator struct {
	cat    Catalog
	params []Type // by placeholder number - 1; Name "" while unknown
	out    *Translation
	scope  *scope // the FROM items in scope, innermost query last
	// aggDepth > 0 inside an aggregate's arguments; grouped holds the
	// GROUP BY column references of the query being translated (nil when
	// it has none), checked outside aggregates.
	aggDepth int
	grouped  map[string]bool
	sawAgg   bool
	// reads collects the column names a WHERE reads (UPDATE ...
	// RETURNING), when non-nil.
	reads map[string]bool
	// insertTypes: the target columns' types of the INSERT ... SELECT
	// whose select list is next translated.
	insertTypes []Type
	lastScale   int // the display scale of the last SELECT's first column
	// refScopes are the scopes of enclosing queries column references
	// reached (paged's check).
	refScopes []*scope
	oneRow    bool  // the statement SELECT has no FROM (topSelect)
	noFold    int   // > 0 in a CASE arm PostgreSQL drops unfolded (fold.go)
	deferred  error // the first planning error of constant folding
	fails     int   // run-time computations that can fail, so far (canFail)
	// maxText bounds one expression's translated text (exprAny): a
	// function of the statement's length alone.
	maxText int
	// stored: the expressions being translated are ones MariaDB keeps as
	// text and reads again (CREATE TABLE's DEFAULT and CHECK), whose
	// literals are written for that (textLiteral).
	stored bool
}

// textGrowth is how many times the statement's length (plus 64 KiB) one
// expression's translation may take: literals and collations grow a text
// by a constant factor; only an operand written twice per level of a
// nesting grows it further, exponentially.
const textGrowth = 32

// canFail records that the expression being translated computes
// something that can fail at run time: the expressions around it are
// mayFail.
func (t *translator) canFail() { t.fails++ }

// refuse is the refusal of a construct the dialect does not support.
func refuse(construct string, args ...any) error {
	return &Error{Code: "0A000", Message: "the postgres dialect on MariaDB does not support " + fmt.Sprintf(construct, args...)}
}

// pgError is an error PostgreSQL itself would report, with its SQLSTATE.
func pgError(code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Translate turns one PostgreSQL statement, already accepted and rewritten
// by PostgreSQL's gate, into MariaDB statements with PostgreSQL's result.
func Translate(sql string, cat Catalog) (*Translation, error) {
	return TranslateTyped(sql, cat, nil)
}

// TranslateTyped is Translate with the types the client gave its
// parameters, as PostgreSQL's Parse message does: params[i] types $i+1
// (a zero Type or "unknown" leaves it to the context).
func TranslateTyped(sql string, cat Catalog, params []Type) (tr *Translation, err error) {
	defer func() {
		// A panic in the walk is a refusal (fail closed), with a fixed
		// message so the verdict is the same on every node.
		if recover() != nil {
			tr, err = nil, &Error{Code: "0A000", Message: "the postgres dialect's translation on MariaDB failed on this statement text; it is refused"}
		}
	}()
	stmt, err := parse(sql)
	if err != nil {
		return nil, err
	}
	t := &translator{cat: cat, out: &Translation{}, maxText: 64<<10 + textGrowth*len(sql)}
	for i, p := range params {
		if p.Name == "" || p.Name == "unknown" {
			continue
		}
		if err := t.param(int32(i+1), p); err != nil {
			return nil, err
		}
	}
	if err := t.statement(stmt); err != nil {
		return nil, err
	}
	for i, p := range t.params {
		if p.Name == "" {
			return nil, pgError("42P18", "could not determine data type of parameter $%d", i+1)
		}
	}
	if t.deferred != nil {
		return nil, t.deferred
	}
	t.out.Params = append([]Type(nil), t.params...)
	if err := t.bindPlaceholders(); err != nil {
		return nil, err
	}
	for _, st := range t.out.Statements {
		if name, ok := beyondBMPName(st); ok {
			return nil, refuse("names with characters beyond Unicode's first plane (%q): MariaDB's names are utf8mb3", name)
		}
	}
	return t.out, nil
}

// beyondBMPName finds, in a translated statement, a name (outside string
// literals) holding a character beyond U+FFFF, which MariaDB's names
// (utf8mb3) cannot hold: CREATE TABLE "t😀" failed on MariaDB only, and
// so would any alias or reference. Text values may hold any character.
func beyondBMPName(sql string) (string, bool) {
	inString, nameStart := false, -1
	for i := 0; i < len(sql); {
		r, n := utf8.DecodeRuneInString(sql[i:])
		switch {
		case inString && r == '\\':
			n++ // an escaped character (quoteString escapes backslashes)
		case r == '\'' && nameStart < 0:
			inString = !inString // '' inside a string toggles twice
		case r == '`' && !inString:
			if nameStart < 0 {
				nameStart = i + 1
			} else {
				nameStart = -1 // `` inside a name toggles twice
			}
		case r > 0xFFFF && !inString:
			end := strings.IndexByte(sql[i:], '`')
			if nameStart < 0 || end < 0 {
				return sql[i : i+n], true
			}
			return sql[nameStart : i+end], true
		}
		i += n
	}
	return "", false
}

// parse parses a text that must hold exactly one statement; the text
// passes sqlcheck/prescan first (no cgo parser sees an unbounded text).
func parse(sql string) (*pg_query.Node, error) {
	if err := prescan.Check(sql, prescan.PostgreSQL); err != nil {
		return nil, pgError("54001", "%v", err)
	}
	tree, err := pgparse.Parse(sql)
	if err != nil {
		return nil, pgError("42601", "%v", err)
	}
	if n := len(tree.GetStmts()); n != 1 {
		return nil, pgError("42601", "the text holds %d statements; the postgres dialect translates one at a time", n)
	}
	return tree.GetStmts()[0].GetStmt(), nil
}

// statement dispatches on the statement kind (fail closed).
func (t *translator) statement(n *pg_query.Node) error {
	switch s := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		return t.topSelect(s.SelectStmt)
	case *pg_query.Node_InsertStmt:
		return t.insert(s.InsertStmt)
	case *pg_query.Node_UpdateStmt:
		return t.update(s.UpdateStmt)
	case *pg_query.Node_DeleteStmt:
		return t.delete(s.DeleteStmt)
	case *pg_query.Node_CreateStmt:
		return t.createTable(s.CreateStmt)
	case *pg_query.Node_DropStmt:
		return t.drop(s.DropStmt)
	case *pg_query.Node_IndexStmt:
		return t.createIndex(s.IndexStmt)
	}
	return refuse("the statement %s", nodeName(n))
}

// nodeName names a parse node for a refusal ("CreateSeqStmt").
func nodeName(n *pg_query.Node) string {
	if n == nil || n.GetNode() == nil {
		return "(empty)"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", n.GetNode()), "*pg_query.Node_")
}

// quoteIdent quotes an identifier for MariaDB (ANSI_QUOTES is off).
func quoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// quoteString is a MariaDB string literal (backslash is an escape
// character there, unlike in PostgreSQL's standard strings).
func quoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// textCollation is the collation of every text value: binary (code point
// order, which is UTF-8 byte order, as PostgreSQL's C collation) and NO
// PAD (trailing spaces count, as in PostgreSQL's text and varchar).
const textCollation = "utf8mb4_nopad_bin"

// textLiteral is a string literal of type text, with text's collation.
// In a statement it is _utf8mb4'…', utf8mb4 whatever the connection's
// character set. In an expression MariaDB stores (stored: a DEFAULT, a
// CHECK) it has no introducer: MariaDB keeps such an expression as the
// text it prints and reads that text again when it opens the table, and
// it prints an introduced literal's value unescaped (a quote ends it, a
// backslash escapes what follows, a non-ASCII byte becomes \xNN: checked
// on 10.11: a default it's failed, é was stored as xC3xA9), a bare one escaped.
// The bare literal takes the connection's character set, which relchain
// sets to utf8mb4 (under another, COLLATE fails the statement).
func textLiteral(s string, stored bool) string {
	if stored {
		return quoteString(s) + " COLLATE " + textCollation
	}
	return "_utf8mb4" + quoteString(s) + " COLLATE " + textCollation
}

// param records the type of placeholder n (1-based) learned from its
// context; the first context decides.
func (t *translator) param(n int32, typ Type) error {
	if n < 1 || n > 65535 {
		return pgError("42P02", "there is no parameter $%d", n)
	}
	for len(t.params) < int(n) {
		t.params = append(t.params, Type{})
	}
	if t.params[n-1].Name == "" && typ.Name != "unknown" {
		switch typ.Name {
		case "int2", "int4", "int8", "text", "varchar", "bool", "bytea":
		default:
			return refuse("parameters of type %s", typ.Name)
		}
		t.params[n-1] = typ
	}
	return nil
}

// marker stands for placeholder n in the text being built; the final text
// replaces each by '?' in text order (bindPlaceholders), so a text that
// repeats an operand (an overflow check) binds it again.
func marker(n int32) string { return "\x00" + strconv.Itoa(int(n)) + "\x00" }

// bindPlaceholders turns the markers of every statement into '?' and
// records their parameter indexes.
func (t *translator) bindPlaceholders() error {
	t.out.Args = make([][]int, len(t.out.Statements))
	for i, s := range t.out.Statements {
		var b strings.Builder
		for {
			j := strings.IndexByte(s, 0)
			if j < 0 {
				break
			}
			k := strings.IndexByte(s[j+1:], 0)
			if k < 0 {
				return refuse("this statement text (an unterminated placeholder marker)")
			}
			n, err := strconv.Atoi(s[j+1 : j+1+k])
			if err != nil {
				return refuse("this statement text (a placeholder marker)")
			}
			b.WriteString(s[:j])
			b.WriteByte('?')
			t.out.Args[i] = append(t.out.Args[i], n-1)
			s = s[j+1+k+1:]
		}
		b.WriteString(s)
		t.out.Statements[i] = b.String()
	}
	return nil
}

// strNode is the string of a String node ("" otherwise).
func strNode(n *pg_query.Node) string {
	return n.GetString_().GetSval()
}
