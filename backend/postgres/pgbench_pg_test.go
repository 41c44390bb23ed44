package postgres_test

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// pgbench -i's statements pass the gate and run in blocks as pgbench sends
// them (a multi-table DROP TABLE IF EXISTS, CREATE TABLE … WITH
// (fillfactor=100), TRUNCATE of the four tables, ALTER TABLE … ADD
// PRIMARY KEY), and a TRUNCATE leaves the same state digest as the DELETE
// of the same rows: its capture record makes the block sum its tables
// afresh.
func TestPgbenchInitStatementsRunInBlocks(t *testing.T) {
	trunc, del := mustOpen(t, pgtest.DSN(t)), mustOpen(t, pgtest.DSN(t))
	defer trunc.Close()
	defer del.Close()
	setup := [][]string{{
		"drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
		"create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))",
		"create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)",
		"create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)",
		"create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)",
		"insert into pgbench_branches(bid,bbalance) values(1,0)",
		"insert into pgbench_tellers(tid,bid,tbalance) values (1,1,0)",
		"insert into pgbench_tellers(tid,bid,tbalance) values (2,1,0)",
	}}
	state := func(digests string) string { return digests[strings.Index(digests, "state="):] }
	if a, b := runBlock(t, trunc, 1, setup), runBlock(t, del, 1, setup); a != b {
		t.Fatalf("the same block, different digests:\n%s\n%s", a, b)
	}
	a := runBlock(t, trunc, 2, [][]string{{"truncate table pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers",
		"insert into pgbench_branches(bid,bbalance) values(1,0)", "alter table pgbench_branches add primary key (bid)"}})
	b := runBlock(t, del, 2, [][]string{{"delete from pgbench_tellers", "delete from pgbench_branches",
		"insert into pgbench_branches(bid,bbalance) values(1,0)", "alter table pgbench_branches add primary key (bid)"}})
	if state(a) != state(b) {
		t.Fatalf("TRUNCATE and DELETE of the same rows leave different states:\n%s\n%s", a, b)
	}
	rows, _, err := trunc.Query(ctx(t), "SELECT (SELECT count(*) FROM pgbench_tellers), (SELECT count(*) FROM pgbench_branches)", nil)
	if err != nil || rowsText(rows) != "0,1" {
		t.Fatalf("after TRUNCATE: %v, %v; want 0 tellers and 1 branch", rowsText(rows), err)
	}
}
