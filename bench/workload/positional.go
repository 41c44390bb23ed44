package workload

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relchain/relchain/txn"
)

// Positional rewrites a statement written with numbered placeholders
// (?1, ?2, ... as Placeholder returns them for SQLite and MySQL) into
// MySQL's anonymous '?' form: each ?n becomes '?' and the arguments are
// listed once per occurrence, in text order. Quoted strings, quoted
// identifiers and comments are left alone. A statement without numbered
// placeholders is returned unchanged; a ?n without an n-th argument is an
// error.
func Positional(st txn.Statement) (txn.Statement, error) {
	if !strings.Contains(st.SQL, "?") {
		return st, nil
	}
	s := st.SQL
	var b strings.Builder
	var args []txn.Arg
	numbered := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(s) {
				if s[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(s[i:j])
			i = j
		case c == '-' && strings.HasPrefix(s[i:], "-- "), c == '#':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			end := len(s)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(s[i:end])
			i = end
		case c == '?':
			j := i + 1
			n := 0
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				n = n*10 + int(s[j]-'0')
				j++
			}
			if j == i+1 { // an anonymous '?' already
				if numbered {
					return txn.Statement{}, fmt.Errorf("statement mixes ? and ?n placeholders: %.60q", s)
				}
				b.WriteByte('?')
				i = j
				continue
			}
			if n < 1 || n > len(st.Args) {
				return txn.Statement{}, fmt.Errorf("placeholder ?%d without an argument (%d given): %.60q", n, len(st.Args), s)
			}
			numbered = true
			b.WriteByte('?')
			args = append(args, st.Args[n-1])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	if !numbered {
		return st, nil
	}
	return txn.Statement{SQL: b.String(), Args: args}, nil
}

// ForDialect returns wl's statements as dialect executes them: through
// Positional where package dialect binds anonymous '?' in order
// (PlaceholdersOrdered: MySQL), otherwise unchanged. It panics if a statement's
// placeholders do not match its arguments: a workload's generator built it
// wrong.
func ForDialect(dialect string, wl WL) WL {
	if !ordered(dialect) {
		return wl
	}
	out := make([]txn.Statement, len(wl.Statements))
	for i, st := range wl.Statements {
		p, err := Positional(st)
		if err != nil {
			panic(fmt.Sprintf("workload: %s statement %d: %v", wl.Kind, i+1, err))
		}
		out[i] = p
	}
	wl.Statements = out
	return wl
}

// QueryArgs is Positional for a Querier's statement text and arguments on
// dialect.
func QueryArgs(dialect, sql string, args []any) (string, []any, error) {
	if !ordered(dialect) || len(args) == 0 {
		return sql, args, nil
	}
	st := txn.Statement{SQL: sql, Args: make([]txn.Arg, len(args))}
	idx := make([]any, len(args))
	for i := range args {
		st.Args[i] = txn.Int(int64(i))
		idx[i] = args[i]
	}
	p, err := Positional(st)
	if err != nil {
		return "", nil, err
	}
	out := make([]any, len(p.Args))
	for i, a := range p.Args {
		out[i] = idx[a.Int]
	}
	return p.SQL, out, nil
}

// MySQLSeries is a MySQL SELECT of the BIGINT column x = lo, lo+1, ... (at
// least n rows: a power of ten; cut it with WHERE x <= hi). MySQL has no
// generate_series, and relchain's gate refuses its recursive CTEs.
func MySQLSeries(lo, n int) string {
	const digits = "(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"
	x := strconv.Itoa(lo)
	from := ""
	for k, mul := 0, 1; k == 0 || mul < n; k, mul = k+1, mul*10 {
		x += fmt.Sprintf(" + %d * d%d.d", mul, k)
		if k > 0 {
			from += " CROSS JOIN "
		}
		from += fmt.Sprintf("%s AS d%d", digits, k)
	}
	return "SELECT CAST(" + x + " AS SIGNED) AS x FROM " + from
}

// DDLAlone returns bcs for dialect: where Database.DDLAlone (MySQL), a
// bc-transaction with a DDL statement must hold that one statement (the
// database commits DDL implicitly; see backend/mysql), so each DDL statement becomes a
// bc-transaction of its own, in order; other dialects get bcs unchanged.
func DDLAlone(dialect string, bcs [][]txn.Statement) [][]txn.Statement {
	if !DB(dialect).DDLAlone {
		return bcs
	}
	var out [][]txn.Statement
	for _, bc := range bcs {
		var rest []txn.Statement
		for _, st := range bc {
			if !isDDL(st.SQL) {
				rest = append(rest, st)
				continue
			}
			if len(rest) > 0 {
				out = append(out, rest)
				rest = nil
			}
			out = append(out, []txn.Statement{st})
		}
		if len(rest) > 0 {
			out = append(out, rest)
		}
	}
	return out
}

// isDDL says whether a workload's statement is DDL by its first word.
func isDDL(sql string) bool {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE":
		return true
	}
	return false
}
