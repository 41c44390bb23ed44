package pgsetup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The DSN query parameters naming the reader role (see SplitDSN).
const (
	ParamReader         = "relchain_reader"
	ParamReaderPassword = "relchain_reader_password"
)

// ReaderTempFileLimit is the temp_file_limit Provision sets on the reader
// role (only a superuser may set it): a query that sorts or hashes more
// spills no further than this.
const ReaderTempFileLimit = "1GB"

// maxIdent is PostgreSQL's identifier length (NAMEDATALEN-1).
const maxIdent = 63

// Roles returns the writer and reader role names of database db.
func Roles(db string) (writer, reader string) {
	base := db
	if len(base) > maxIdent-len("_writer") {
		base = base[:maxIdent-len("_writer")]
	}
	return base + "_writer", base + "_reader"
}

// SplitDSN separates a node DSN into the writer's DSN (without the reader
// parameters) and the reader's DSN: the same server and database, as the
// role the parameters name, or else, for a writer role named <x>_writer, as
// <x>_reader with the writer's password. Otherwise there is no reader:
// readerDSN is "".
func SplitDSN(dsn string) (writerDSN, readerDSN string, err error) {
	u, perr := url.Parse(dsn)
	if perr != nil || u.Scheme == "" {
		if strings.Contains(dsn, ParamReader) {
			return "", "", fmt.Errorf("pgsetup: a DSN with %s must be a postgres:// URL", ParamReader)
		}
		return dsn, "", nil // key=value form: no reader
	}
	q := u.Query()
	reader, password := q.Get(ParamReader), q.Get(ParamReaderPassword)
	explicit := q.Has(ParamReader)
	q.Del(ParamReader)
	q.Del(ParamReaderPassword)
	u.RawQuery = q.Encode()
	writerDSN = u.String()
	if explicit && reader == "" {
		return "", "", fmt.Errorf("pgsetup: DSN parameter %s is empty", ParamReader)
	}
	writer := u.User.Username()
	writerPassword, _ := u.User.Password()
	if !explicit {
		if !strings.HasSuffix(writer, "_writer") {
			return writerDSN, "", nil
		}
		reader, password = strings.TrimSuffix(writer, "_writer")+"_reader", writerPassword
	}
	if password == "" {
		u.User = url.User(reader)
	} else {
		u.User = url.UserPassword(reader, password)
	}
	return writerDSN, u.String(), nil
}

// Provision makes the database adminDSN names (a URL whose user may create
// roles and databases, normally a superuser) ready for a node: it creates
// the database (UTF8, collation C) if missing, creates or updates the
// writer and reader roles with a fresh password, hands the database and its
// relchain-owned objects to the writer (migrating a database installed by
// an older relchain: its event triggers are dropped) and returns the node
// DSN, which connects as the writer (the reader follows, see SplitDSN).
func Provision(ctx context.Context, adminDSN string) (string, error) {
	u, err := url.Parse(adminDSN)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("pgsetup: the admin DSN must be a postgres:// URL naming the node's database, not %q", adminDSN)
	}
	cfg, err := pgx.ParseConfig(adminDSN)
	if err != nil {
		return "", fmt.Errorf("pgsetup: parse admin dsn: %w", err)
	}
	db := cfg.Database
	if db == "" || db == "postgres" || strings.HasPrefix(db, "template") {
		return "", fmt.Errorf("pgsetup: the admin DSN must name the node's own database (e.g. relchain_node0), not %q", db)
	}
	writer, reader := Roles(db)
	pw := password()
	if err := setupServer(ctx, cfg, db, writer, reader, pw); err != nil {
		return "", err
	}
	if err := setupDatabase(ctx, cfg, writer, reader); err != nil {
		return "", err
	}
	u.User = url.UserPassword(writer, pw)
	return u.String(), nil
}

func password() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// setupServer creates the roles and the database through the maintenance
// database "postgres".
func setupServer(ctx context.Context, admin *pgx.ConnConfig, db, writer, reader, pw string) error {
	maint := admin.Copy()
	maint.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, maint)
	if err != nil {
		return fmt.Errorf("pgsetup: connect as administrator: %w", err)
	}
	defer conn.Close(context.Background())
	for _, r := range []struct{ name, attrs string }{{writer, writerAttrs}, {reader, roleAttrs}} {
		if err := ensureRole(ctx, conn, r.name, r.attrs, pw); err != nil {
			return err
		}
	}
	d, w, rd := ident(db), ident(writer), ident(reader)
	_, err = conn.Exec(ctx, fmt.Sprintf(`CREATE DATABASE %s OWNER %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`, d, w))
	var pgErr *pgconn.PgError
	if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "42P04") { // exists
		return fmt.Errorf("pgsetup: create database %s: %w", db, err)
	}
	for _, s := range []string{
		fmt.Sprintf(`ALTER DATABASE %s OWNER TO %s`, d, w),
		fmt.Sprintf(`REVOKE ALL ON DATABASE %s FROM PUBLIC`, d),
		fmt.Sprintf(`GRANT CONNECT ON DATABASE %s TO %s`, d, rd),
		fmt.Sprintf(`ALTER ROLE %s SET temp_file_limit = '%s'`, rd, ReaderTempFileLimit),
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("pgsetup: %s: %w", s, err)
		}
	}
	return nil
}

