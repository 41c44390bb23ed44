package pghistory

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// Name is the history relation's function name.
const Name = "relchain_history"

// Call is one relchain_history(...) of a statement: the table whose
// versions it reads, from which height (0: the start of the history).
type Call struct {
	Table      string
	FromHeight int64
}

// ErrCall is the error of a relchain_history that is not a relation call
// of the accepted form.
var ErrCall = errors.New("relchain_history")

// usage is what every ErrCall says of the accepted form.
const usage = "write it in FROM with a table name and an optional first height, both literals: SELECT * FROM relchain_history('accounts'[, 1200])"

// Rewrite replaces each relchain_history(...) in the FROM clauses of the
// one statement of sql with the SELECT text relation returns for it (in
// parentheses, under the call's alias, else under the name
// relchain_history). found is false, and sql comes back unchanged, when
// sql names no history relation (or is not one statement PostgreSQL's
// parser accepts: the read path then answers it as it answers any text).
func Rewrite(sql string, relation func(Call) (string, error)) (out string, found bool, err error) {
	if !sqlcheck.ContainsFold(sql, Name) || prescan.Check(sql, prescan.PostgreSQL) != nil {
		return sql, false, nil
	}
	tree, err := pgparse.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return sql, false, nil
	}
	err = visit(tree.ProtoReflect(), func(n *pg_query.Node) error {
		if rf := n.GetRangeFunction(); rf != nil && isHistory(rf) {
			sub, err := replacement(rf, relation)
			if err == nil {
				n.Node, found = &pg_query.Node_RangeSubselect{RangeSubselect: sub}, true
			}
			return err
		}
		if fc := n.GetFuncCall(); fc != nil && funcName(fc) == Name {
			return fmt.Errorf("%w is a relation, not a function of a value: %s", ErrCall, usage)
		}
		return nil
	})
	if err != nil || !found {
		return sql, false, err
	}
	out, err = pg_query.Deparse(tree)
	if err != nil {
		return sql, false, fmt.Errorf("%w: deparse the rewritten read: %w", ErrCall, err)
	}
	return out, true, nil
}

// visit calls f on every Node of m's tree, parents before children (a
// Node f replaces is visited as replaced).
func visit(m protoreflect.Message, f func(*pg_query.Node) error) error {
	if n, ok := m.Interface().(*pg_query.Node); ok {
		if err := f(n); err != nil {
			return err
		}
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i, l := 0, v.List(); i < l.Len() && err == nil; i++ {
				err = visit(l.Get(i).Message(), f)
			}
		default:
			err = visit(v.Message(), f)
		}
		return err == nil
	})
	return err
}

// funcName is a call's unqualified name ("" when qualified).
func funcName(fc *pg_query.FuncCall) string {
	if names := fc.GetFuncname(); len(names) == 1 {
		return names[0].GetString_().GetSval()
	}
	return ""
}

// isHistory reports whether rf calls relchain_history (alone or among
// others: replacement refuses the latter).
func isHistory(rf *pg_query.RangeFunction) bool {
	for _, item := range rf.GetFunctions() {
		if items := item.GetList().GetItems(); len(items) > 0 && items[0].GetFuncCall() != nil && funcName(items[0].GetFuncCall()) == Name {
			return true
		}
	}
	return false
}
