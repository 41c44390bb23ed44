package postgres_test

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// readAttacks are abci_query texts observed reading the server's files and
// catalogs, switching to the superuser, sleeping and changing settings
// through Query (issue 14).
var readAttacks = []string{
	`SELECT set_config('role','postgres',true) a, query_to_xml('select current_user, pg_read_file(''/etc/hostname'')',true,true,'') b`,
	`SELECT set_config('role','postgres',true) a, query_to_xml('select count(*) from pg_ls_dir(''/'')',true,true,'') b`,
	`SELECT set_config('role','postgres',true) a, query_to_xml('select rolname, rolpassword from pg_authid',true,true,'') b`,
	`SELECT pg_read_file('/etc/hostname')`,
	`SELECT count(*) FROM pg_ls_dir('/')`,
	`SELECT rolname, rolpassword FROM pg_authid`,
	`SELECT pid, usename, query FROM pg_stat_activity`,
	`SELECT pg_sleep(1)`,
	`SELECT U&"\0070g_sleep"(1)`,
	`SELECT txid_current_snapshot()`,
	`SELECT set_config('a.b','c',false)`,
	`SELECT height FROM relchain.meta`,
	`SELECT count(*) FROM relchain.changes`,
}

// killWriter is the text that ended a node's writer connection.
const killWriter = `SELECT set_config('role','postgres',true) a, query_to_xml('select pg_terminate_backend(pid) from pg_stat_activity where application_name=''relchain''',true,true,'') b`

func TestReadPathRefusesFilesCatalogsSleepAndRoleSwitch(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`)
	for _, q := range readAttacks {
		rows, _, err := b.Query(ctx(t), q, nil)
		if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission {
			t.Errorf("Query(%q) = %v, %v; want a permission refusal", q, rows, err)
		}
	}
}

// A read must not end the writer's connection: the block open before it
// goes on and commits.
func TestReadCannotTerminateTheWriter(t *testing.T) {
	for _, gated := range []bool{true, false} {
		var opts []postgres.Option
		if !gated {
			opts = append(opts, postgres.WithoutGate()) // defence in depth: the reader role alone
		}
		b := mustOpen(t, pgtest.DSN(t), opts...)
		block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`)
		blk, err := b.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blk.Exec(ctx(t), `INSERT INTO t VALUES (1)`, nil); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{killWriter,
			`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'relchain'`,
			`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'relchain'`} {
			if rows, _, err := b.Query(ctx(t), q, nil); err == nil {
				t.Errorf("gate %v: Query(%q) = %v, want a refusal", gated, q, rows.Rows)
			}
		}
		if _, err := blk.Exec(ctx(t), `INSERT INTO t VALUES (2)`, nil); err != nil {
			t.Fatalf("gate %v: the writer after the reads: %v", gated, err)
		}
		if _, err := blk.ChangeDigest(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx(t), backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
			t.Fatalf("gate %v: commit after the reads: %v", gated, err)
		}
		b.Close()
	}
}

// Defence in depth: with the gate off, the reader role itself cannot read
// the server's files or pg_authid, nor switch to a more powerful role.
func TestReaderRoleCannotReadFilesOrAuthidWithoutGate(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithoutGate())
	defer b.Close()
	for _, q := range []string{
		`SELECT set_config('role','postgres',true) a, query_to_xml('select current_user, pg_read_file(''/etc/hostname'')',true,true,'') b`,
		`SELECT pg_read_file('/etc/hostname')`,
		`SELECT count(*) FROM pg_ls_dir('/')`,
		`SELECT rolname, rolpassword FROM pg_authid`,
		`SELECT set_config('role','pg_read_all_data',true) a, query_to_xml('select 1',true,true,'') b`,
		`SELECT lo_import('/etc/hostname')`,
	} {
		rows, _, err := b.Query(ctx(t), q, nil)
		if err == nil {
			t.Errorf("Query(%q) without the gate = %v, want a refusal by the server", q, rows.Rows)
			continue
		}
		if !strings.Contains(err.Error(), "permission denied") && !strings.Contains(err.Error(), "must be") {
			t.Errorf("Query(%q) without the gate: %v, want permission denied", q, err)
		}
	}
}
