package e2e

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Issue 14, item 9: sum(float8) was accepted and added its input in heap
// order. A node-local VACUUM (autovacuum does the same, at node-local
// times) let node 3 put a re-inserted row into a freed slot while the
// others appended it: the float sum was 0 there and 1 elsewhere, an AppHash
// mismatch that stopped node 3. The gate now orders the input of sum and
// avg by their arguments, so the heap order no longer matters.
//
// The float column is named x (issue 14, item 10): relchain's own scan,
// row_to_json(x) FROM ONLY fs x, resolved x to that column, and the
// CREATE TABLE alone stopped all four nodes.
func TestFloatAggregatesIgnoreNodeLocalVacuum_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: "postgres"})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c.mustExecEverywhere(ctx, 0, stmt("CREATE TABLE fs (id INTEGER PRIMARY KEY, x DOUBLE PRECISION NOT NULL)"),
		stmt("CREATE TABLE res (k TEXT PRIMARY KEY, v DOUBLE PRECISION)"))
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO fs VALUES (1, 1e16), (2, 1), (3, -1e16)"))
	c.mustExecEverywhere(ctx, 0, stmt("DELETE FROM fs WHERE id = 2"))
	c.tamper(victim, "VACUUM fs") // node-local maintenance: no row changes
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO fs VALUES (2, 1)"))
	if a, b := c.heapOrder(0, "fs"), c.heapOrder(victim, "fs"); reflect.DeepEqual(a, b) {
		t.Fatalf("the VACUUM did not change node 3's heap order (%v on both): the test cannot show anything", a)
	}

	c.mustExec(ctx, 0, stmt("INSERT INTO res SELECT 'sum', sum(x) FROM fs"))
	c.mustExec(ctx, 1, stmt("INSERT INTO res SELECT 'avg', avg(x) FROM fs"))
	c.mustExec(ctx, 2, stmt("INSERT INTO res SELECT 'by id', sum(x ORDER BY id) FROM fs"))
	readCtx, cancelRead := context.WithTimeout(ctx, 90*time.Second)
	defer cancelRead()
	h, rows := c.consistentRead(readCtx, "SELECT k, v FROM res ORDER BY k")
	c.requireSameRows(h, "res", rows[0])
	// And the chain goes on with all four.
	c.mustExecEverywhere(ctx, victim, stmt("INSERT INTO res VALUES ('after', 0)"))
}

// heapOrder is the ids of table's rows on node i in physical order.
func (c *cluster) heapOrder(i int, table string) []int64 {
	c.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.adminDSN(i))
	if err != nil {
		c.t.Fatalf("connect to %s's database: %v", c.nodes[i].Name, err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT id::int8 FROM "+pgx.Identifier{table}.Sanitize()+" ORDER BY ctid")
	if err != nil {
		c.t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		c.t.Fatal(err)
	}
	return ids
}
