package mysqltest

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend/internal/serverdb"
	relmysql "github.com/relchain/relchain/backend/mysql"
)

// Environment variables read by this package.
const (
	// EnvDSN names a base DSN on an existing server, e.g.
	// root@tcp(127.0.0.1:3307)/. When set, no private server is started.
	EnvDSN = "RELCHAIN_TEST_MYSQL"
	// EnvSkip, when "1", makes tests that need MySQL skip instead of fail
	// when no server can be found or started.
	EnvSkip = "RELCHAIN_SKIP_MYSQL"
)

// server is the MySQL/MariaDB server the tests of this process share.
var server = &serverdb.TestServer{
	Pkg: "mysqltest", What: "MySQL/MariaDB", EnvDSN: EnvDSN, EnvSkip: EnvSkip,
	CheckDSN: func(dsn string) error { _, err := mysql.ParseDSN(dsn); return err },
	Hint:     "a go-sql-driver/mysql DSN (root@tcp(127.0.0.1:3307)/)",
	Find:     func() error { _, _, err := FindBinaries(); return err },
	Start: func(ctx context.Context, dir string) (serverdb.Running, error) {
		return Start(ctx, dir, Options{})
	},
	Run:          run,
	WithDatabase: withDatabase,
	DropDatabase: func(name string) string { return fmt.Sprintf("DROP DATABASE IF EXISTS `%s`", name) },
}

// DSN creates a fresh, empty database (utf8mb4, collation utf8mb4_bin)
// unique to this test and its least-privilege writer and reader accounts
// (as relchain init does, see mysql.SetupAccounts), and returns the
// writer's DSN for it: tests open backends as a node does. The database
// and accounts are dropped when the test ends (best effort).
func DSN(t testing.TB) string {
	t.Helper()
	w, _ := Accounts(t)
	return w
}

// AdminDSN creates a fresh, empty database as DSN does, without accounts,
// and returns a DSN of the server's administrator for it.
func AdminDSN(t testing.TB) string {
	t.Helper()
	dsn, name := server.UncreatedDSN(t)
	Exec(t, fmt.Sprintf("CREATE DATABASE `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", name))
	return dsn
}

// Accounts creates a fresh database and its writer and reader accounts
// and returns their DSNs (mysql.Open's dsn and mysql.WithReaderDSN).
func Accounts(t testing.TB) (writerDSN, readerDSN string) {
	t.Helper()
	admin, name := server.UncreatedDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, r, err := relmysql.SetupAccounts(ctx, admin, name)
	if err != nil {
		t.Fatalf("mysqltest: %v", err)
	}
	wu, ru := relmysql.AccountNames(name)
	t.Cleanup(func() {
		server.BestEffort(ServerDSN(t), fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%', '%s'@'%%'", wu, ru))
	})
	return w, r
}

// withDatabase is base naming database name instead.
func withDatabase(base, name string) (string, error) {
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		return "", err
	}
	cfg.DBName = name
	return cfg.FormatDSN(), nil
}

// RunOn runs sql on the server of dsn (a server of the test's own, say),
// on a connection of its own.
func RunOn(ctx context.Context, dsn, sql string) error { return run(ctx, dsn, sql) }

// run runs sql on the server of dsn, on a connection of its own.
func run(ctx context.Context, dsn, sql string) error {
	db, err := open(dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, sql)
	return err
}

// open opens dsn with one connection at most.
func open(dsn string) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	return db, nil
}
