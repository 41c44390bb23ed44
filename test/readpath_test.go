package e2e

import (
	"context"
	"fmt"
	"strings"
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

// Issue 32, reproduction 7: abci_query (no key) listed every role of the
// shared PostgreSQL server with its settings (pg_roles), while pg_user was
// refused. The read path is now an allowlist: the role catalogs are
// refused on every node, or (pg_roles, pg_user, pg_database: issue 33,
// for psql's \du and \l) answered with the node's own roles without
// their settings and this database alone, and psql's catalogs still
// answer.
func TestQueryShowsNoRoleOfTheServer_Postgres(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: "postgres"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c.mustExecEverywhere(ctx, 0, stmt(`CREATE TABLE t (id int PRIMARY KEY)`))
	for i := 0; i < validators; i++ {
		cl := c.client(i, nil)
		for _, q := range []string{`SELECT setconfig FROM pg_db_role_setting`, `SELECT 10::regrole`} {
			if res, err := cl.Query(ctx, 0, q); err == nil || !strings.Contains(err.Error(), "read allowlist") {
				t.Errorf("node %d: %q = %v, %v; want a refusal naming relchain's read allowlist", i, q, res, err)
			}
		}
		// version() answers the network's version string, not the server's.
		if res, err := cl.Query(ctx, 0, `SELECT version()`); err != nil || len(res.Rows) != 1 || !strings.Contains(fmt.Sprint(res.Rows[0][0]), "(relchain)") {
			t.Errorf("node %d: version() = %v, %v; want relchain's network-wide version string", i, res, err)
		}
		res, err := cl.Query(ctx, 0, `SELECT datname FROM pg_database`)
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "relchain" {
			t.Errorf("node %d: pg_database = %v, %v; want the one row relchain", i, res, err)
		}
		own := fmt.Sprintf("_node%d_", i)
		for _, q := range []string{`SELECT rolname, rolconfig FROM pg_roles`, `SELECT usename, useconfig FROM pg_user`} {
			res, err := cl.Query(ctx, 0, q)
			if err != nil || len(res.Rows) == 0 {
				t.Errorf("node %d: %q = %v, %v; want the node's roles", i, q, res, err)
				continue
			}
			for _, r := range res.Rows {
				name, _ := r[0].(string)
				if r[1] != nil || strings.HasPrefix(name, "relchain_e2e_") && !strings.Contains(name, own) {
					t.Errorf("node %d: %q shows %v: another node's role, or a role's settings", i, q, r)
				}
			}
		}
		res, err = cl.Query(ctx, 0, `SELECT c.relname, pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c WHERE c.relname = 't'`)
		if err != nil || len(res.Rows) != 1 || res.Rows[0][1] == nil {
			t.Errorf("node %d: the table and its owner: %v, %v", i, res, err)
		}
	}
}
