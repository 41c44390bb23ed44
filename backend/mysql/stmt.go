package mysql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/relchain/relchain/backend"
	mycheck "github.com/relchain/relchain/backend/mysql/mysqlgate"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// stmtInfo is what the backend learns from one statement text without a
// server.
type stmtInfo struct {
	// text is the one statement to send: the input without a trailing
	// terminator and what follows it (comments, whitespace).
	text string
	// kind is the statement's first keyword, upper-cased.
	kind string
	// ddl: CREATE, ALTER, DROP, RENAME or TRUNCATE, which MySQL commits
	// implicitly (see block.execDDL).
	ddl bool
	// read: SELECT, WITH, VALUES, TABLE or a parenthesised query: the only
	// kinds Query runs.
	read bool
	// returning: INSERT, REPLACE or DELETE ... RETURNING (MariaDB), which
	// returns rows. ordered: a query with a top-level ORDER BY, whose row
	// order is its own; other rows are sorted (see runStmt).
	returning, ordered bool
	// returningAt is the offset in text of the top-level RETURNING.
	returningAt int
	// forbidden, if not empty, says why the statement may not run at all
	// (the backstop: session, transaction or server state relchain
	// manages). The gate refuses these first.
	forbidden string
	// gateRefused: the gate, not the backstop, refused the statement.
	gateRefused bool
	// analysis is the gate's (or, without it, the backstop's) account.
	analysis sqlcheck.Analysis
	// params counts the statement's ? placeholders (outside strings,
	// quoted names and comments, as the tokenizer reads them).
	params int
}

var (
	errEmpty   = &backend.Error{Class: backend.ClassInvalid, SQLState: "42000", Message: "empty statement: the text holds no SQL statement"}
	errSeveral = &backend.Error{Class: backend.ClassInvalid, SQLState: "42000", Message: "the text holds several statements; exactly one is allowed per statement text"}
)

// inspect is the backstop's verdict on one text: exactly one statement, of
// a kind relchain lets run (ClassPermission for the others), with a rough
// analysis the gate's replaces when it is on. The text is read with the
// gate's tokenizer (mysqlgate.Tokens), so the backend and the gate agree
// on where strings, quoted names and comments are.
func inspect(sql string) (stmtInfo, error) {
	if err := prescan.Check(sql, prescan.MySQL); err != nil {
		return stmtInfo{}, &backend.Error{Class: backend.ClassInvalid, SQLState: "42000", Message: err.Error()}
	}
	toks, ok := mycheck.Tokens(sql)
	if !ok {
		return stmtInfo{}, &backend.Error{Class: backend.ClassSyntax, SQLState: "42000",
			Message: "unterminated string, quoted identifier or comment (or too many characters outside literals that no token starts with)"}
	}
	st, err := oneStatement(toks)
	if err != nil {
		return stmtInfo{}, err
	}
	info := stmtInfo{text: sql[:st[len(st)-1].End], kind: st[0].Up}
	if !st[0].Word() {
		info.kind = ""
	}
	for _, t := range st {
		if t.Word() && t.Up == "?" {
			info.params++
		}
	}
	info.analysis.Params = info.params
	for _, t := range st {
		if t.Word() && (t.Up == "OUTFILE" || t.Up == "DUMPFILE" || t.Up == "LOAD_FILE") {
			info.forbidden = "reading or writing server files (" + t.Up + ") is not allowed"
			return info, nil
		}
	}
	topLevelClauses(&info, st)
	classify(&info, st)
	return info, nil
}

