package mysql

import (
	"fmt"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// walker checks one statement's tree and gathers what Analysis needs.
type walker struct {
	ddl    bool
	writes []string
}

// checkStatement checks one parsed statement.
func checkStatement(stmt sqlparser.Statement) (*walker, error) {
	return nil, fmt.Errorf("statement kind %T is not supported by the gate yet", stmt)
}
