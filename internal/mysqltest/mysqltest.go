package mysqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	relmysql "github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/internal/mysqlserver"
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

var (
	once    sync.Once
	base    string // base DSN, from EnvDSN or the private server
	private *mysqlserver.Server
	tmpDir  string
	baseErr error
)

// Main runs the tests and then stops the private server, if one was
// started. Use it as a package's TestMain:
//
//	func TestMain(m *testing.M) { mysqltest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Shutdown()
	os.Exit(code)
}

// Shutdown stops the private server and removes its directory. It is safe
// to call when none was started.
func Shutdown() {
	if private != nil {
		_ = private.Stop()
		private = nil
	}
	if tmpDir != "" {
		_ = os.RemoveAll(tmpDir)
		tmpDir = ""
	}
}

func setup() {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		if _, err := mysql.ParseDSN(dsn); err != nil {
			baseErr = fmt.Errorf("%s is not a go-sql-driver/mysql DSN: %w", EnvDSN, err)
			return
		}
		base = dsn
		return
	}
	if _, _, err := mysqlserver.FindBinaries(); err != nil {
		baseErr = err
		return
	}
	dir, err := os.MkdirTemp("", "relchain-mysql-")
	if err != nil {
		baseErr = err
		return
	}
	tmpDir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := mysqlserver.Start(ctx, dir, mysqlserver.Options{})
	if err != nil {
		baseErr = err
		return
	}
	private = s
	base = s.DSN()
}

// ServerDSN returns the base DSN (no database selected), starting the
// private server on first use. It fails or skips t as described in the
// package documentation when no server is available.
func ServerDSN(t testing.TB) string {
	t.Helper()
	once.Do(setup)
	if baseErr != nil {
		msg := fmt.Sprintf("mysqltest: no MySQL/MariaDB server for tests: %v\n"+
			"Run `make test` (it installs MariaDB), or set %s to a DSN of a running server "+
			"(not the system server), or set %s=1 to skip tests that need MySQL.", baseErr, EnvDSN, EnvSkip)
		if os.Getenv(EnvSkip) == "1" {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	return base
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
	dsn, name := UncreatedDSN(t)
	Exec(t, fmt.Sprintf("CREATE DATABASE `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", name))
	return dsn
}

// Accounts creates a fresh database and its writer and reader accounts
// and returns their DSNs (mysql.Open's dsn and mysql.WithReaderDSN).
func Accounts(t testing.TB) (writerDSN, readerDSN string) {
	t.Helper()
	admin, name := UncreatedDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, r, err := relmysql.SetupAccounts(ctx, admin, name)
	if err != nil {
		t.Fatalf("mysqltest: %v", err)
	}
	wu, ru := relmysql.AccountNames(name)
	t.Cleanup(func() {
		db, err := open(ServerDSN(t))
		if err != nil {
			return
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = db.ExecContext(ctx, fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%', '%s'@'%%'", wu, ru))
	})
	return w, r
}

// UncreatedDSN returns a DSN naming a database that does not exist yet, and
// its name; whatever creates it, the database is dropped when the test ends
// (best effort).
func UncreatedDSN(t testing.TB) (dsn, name string) {
	t.Helper()
	b := ServerDSN(t)
	name = uniqueName(t)
	cfg, err := mysql.ParseDSN(b)
	if err != nil {
		t.Fatalf("mysqltest: %s: %v", EnvDSN, err)
	}
	cfg.DBName = name
	t.Cleanup(func() {
		db, err := open(b)
		if err != nil {
			return
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = db.ExecContext(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS `%s`", name))
	})
	return cfg.FormatDSN(), name
}

// Exec runs sql on the server (no database selected).
func Exec(t testing.TB, sql string) {
	t.Helper()
	db, err := open(ServerDSN(t))
	if err != nil {
		t.Fatalf("mysqltest: connect: %v", err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, sql); err != nil {
		t.Fatalf("mysqltest: %s: %v", sql, err)
	}
}

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

// uniqueName makes a database name from the test name (for a human looking
// at the server) and random bytes (for uniqueness across processes).
func uniqueName(t testing.TB) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(t.Name()) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(rnd[:]))
	return b.String()
}
