package mysql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"
)

// WriterPrivileges are the privileges SetupAccounts grants the writer on
// the node's database (and on the databases a checkpoint recovery stages
// beside it, <db>_*): what blocks, capture triggers, the DDL recovery
// records and a recovery's database swap need, nothing server-wide.
const WriterPrivileges = "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, TRIGGER, CREATE VIEW, SHOW VIEW, REFERENCES"

// AccountSQL is the one-time SQL an operator runs as an administrator to
// create the node's database and its two least-privilege accounts (what
// SetupAccounts runs): the writer with WriterPrivileges on db and on
// db_* (checkpoint recovery), the reader with SELECT on db only. The
// GRANT patterns escape '_' and '%', which GRANT reads as wildcards.
func AccountSQL(db, writer, writerPassword, reader, readerPassword string) []string {
	own := quoteIdent(grantPattern(db))
	staged := quoteIdent(grantPattern(db) + `\_%`)
	w, r := quoteString(writer)+"@'%'", quoteString(reader)+"@'%'"
	return []string{
		"CREATE DATABASE IF NOT EXISTS " + quoteIdent(db) + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
		"CREATE USER IF NOT EXISTS " + w + " IDENTIFIED BY " + quoteString(writerPassword),
		"ALTER USER " + w + " IDENTIFIED BY " + quoteString(writerPassword),
		"CREATE USER IF NOT EXISTS " + r + " IDENTIFIED BY " + quoteString(readerPassword),
		"ALTER USER " + r + " IDENTIFIED BY " + quoteString(readerPassword),
		"GRANT " + WriterPrivileges + " ON " + own + ".* TO " + w,
		"GRANT " + WriterPrivileges + " ON " + staged + ".* TO " + w,
		"GRANT SELECT ON " + own + ".* TO " + r,
	}
}

// AccountNames are the writer's and reader's account names for database
// db: short (MySQL allows 32 characters) and distinct per database.
func AccountNames(db string) (writer, reader string) {
	h := sha256.Sum256([]byte(db))
	id := hex.EncodeToString(h[:6])
	return "relchain_w_" + id, "relchain_r_" + id
}

// SetupAccounts connects with adminDSN (an account that may create
// databases, users and grants; its database part is ignored), creates
// database db and its writer and reader accounts with fresh random
// passwords (AccountSQL), and returns the DSNs a node opens them with
// (Open's dsn and WithReaderDSN). Run again, it resets the passwords.
func SetupAccounts(ctx context.Context, adminDSN, db string) (writerDSN, readerDSN string, err error) {
	cfg, err := gomysql.ParseDSN(adminDSN)
	if err != nil {
		return "", "", fmt.Errorf("mysql: parse admin dsn: %w", err)
	}
	admin := cfg.Clone()
	admin.DBName = ""
	conn, err := gomysql.NewConnector(admin)
	if err != nil {
		return "", "", fmt.Errorf("mysql: %w", err)
	}
	sdb := sql.OpenDB(conn)
	defer sdb.Close()
	sdb.SetMaxOpenConns(1)
	wname, rname := AccountNames(db)
	wpass, rpass := randomPassword(), randomPassword()
	for _, s := range AccountSQL(db, wname, wpass, rname, rpass) {
		if _, err := sdb.ExecContext(ctx, s); err != nil {
			return "", "", fmt.Errorf("mysql: set up accounts of %q: %w", db, err)
		}
	}
	dsnOf := func(user, pass string) string {
		c := cfg.Clone()
		c.User, c.Passwd, c.DBName = user, pass, db
		return c.FormatDSN()
	}
	return dsnOf(wname, wpass), dsnOf(rname, rpass), nil
}

