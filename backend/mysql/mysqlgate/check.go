package mysqlgate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

var cache sqlcheck.VerdictCache[*sqlcheck.Verdict]

// Check is the MySQL gate's verdict on one statement text, under the text
// gates' contract (package sqlcheck): nil if it may run on a relchain MySQL
// node.
func Check(sql string) error {
	return lookup(sql).Err
}

// Analyze is Check plus what an accepted statement does (package
// sqlcheck's contract): whether it is DDL and the tables it writes.
// UsesEnv is always false: the MySQL gate rewrites nothing (the backend
// pins the session's timestamp to the block's time, see the package
// documentation).
func Analyze(sql string) (sqlcheck.Analysis, error) {
	return lookup(sql).Result()
}

// Rewrite returns the text to execute (package sqlcheck's contract): the
// text itself, since the MySQL gate rewrites nothing (clock functions read
// the session timestamp the backend pins to env.Time's block), or Check's
// error.
func Rewrite(sql string, env sqlcheck.Env) (string, error) {
	if err := Check(sql); err != nil {
		return "", err
	}
	return sql, nil
}

// lookup is the cached verdict.
func lookup(sql string) *sqlcheck.Verdict { return cache.Get(sql, analyze) }

// check is Check without the cache.
func check(sql string) error {
	return analyze(sql).Err
}

// analyze is the uncached verdict. A panic in the walk is a refusal (fail
// closed; the message is fixed, so the verdict stays the same on every
// node).
func analyze(sql string) (v *sqlcheck.Verdict) {
	defer func() {
		if recover() != nil {
			v = sqlcheck.Refusal(errors.New("the gate failed on this statement text; it is refused"))
		}
	}()
	stmt, err := parse(sql)
	if err != nil {
		return sqlcheck.Refusal(err)
	}
	w, err := checkStatement(stmt)
	if err != nil {
		return sqlcheck.Refusal(err)
	}
	return sqlcheck.Acceptance(w.ddl, w.writes)
}

// parse parses a text that must hold exactly one statement, and no
// executable comment. The text passes the pre-scan (package prescan)
// first: no scan or parse below sees a text beyond its bounds.
func parse(sql string) (sqlparser.Statement, error) {
	if err := prescan.Check(sql, prescan.MySQL); err != nil {
		return nil, err
	}
	if strings.IndexByte(sql, 0) >= 0 {
		// The parser reads past a NUL byte; MySQL's lexer may not.
		return nil, fmt.Errorf("%w: the text holds a NUL byte", sqlcheck.ErrUnparseable)
	}
	if err := checkComments(sql); err != nil {
		return nil, err
	}
	if err := checkDashComments(sql); err != nil {
		return nil, err
	}
	stmt, next, err := parseOne(sql)
	switch {
	case errors.Is(err, sqlparser.ErrEmpty):
		return nil, errors.New("empty statement: the text holds no SQL statement")
	case errors.Is(err, sqlcheck.ErrUnparseable):
		return nil, err
	case err != nil:
		return nil, unparseable(err)
	}
	// ParseOne stops after the first statement; the rest of the text must
	// hold no other one (nor anything the parser rejects). Each ParseOne
	// copies the rest of the text, so the count stops at maxCounted: work
	// linear in the text, not quadratic in a run of "SELECT 1;".
	n := 1
	for rest := sql[min(next, len(sql)):]; n <= maxCounted; {
		_, next, err := parseOne(rest)
		if errors.Is(err, sqlparser.ErrEmpty) {
			break
		}
		if errors.Is(err, sqlcheck.ErrUnparseable) {
			return nil, err
		}
		if err != nil {
			return nil, unparseable(err)
		}
		n++
		if next <= 0 || next >= len(rest) {
			break
		}
		rest = rest[next:]
	}
	switch {
	case n > maxCounted:
		return nil, fmt.Errorf("the text holds more than %d statements; exactly one is allowed per statement text", maxCounted)
	case n > 1:
		return nil, fmt.Errorf("the text holds %d statements; exactly one is allowed per statement text", n)
	}
	return stmt, nil
}

// maxCounted is how many statements of a text parse counts.
const maxCounted = 16

// parseOne is sqlparser.ParseOne, with a panic of the parser (it has
// some, after parsing proper: SELECT and an empty string literal without
// a space between is one) reported as a parse error.
func parseOne(sql string) (stmt sqlparser.Statement, next int, err error) {
	defer func() {
		if recover() != nil {
			stmt, next, err = nil, 0, fmt.Errorf("%w: the parser failed on this text", sqlcheck.ErrUnparseable)
		}
	}()
	return sqlparser.ParseOne(context.Background(), sql)
}

// unparseable wraps a parser error in sqlcheck.ErrUnparseable.
func unparseable(err error) error {
	msg := strings.TrimPrefix(err.Error(), "Code: INVALID_ARGUMENT\n")
	return fmt.Errorf("%w: %s", sqlcheck.ErrUnparseable, strings.TrimSpace(msg))
}

// checkComments rejects executable comments anywhere in the text (even
// inside what may be a string literal: the check is lexical and fails
// closed): MySQL runs the text of /*! ... */ and /*!50700 ... */, MariaDB
// that of /*M! ... */, and /*+ ... */ holds optimizer hints, so what
// executes would not be what the gate checked.
func checkComments(sql string) error {
	for i := 0; ; {
		j := strings.Index(sql[i:], "/*")
		if j < 0 {
			return nil
		}
		i += j + 2
		rest := sql[i:]
		switch {
		case strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "M!"), strings.HasPrefix(rest, "m!"):
			return errors.New("executable comments (/*! ... */, /*M! ... */) are not allowed, even inside string literals: MySQL and MariaDB run their text, which the gate does not check")
		case strings.HasPrefix(rest, "+"):
			return errors.New("optimizer hints (/*+ ... */) are not allowed, even inside string literals: plans are each node's own business")
		}
	}
}

// checkDashComments rejects "--" comments that MySQL does not read as
// comments: MySQL starts a comment at "--" only if a space or a control
// character (or the end of the text) follows; otherwise "--1" is two minus
// signs and the rest of the line is code. The parser treats every "--" as
// a comment, so "SELECT 1 --1, SLEEP(9)" would pass the gate while MySQL
// runs SLEEP. The text is scanned with the parser's own tokenizer, so
// string literals and quoted names are told apart from comments exactly as
// the parser does.
func checkDashComments(sql string) error {
	tkn := sqlparser.NewStringTokenizer(sql)
	for range len(sql) + 1 {
		typ, val := tkn.Scan()
		switch {
		case typ == 0 || typ == sqlparser.LEX_ERROR:
			return nil
		case typ == sqlparser.COMMENT && len(val) > 2 && val[0] == '-' && val[1] == '-' && val[2] > ' ' && val[2] != 0x7f:
			return errors.New("a \"--\" comment must be followed by a space: MySQL reads \"--x\" as two minus signs and runs the rest of the line")
		}
	}
	return nil
}
