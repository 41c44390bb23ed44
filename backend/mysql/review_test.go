package mysql_test

import (
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
)

// The open query path (abci_query) goes through the gate: executable
// comments, file access, system schemas and locking reads never reach the
// server, whoever asks. (information_schema's relations that PostgreSQL
// has too, TABLES say, are answered from the emulated PostgreSQL catalog,
// never the server's: pgcatalog_test.go.)
func TestQueryRefusesWhatTheGateRefuses(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t))
	defer b.Close()
	for _, sql := range []string{
		"SELECT 1 /*!, LOAD_FILE('/etc/passwd') */",
		"SELECT 1 /*! INTO OUTFILE '/tmp/relchain-x' */",
		"SELECT LOAD_FILE('/etc/passwd')",
		"SELECT count(*) FROM information_schema.PROCESSLIST",
		"SELECT user FROM mysql.user ORDER BY user",
		"SELECT GET_LOCK('x', 1)",
		"SELECT 1 FROM DUAL FOR UPDATE",
		"SET ROLE admin",
		"KILL 1",
		"KILL QUERY 1",
		"SELECT COUNT(*) FROM seq_1_to_100000000000",
		"SELECT SUM(seq) FROM SEQ_1_TO_1000000000000_STEP_2",
		"SELECT LENGTH(REPEAT('x', 1000000000))",
	} {
		_, _, err := b.Query(ctx(t), sql, nil)
		e := backend.AsError(err)
		if e == nil || (e.Class != backend.ClassPermission && e.Class != backend.ClassSyntax) {
			t.Errorf("Query(%q) = %v; want the gate's refusal", sql, err)
		}
	}
	if rows, _, err := b.Query(ctx(t), "SELECT 1 + 1", nil); err != nil || len(rows.Rows) != 1 {
		t.Fatalf("a plain read: %v, %v", rows, err)
	}
}

// Server errors that depend on the node (its grants, its resources) are
// node faults, never a tx's deterministic result; the statement's own
// failures are results.
func TestNodeLocalServerErrorsAreFaults(t *testing.T) {
	for _, n := range []uint16{1142, 1143, 1044, 1045, 1227, 1290, 1114, 1153, 1301, 1436, 1135, 1158, 1180, 1037, 1038, 1034, 1205, 1213, 2013,
		// issue 32: the binary log's limits and format, account limits,
		// read-only tables, table definition cache
		1197, 1534, 1665, 1785, 1226, 1637, 1036, 1412, 1615} {
		if mysql.IsTxResult(n) {
			t.Errorf("server error %d is taken as a tx result; it is node-local", n)
		}
	}
	for _, n := range []uint16{1062, 1048, 1146, 1064, 1406, 1264, 1365, 1118, 1071, 1709, 1452} {
		if !mysql.IsTxResult(n) {
			t.Errorf("server error %d is taken as a node fault; it is the statement's own failure", n)
		}
	}
}
