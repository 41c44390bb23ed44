package e2e

import (
	"context"
	"testing"
	"time"
)

// Issue 14: abci_query texts that switched the reader to the superuser
// read the server's files and terminated every validator's writer on a
// shared server; the nodes exited at their next block. Every node must
// refuse them and keep committing.
func TestQueryCannotReadFilesOrKillWriters_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: "postgres"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c.mustExecEverywhere(ctx, 0, stmt(`CREATE TABLE t (id int PRIMARY KEY)`))
	for _, q := range []string{
		`SELECT set_config('role','postgres',true) a, query_to_xml('select pg_terminate_backend(pid) from pg_stat_activity where application_name=''relchain''',true,true,'') b`,
		`SELECT set_config('role','postgres',true) a, query_to_xml('select current_user, pg_read_file(''/etc/hostname'')',true,true,'') b`,
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'relchain'`,
		`SELECT rolname, rolpassword FROM pg_authid`,
	} {
		for i := 0; i < validators; i++ {
			res, err := c.client(i, nil).Query(ctx, 0, q)
			if err == nil {
				t.Fatalf("node %d answered %q: %v", i, q, res.Rows)
			}
		}
	}
	// Every node still executes blocks: the tx commits everywhere.
	c.mustExecEverywhere(ctx, 1, stmt(`INSERT INTO t VALUES (1)`))
	for i := 0; i < validators; i++ {
		res, err := c.client(i, nil).Query(ctx, 0, `SELECT count(*) FROM t`)
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("node %d after the attacks: %v, %v", i, res, err)
		}
	}
}
