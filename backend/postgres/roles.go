package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// roleFixHint says how to give a node least-privilege roles.
const roleFixHint = "Fix: let `relchain init`/`testnet`/`localnet` create the node's roles from an administrator's DSN " +
	"(--dsn/--dsn-template), or run the SQL `relchain init --print-pg-setup --dsn ...` prints and connect as " +
	"<db>_writer (the reader <db>_reader follows); start with --unsafe-superuser only for tests"

// checkRole refuses a role (the session's) with more power than relchain
// needs, unless unsafe: a superuser, CREATEROLE, BYPASSRLS, REPLICATION, or
// membership in any role (pg_read_server_files, pg_signal_backend,
// pg_execute_server_program, another node's role ...), since SET ROLE and
// set_config('role', ...) switch to any role one is a member of.
func checkRole(ctx context.Context, conn *pgx.Conn, what string, unsafe bool) error {
	if unsafe {
		return nil
	}
	var name string
	var super, createRole, bypassRLS, replication bool
	var memberOf []string
	err := conn.QueryRow(ctx, `SELECT r.rolname, r.rolsuper, r.rolcreaterole, r.rolbypassrls, r.rolreplication,
			ARRAY(SELECT g.rolname::text FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
				WHERE m.member = r.oid ORDER BY 1)
		FROM pg_roles r WHERE r.rolname = session_user`).
		Scan(&name, &super, &createRole, &bypassRLS, &replication, &memberOf)
	if err != nil {
		return fmt.Errorf("postgres: inspect the %s role: %w", what, err)
	}
	var powers []string
	for _, p := range []struct {
		has  bool
		name string
	}{{super, "SUPERUSER"}, {createRole, "CREATEROLE"}, {bypassRLS, "BYPASSRLS"}, {replication, "REPLICATION"}} {
		if p.has {
			powers = append(powers, p.name)
		}
	}
	if len(memberOf) > 0 {
		powers = append(powers, "membership in "+strings.Join(memberOf, ", "))
	}
	if len(powers) == 0 {
		return nil
	}
	return fmt.Errorf("postgres: the %s role %q has %s; relchain refuses to run with more privilege than it needs "+
		"(a statement that slipped past the gate could read the server's files or end other sessions). %s",
		what, name, strings.Join(powers, ", "), roleFixHint)
}

// checkReader connects as the reader and checks its role.
func checkReader(ctx context.Context, cfg *pgx.ConnConfig, unsafe bool) error {
	if unsafe {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("postgres: connect as the reader role %q: %w", cfg.User, err)
	}
	defer conn.Close(context.Background())
	return checkRole(ctx, conn, "reader", false)
}

// migrateEventTriggers deals with a database installed by an older
// relchain, whose event triggers (relchain_on_ddl, relchain_on_drop)
// attached change capture; blocks now do it themselves (see afterDDL).
// A superuser drops them; any other role cannot, and Open refuses.
func migrateEventTriggers(ctx context.Context, conn *pgx.Conn) error {
	var names []string
	var super bool
	err := conn.QueryRow(ctx, `SELECT ARRAY(SELECT evtname::text FROM pg_event_trigger
			WHERE evtname IN ('relchain_on_ddl', 'relchain_on_drop') ORDER BY 1),
		current_setting('is_superuser') = 'on'`).Scan(&names, &super)
	if err != nil {
		return fmt.Errorf("postgres: look for old event triggers: %w", err)
	}
	if len(names) == 0 {
		return nil
	}
	if !super {
		return fmt.Errorf("postgres: database %q was installed by an older relchain: it has the event triggers %s, "+
			"which only a superuser can drop, and its objects may be owned by the superuser. "+
			"Fix: run `relchain init --print-pg-setup --dsn <the node's DSN>` and execute its SQL as a superuser "+
			"(it drops the event triggers and hands the objects to the writer role)",
			conn.Config().Database, strings.Join(names, ", "))
	}
	for _, n := range names {
		if _, err := conn.Exec(ctx, "DROP EVENT TRIGGER IF EXISTS "+pgx.Identifier{n}.Sanitize()); err != nil {
			return fmt.Errorf("postgres: drop old event trigger %s: %w", n, err)
		}
	}
	return nil
}

// readerGrants lets reader (a quoted identifier) connect (and no one else
// but the writer, also in a database recovery created) and read what
// Query and the state readers need: every table of public, present and future (the
// writer creates them all), relchain's height and table sums, and the row
// history (HistoryReader reads it on the pool; the gate refuses relchain's
// schema to every client statement). Nothing
// else of relchain's schema (change records, system keys) is granted.
// REFERENCES is granted with SELECT so that information_schema's
// table_constraints and referential_constraints, which show a constraint
// only to a role with a privilege beyond SELECT on its table, show the
// reader this database's keys (GORM's HasConstraint, Sequelize's foreign
// keys); it lets no one do anything: REFERENCES only allows making a
// foreign key to the table, and the reader can create no table (no CREATE
// on any schema, no TEMP on the database).
func readerGrants(reader string) string {
	return `
DO $do$ BEGIN
	EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
	EXECUTE format('GRANT CONNECT ON DATABASE %I TO %s', current_database(), '` + strings.ReplaceAll(reader, "'", "''") + `');
END $do$;
GRANT USAGE ON SCHEMA public TO ` + reader + `;
GRANT SELECT, REFERENCES ON ALL TABLES IN SCHEMA public TO ` + reader + `;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, REFERENCES ON TABLES TO ` + reader + `;
GRANT USAGE ON SCHEMA relchain TO ` + reader + `;
GRANT SELECT ON relchain.meta, relchain.digest, relchain.system, relchain.format, relchain.sequences, relchain.history_blocks, relchain.history_versions, relchain.history_states, relchain.history_roots TO ` + reader + `;
`
}