// roleAttrs are the attributes of the reader: able to log in, nothing
// more. The writer may also create databases (writerAttrs): recovery
// (relchain recover) restores a checkpoint into a new database beside the
// node's and renames it into place, which needs CREATEDB and ownership.
// Both INHERIT (the default): they are members of no role, but the owner of
// a database is implicitly a member of pg_database_owner, which owns schema
// public in a database the writer creates (PostgreSQL 15 and later).
const (
	roleAttrs   = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
	writerAttrs = "LOGIN NOSUPERUSER CREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
)

func ensureRole(ctx context.Context, conn *pgx.Conn, name, attrs, pw string) error {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("pgsetup: look up role %s: %w", name, err)
	}
	verb := "CREATE"
	if exists {
		verb = "ALTER"
	}
	// A password cannot be a parameter of CREATE ROLE; pw is hex.
	s := fmt.Sprintf(`%s ROLE %s %s PASSWORD '%s'`, verb, ident(name), attrs, pw)
	if _, err := conn.Exec(ctx, s); err != nil {
		return fmt.Errorf("pgsetup: %s role %s: %w", strings.ToLower(verb), name, err)
	}
	return nil
}

// setupDatabase hands schema public and whatever an older relchain left
// (event triggers, objects owned by the administrator) to the writer.
func setupDatabase(ctx context.Context, admin *pgx.ConnConfig, writer, reader string) error {
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("pgsetup: connect to %s as administrator: %w", admin.Database, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, databaseSQL(writer, reader)); err != nil {
		return fmt.Errorf("pgsetup: prepare database %s: %w", admin.Database, err)
	}
	return nil
}

// databaseSQL is run in the node's database by an administrator.
func databaseSQL(writer, reader string) string {
	w, r := ident(writer), ident(reader)
	return `DROP EVENT TRIGGER IF EXISTS relchain_on_ddl;
DROP EVENT TRIGGER IF EXISTS relchain_on_drop;
ALTER SCHEMA public OWNER TO ` + w + `;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO ` + r + `;
DO $do$
DECLARE o record;
BEGIN
	IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'relchain') THEN
		EXECUTE 'ALTER SCHEMA relchain OWNER TO ` + w + `';
	END IF;
	FOR o IN SELECT format('%I.%I', n.nspname, c.relname) AS name, c.relkind FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname IN ('public', 'relchain') AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
			-- A sequence of a column follows its table.
			AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
	LOOP
		EXECUTE format('ALTER %s %s OWNER TO ` + w + `',
			CASE o.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
				WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, o.name);
	END LOOP;
	FOR o IN SELECT p.oid::regprocedure AS name, p.prokind FROM pg_proc p
		JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname IN ('public', 'relchain')
	LOOP
		EXECUTE format('ALTER %s %s OWNER TO ` + w + `',
			CASE o.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, o.name);
	END LOOP;
END
$do$;`
}

// SetupSQL is the one-time SQL an operator runs as a superuser (psql) to
// prepare database db for a node, instead of letting relchain init do it
// with an administrator's DSN. Replace PASSWORD (both roles share it, see
// SplitDSN); the node's DSN is then
//
//	postgres://<db>_writer:PASSWORD@HOST:PORT/<db>?sslmode=...
func SetupSQL(db string) string {
	writer, reader := Roles(db)
	d, w, r := ident(db), ident(writer), ident(reader)
	var b strings.Builder
	fmt.Fprintf(&b, "-- relchain: least-privilege roles and database %s (run once, as a superuser).\n", db)
	fmt.Fprintf(&b, "-- An existing role of the same name is altered instead: ALTER ROLE ... instead of CREATE ROLE.\n")
	fmt.Fprintf(&b, "CREATE ROLE %s %s PASSWORD 'PASSWORD';\n", w, writerAttrs)
	fmt.Fprintf(&b, "CREATE ROLE %s %s PASSWORD 'PASSWORD';\n", r, roleAttrs)
	fmt.Fprintf(&b, "ALTER ROLE %s SET temp_file_limit = '%s';\n", r, ReaderTempFileLimit)
	fmt.Fprintf(&b, "-- Skip CREATE DATABASE for a database an older relchain created; the rest migrates it.\n")
	fmt.Fprintf(&b, "CREATE DATABASE %s OWNER %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';\n", d, w)
	fmt.Fprintf(&b, "ALTER DATABASE %s OWNER TO %s;\n", d, w)
	fmt.Fprintf(&b, "REVOKE ALL ON DATABASE %s FROM PUBLIC;\n", d)
	fmt.Fprintf(&b, "GRANT CONNECT ON DATABASE %s TO %s;\n", d, r)
	fmt.Fprintf(&b, "\\connect %s\n", d)
	b.WriteString(databaseSQL(writer, reader))
	b.WriteString("\n")
	return b.String()
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }
