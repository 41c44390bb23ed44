package raw_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mysqlbackend "github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) { workloadtest.Main(m) }

func open(t *testing.T, dialect string) *raw.DB {
	t.Helper()
	var db *raw.DB
	var err error
	switch dialect {
	case workload.SQLite:
		db, err = raw.OpenSQLite(filepath.Join(t.TempDir(), "raw.db"))
	case workload.MySQL:
		db, err = raw.OpenMySQL(context.Background(), mysqltest.DSN(t))
	default:
		db, err = raw.OpenPostgres(context.Background(), pgtest.DSN(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestTxRollsBackAFailingWLTransactionAlone(t *testing.T) {
	for _, dialect := range workload.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			c, err := open(t, dialect).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			p := func(n int) string { return workload.Placeholder(dialect, n) }
			st := func(sql string, args ...txn.Arg) txn.Statement { return txn.Statement{SQL: sql, Args: args} }
			if out, err := c.Tx(ctx, [][]txn.Statement{{st("CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT NOT NULL)")}}); err != nil || !out[0].OK {
				t.Fatalf("create: %v %+v", err, out)
			}
			ins := func(id int64) txn.Statement {
				return workload.ForDialect(dialect, workload.WL{Statements: []txn.Statement{
					st("INSERT INTO t (id, v) VALUES ("+p(1)+", "+p(2)+")", txn.Int(id), txn.Text(fmt.Sprint("v", id)))}}).Statements[0]
			}
			// The second fails at its first statement (on PostgreSQL that
			// one travels with the first's RELEASE and its own SAVEPOINT),
			// the third at its second.
			out, err := c.Tx(ctx, [][]txn.Statement{{ins(1)}, {ins(1)}, {ins(2), ins(1)}, {ins(3), st("SELECT count(*) FROM t")}})
			if err != nil {
				t.Fatal(err)
			}
			if !out[0].OK || out[1].OK || out[1].Err == nil || out[2].OK || out[2].Err == nil || !out[3].OK {
				t.Fatalf("outcomes %+v, want ok, failed, failed, ok", out)
			}
			if out[3].Results[0].RowsAffected != 1 {
				t.Errorf("insert affected %d rows, want 1", out[3].Results[0].RowsAffected)
			}
			if got := fmt.Sprint(out[3].Results[1].Rows); got != "[[2]]" {
				t.Errorf("count inside the tx = %s, want [[2]]", got)
			}
			// A single failing wl-transaction rolls its db-transaction back.
			out, err = c.Tx(ctx, [][]txn.Statement{{ins(4), ins(1)}})
			if err != nil || out[0].OK {
				t.Fatalf("single failing wl: %v %+v", err, out)
			}
			rows, err := c.Query(ctx, "SELECT id, v FROM t ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(rows); got != "[[1 v1] [3 v3]]" {
				t.Fatalf("rows = %s, want [[1 v1] [3 v3]]", got)
			}
		})
	}
}

func TestQueryRendersPostgresNumericAsItsDecimalText(t *testing.T) {
	ctx := context.Background()
	c, err := open(t, workload.Postgres).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, "SELECT 59.27::numeric(12,2), 0.0418::numeric(4,4)")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows); got != "[[59.27 0.0418]]" {
		t.Fatalf("numeric values read as %s, want [[59.27 0.0418]]", got)
	}
}

func TestMySQLRowsReadLikeTheChainsBackend(t *testing.T) {
	ctx := context.Background()
	c, err := open(t, workload.MySQL).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, "SELECT 42, CAST(59.27 AS DECIMAL(12,2)), 'x', CAST(1.5 AS DOUBLE), NULL, @@time_zone, @@sql_mode")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%#v", rows[0][:5]); got != `[]interface {}{42, "59.27", "x", 1.5, interface {}(nil)}` {
		t.Fatalf("values read as %s", got)
	}
	modes := func(s any) []string { m := strings.Split(fmt.Sprint(s), ","); slices.Sort(m); return m }
	if rows[0][5] != "+00:00" || !slices.Equal(modes(rows[0][6]), modes(mysqlbackend.SQLMode)) {
		t.Fatalf("session time zone %v, sql_mode %v: not the backend's", rows[0][5], rows[0][6])
	}
}

// TestPostgresBatchSurvivesFailingQueries: a wl-transaction whose first
// statement returns rows and fails travels in a pipeline with its
// SAVEPOINT (TPC-C's NewOrder raising on an unused item); the connection
// must be usable afterwards, also when the failing statement was cached.
func TestPostgresBatchSurvivesFailingQueries(t *testing.T) {
	ctx := context.Background()
	c, err := open(t, workload.Postgres).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.Tx(ctx, [][]txn.Statement{{{SQL: `CREATE FUNCTION div10(n integer) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN
	IF n = 0 THEN RAISE EXCEPTION 'no'; END IF;
	RETURN 10 / n;
END $$`}}}); err != nil || !out[0].OK {
		t.Fatalf("create function: %v %+v", err, out)
	}
	div := func(n int64) txn.Statement {
		return txn.Statement{SQL: "SELECT div10($1)", Args: []txn.Arg{txn.Int(n)}}
	}
	for round := range 2 {
		out, err := c.Tx(ctx, [][]txn.Statement{{div(5)}, {div(0)}, {div(0)}, {div(2)}})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !out[0].OK || out[1].OK || out[2].OK || !out[3].OK {
			t.Fatalf("round %d: outcomes %+v, want ok, failed, failed, ok", round, out)
		}
		if got := fmt.Sprint(out[0].Results[0].Rows, out[3].Results[0].Rows); got != "[[2]] [[5]]" {
			t.Fatalf("round %d: rows %s, want [[2]] [[5]]", round, got)
		}
	}
}