// oneStatement is the tokens of the one statement in toks: statements are
// separated by ';' tokens, and empty ones are ignored.
func oneStatement(toks []mycheck.Token) ([]mycheck.Token, error) {
	var stmts [][]mycheck.Token
	start := 0
	for i, t := range toks {
		if t.Up == ";" && t.Word() {
			if i > start {
				stmts = append(stmts, toks[start:i])
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		stmts = append(stmts, toks[start:])
	}
	switch {
	case len(stmts) == 0:
		return nil, errEmpty
	case len(stmts) > 1:
		return nil, errSeveral
	}
	return stmts[0], nil
}

// topLevelClauses finds st's RETURNING and ORDER BY outside parentheses.
func topLevelClauses(info *stmtInfo, st []mycheck.Token) {
	depth := 0
	for i, t := range st {
		switch {
		case !t.Word():
		case t.Up == "(":
			depth++
		case t.Up == ")":
			depth--
		case depth == 0 && t.Up == "RETURNING":
			info.returning = true
			info.returningAt = t.Start
		case depth == 0 && t.Up == "ORDER" && word(st, i+1) == "BY":
			info.ordered = true
		}
	}
}

// word is st[i] if it is a word, else "".
func word(st []mycheck.Token, i int) string {
	if i < len(st) && st[i].Word() {
		return st[i].Up
	}
	return ""
}

// classify sets what info's kind implies: a read, a write of a table, DDL,
// or a kind the backstop forbids.
func classify(info *stmtInfo, st []mycheck.Token) {
	switch info.kind {
	case "SELECT", "WITH", "VALUES", "TABLE", "(":
		info.read = true
		if info.kind == "WITH" || info.kind == "(" {
			// MySQL allows WITH before UPDATE and DELETE: not a read.
			for _, t := range st {
				if t.Word() && (t.Up == "UPDATE" || t.Up == "DELETE" || t.Up == "INSERT" || t.Up == "REPLACE") {
					info.read = false
				}
			}
		}
	case "INSERT", "REPLACE", "UPDATE", "DELETE":
		info.ordered = false
		info.analysis.Writes = []string{writeTarget(st)}
	case "CREATE", "ALTER", "DROP":
		info.ddl = true
		info.analysis.DDL = true
		info.forbidden = forbiddenObject(info.kind, st)
	case "RENAME", "TRUNCATE":
		info.ddl = true
		info.analysis.DDL = true
		if info.kind == "RENAME" && word(st, 1) != "TABLE" {
			info.forbidden = "RENAME " + word(st, 1) + " is not allowed"
		}
	default:
		info.forbidden = "statement kind " + info.kind + " is not allowed: relchain runs queries, DML and table, index and view DDL only " +
			"(transaction, session and server control belong to the backend)"
	}
}

// forbiddenObject is why a CREATE, ALTER or DROP (kind) may not run, or ""
// for one of a table, an index or a view.
func forbiddenObject(kind string, st []mycheck.Token) string {
	obj := ""
	for i := 1; i < len(st) && obj == ""; i++ {
		switch w := word(st, i); w {
		case "TEMPORARY":
			return "temporary tables are not allowed: they are session state, not replicated"
		case "TABLE", "INDEX", "VIEW", "TRIGGER", "PROCEDURE", "FUNCTION", "EVENT", "DATABASE", "SCHEMA",
			"USER", "ROLE", "SERVER", "SEQUENCE", "TABLESPACE", "PACKAGE", "SYNONYM", "LOGFILE", "INSTANCE",
			"RESOURCE", "SPATIAL", "UNDO":
			obj = w
		}
	}
	switch obj {
	case "TABLE", "INDEX", "VIEW":
		return ""
	case "":
		obj = "this object"
	}
	return kind + " " + obj + " is not allowed: relchain replicates tables, indexes and views only"
}

// writeTarget is the table an INSERT, REPLACE, UPDATE or DELETE names
// first, lower-cased (lower_case_table_names=1), without its schema.
func writeTarget(st []mycheck.Token) string {
	i := 1
	for i < len(st) && st[i].Word() {
		switch st[i].Up {
		case "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "QUICK", "INTO", "FROM":
			i++
			continue
		}
		break
	}
	name := ""
	for i < len(st) {
		if st[i].Quoted {
			name = st[i].Up
		} else {
			name = st[i].Raw
		}
		if i+2 < len(st) && st[i+1].Up == "." {
			i += 2
			continue
		}
		if i+1 < len(st) && len(st[i+1].Raw) > 1 && st[i+1].Raw[0] == '.' {
			// "db.5t": the tokenizer reads ".5" as a number.
			return strings.ToLower(st[i+1].Raw[1:])
		}
		break
	}
	return strings.ToLower(name)
}

// verdictCache remembers, per text, the backstop's and the gate's verdict:
// both are functions of the text alone.
type verdictCache struct {
	verdicts sqlcheck.VerdictCache[verdict]
	gate     bool
	// syntax holds the server parser's verdicts (nil: it parses), which
	// depend on the text and the server version only.
	syntax sqlcheck.VerdictCache[error]
}

type verdict struct {
	info    stmtInfo
	err     error // the backstop's (ClassInvalid, ClassSyntax)
	gateErr error // the gate's refusal, or the backstop's forbidden kind
	// gateRefused: gateErr is the gate's (its reason stands even where
	// the server could not parse the text either).
	gateRefused bool
}

func newVerdictCache(gate bool) verdictCache {
	return verdictCache{gate: gate}
}

// gated is the backstop's verdict and then the gate's (blocks, CheckTx).
func (c *verdictCache) gated(sql string) (stmtInfo, error) {
	v := c.lookup(sql)
	if v.err != nil {
		return v.info, v.err
	}
	info := v.info
	info.gateRefused = v.gateRefused
	return info, v.gateErr
}

func (c *verdictCache) lookup(sql string) verdict {
	return c.verdicts.Get(sql, c.judge)
}

func (c *verdictCache) judge(sql string) verdict {
	info, lexErr := inspect(sql)
	v := verdict{info: info}
	if !c.gate {
		v.err = lexErr
		if lexErr == nil && info.forbidden != "" {
			v.gateErr = permission(info.forbidden)
		}
		return v
	}
	// With the gate on, its verdict and message come first (they are the
	// dialect's documented ones, tested by its corpus); the backstop's
	// "not exactly one statement" is ClassInvalid as in every dialect.
	var a sqlcheck.Analysis
	var err error
	if lexErr == nil {
		a, err = gateAnalyze(info, sql)
	} else {
		a, err = mycheck.Analyze(sql)
	}
	switch {
	case errors.Is(err, sqlcheck.ErrUnparseable):
		// The gate's parser is the law for blocks: what it cannot parse
		// does not run, whatever the server would say.
		v.err = &backend.Error{Class: backend.ClassSyntax, SQLState: "42000", Message: err.Error()}
	case lexErr != nil && (err == nil || isCountError(err)):
		v.err = lexErr
	case err != nil:
		v.gateErr = permission("refused by relchain's determinism and safety gate: " + err.Error())
		v.gateRefused = true
	case info.forbidden != "":
		v.gateErr = permission(info.forbidden)
	default:
		a.Writes = slices.Clone(a.Writes)
		a.Params = info.params
		v.info.analysis = a
		// The backend's own DDL handling follows the backstop's kind (a
		// statement the gate calls DDL and the backstop does not would
		// run inside the block's db-transaction and commit it implicitly).
		if a.DDL && !info.ddl {
			v.gateErr = permission("DDL of kind " + info.kind + " is not supported by the MySQL backend")
		}
	}
	return v
}

// isCountError reports the gate's refusal of an empty text or of several
// statements (the backstop reports those as ClassInvalid).
func isCountError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "empty statement") || strings.Contains(msg, "statements; exactly one")
}

