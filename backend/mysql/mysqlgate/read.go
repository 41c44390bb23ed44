package mysqlgate

import (
	"errors"
	"fmt"
)

// systemRelationError is the gate's refusal of a relation of a system
// schema (information_schema, mysql, performance_schema, sys). Its text is
// the block path's, unchanged: a refused tx's result carries it, and the
// AppHash covers results. The read path names the relation (ReadRefusal).
type systemRelationError struct{ schema, table string }

func (e *systemRelationError) Error() string {
	return fmt.Sprintf("system schema %s is not accessible to statements", e.schema)
}

// ReadRefusal is the read path's wording of the gate's refusal of sql when
// the gate refused it for a relation of a system schema: the relation,
// named as not on relchain's read allowlist, which holds no relation of
// MySQL's system schemas (see backend/mysql/DESIGN.md, "The read
// allowlist"). It is nil when the gate refused sql for another reason, or
// accepted it.
func ReadRefusal(sql string) (err error) {
	defer func() {
		if recover() != nil {
			err = nil // the gate's own verdict (a refusal) stands
		}
	}()
	stmt, perr := parse(sql)
	if perr != nil {
		return nil
	}
	_, cerr := checkStatement(stmt)
	var se *systemRelationError
	if !errors.As(cerr, &se) {
		return nil
	}
	return fmt.Errorf("relation %s.%s is not on relchain's read allowlist, which holds no relation of information_schema, mysql, performance_schema or sys (they show the server's accounts, other databases, settings and activity)", se.schema, se.table)
}
