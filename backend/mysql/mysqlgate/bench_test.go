package mysqlgate

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// BenchmarkCheck measures the gate on the shared benchmark statements
// (sqlchecktest.RunBench): Check uncached and cached, next to the bare
// parse.
func BenchmarkCheck(b *testing.B) {
	sqlchecktest.RunBench(b, sqlchecktest.Bench{
		Uncached:  check,
		Cached:    Check,
		ParseOnly: func(sql string) error { _, err := sqlparser.Parse(sql); return err },
	}, sqlchecktest.MySQLPlaceholders(sqlchecktest.BenchStatements))
}