// gateAnalyze runs the gate (backend/mysql/mysqlgate) on sql. The gate's parser
// (Vitess) does not know MariaDB's INSERT/REPLACE/DELETE ... RETURNING, so
// such a statement is judged in two parts, both of which must pass: the
// statement without its RETURNING clause (whose analysis is the
// statement's), and the RETURNING list as the select list of a query of
// the written table, which subjects its expressions to the same function
// and construct allowlists.
func gateAnalyze(info stmtInfo, sql string) (sqlcheck.Analysis, error) {
	if !info.returning || len(info.analysis.Writes) != 1 || info.kind == "UPDATE" {
		return mycheck.Analyze(sql)
	}
	body := info.text[:info.returningAt]
	list := info.text[info.returningAt+len("RETURNING"):]
	a, err := mycheck.Analyze(body)
	if err != nil {
		return a, err
	}
	if _, err := mycheck.Analyze("SELECT " + list + " FROM " + quoteIdent(info.analysis.Writes[0])); err != nil {
		return sqlcheck.Analysis{}, fmt.Errorf("RETURNING list: %w", err)
	}
	return a, nil
}

func permission(msg string) *backend.Error {
	return &backend.Error{Class: backend.ClassPermission, SQLState: "42000", Message: msg}
}

// serverSyntax is the server parser's verdict on st (see prepareCheck),
// cached by text: nil, or a ClassSyntax *backend.Error.
func (b *Backend) serverSyntax(ctx context.Context, st stmtInfo) error {
	c := &b.verdict
	err, ok := c.syntax.Lookup(st.text)
	if ok {
		return err
	}
	stmt, err := b.internal.PrepareContext(ctx, st.text)
	if err == nil {
		stmt.Close()
	} else if be := asBackendError(err); be == nil || transient(err) {
		// The server could not be asked (connection lost): no verdict,
		// and nothing cached. A node fault, not "it parses": inside a
		// block the statement would otherwise fail at Exec with a class
		// the other nodes did not give it (CheckTx turns it away).
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return unavailable(ctx, fmt.Errorf("mysql: ask the server whether it parses the statement: %w", err))
	} else if be.Class == backend.ClassSyntax {
		err = be
	} else {
		err = nil // it parsed; what failed depends on the schema
	}
	c.syntax.Put(st.text, err)
	return err
}

// syntaxFirst returns err, a refusal (ClassPermission) of st, unless the
// server cannot parse st: then the syntax error, which comes first as in
// the other dialects ("SELEC 1" is a syntax error, not a refused kind).
func (b *Backend) syntaxFirst(ctx context.Context, st stmtInfo, err error) error {
	if be := backend.AsError(err); be == nil || be.Class != backend.ClassPermission || st.text == "" || st.gateRefused {
		return err
	}
	if serr := b.serverSyntax(ctx, st); serr != nil {
		return serr
	}
	return err
}