func randomPassword() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// grantPattern escapes the GRANT wildcards '_' and '%' in a database name.
func grantPattern(db string) string {
	return strings.NewReplacer(`\`, `\\`, "_", `\_`, "%", `\%`).Replace(db)
}

// ErrPrivileged is wrapped by Open's error when an account holds
// privileges relchain refuses (see checkAccounts).
var ErrPrivileged = errors.New("account holds privileges a relchain node must not have")

// checkAccounts refuses accounts that hold server-wide privileges (SUPER,
// FILE, PROCESS, SHUTDOWN, CREATE USER, REPLICATION ..., even a global
// SELECT), GRANT OPTION, PROXY, roles, or privileges on databases other
// than the node's (and the writer's <db>_* recovery databases); and a
// reader (when it has its own account) that may do more than SELECT.
// WithUnsafeSuperuser skips the check.
func (b *Backend) checkAccounts(ctx context.Context, separateReader bool) error {
	if b.opts.unsafeSuper {
		return nil
	}
	if err := b.checkGrants(ctx, b.internal, "writer", false); err != nil {
		return err
	}
	if separateReader {
		return b.checkGrants(ctx, b.readers, "reader", true)
	}
	return nil
}

func (b *Backend) checkGrants(ctx context.Context, db *sql.DB, role string, readOnly bool) error {
	grants, err := showGrants(ctx, db)
	if err != nil {
		return fmt.Errorf("mysql: read the %s account's grants: %w", role, err)
	}
	var bad []string
	for _, g := range grants {
		if why := b.judgeGrant(g, readOnly); why != "" {
			bad = append(bad, why+" ("+redactGrant(g)+")")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	w, r := AccountNames(b.dbName)
	return fmt.Errorf("mysql: the %s %w: %s. Fix: connect as dedicated accounts — `relchain init` "+
		"with an admin --dsn creates them (writer %s, reader %s; the SQL is in backend/mysql/DESIGN.md) — "+
		"or revoke those privileges; --unsafe-superuser starts the node anyway (tests only)",
		role, ErrPrivileged, strings.Join(bad, "; "), w, r)
}

func showGrants(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// judgeGrant returns why one SHOW GRANTS line is refused, or "".
func (b *Backend) judgeGrant(g string, readOnly bool) string {
	up := strings.ToUpper(g)
	if strings.Contains(up, "WITH GRANT OPTION") {
		return "GRANT OPTION"
	}
	rest, ok := strings.CutPrefix(up, "GRANT ")
	if !ok {
		return "an unrecognised grant"
	}
	privs, target, ok := strings.Cut(rest, " ON ")
	if !ok {
		return "a role (its privileges are not checked)"
	}
	target, _, _ = strings.Cut(target, " TO ")
	if strings.HasPrefix(privs, "PROXY") {
		return "PROXY"
	}
	if strings.HasPrefix(target, "*.*") {
		if strings.TrimSpace(privs) == "USAGE" {
			return ""
		}
		return "server-wide privileges " + strings.TrimSpace(privs)
	}
	// The target as printed: `db`.* or `db`.`table` (case as granted).
	_, origTarget, _ := strings.Cut(g[len("GRANT "):], " ON ")
	dbPart, _, _ := strings.Cut(origTarget, ".")
	name := strings.ReplaceAll(strings.Trim(dbPart, "`"), "``", "`")
	own := name == grantPattern(b.dbName) || name == b.dbName
	switch {
	case readOnly && own:
		for _, p := range strings.Split(privs, ",") {
			if p = strings.TrimSpace(p); p != "SELECT" && p != "USAGE" {
				return "privilege " + p + " (the reader may only SELECT)"
			}
		}
		return ""
	case own, !readOnly && recoveryRelative(name, b.dbName):
		return ""
	}
	return "privileges on another database " + dbPart
}

// redactGrant drops a password hash from a grant line.
func redactGrant(g string) string {
	if i := strings.Index(strings.ToUpper(g), " IDENTIFIED BY"); i >= 0 {
		return g[:i]
	}
	return g
}

// recoveryRelative reports whether a writer's grant on database pattern
// p belongs to the recovery family of database db: p is <x>\_% with db
// equal to x or starting with x_ (the grant SetupAccounts makes for the
// databases a checkpoint recovery stages), or p is x itself and db starts
// with x_ (the writer opening a staged database).
func recoveryRelative(p, db string) bool {
	if prefix, ok := strings.CutSuffix(p, `\_%`); ok {
		x := unescapeGrant(prefix)
		return db == x || strings.HasPrefix(db, x+"_")
	}
	x := unescapeGrant(p)
	return strings.HasPrefix(db, x+"_")
}

// unescapeGrant undoes grantPattern.
func unescapeGrant(p string) string {
	return strings.NewReplacer(`\\`, `\`, `\_`, "_", `\%`, "%").Replace(p)
}
