package mysql_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
)

// A node refuses to start on an account with server-wide privileges (the
// test server's administrator), saying how to fix it, unless it is told
// --unsafe-superuser.
func TestOpenRefusesAPrivilegedAccount(t *testing.T) {
	admin := mysqltest.AdminDSN(t)
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := mysql.Open(c, admin)
	if err == nil {
		b.Close()
		t.Fatal("Open as the server's administrator succeeded; want a refusal")
	}
	if !errors.Is(err, mysql.ErrPrivileged) || !strings.Contains(err.Error(), "--unsafe-superuser") ||
		!strings.Contains(err.Error(), "relchain init") {
		t.Fatalf("Open as the administrator: %v; want ErrPrivileged saying how to fix it", err)
	}
	b = mustOpen(t, admin, mysql.WithUnsafeSuperuser())
	b.Close()

	// A reader account that may write is refused too.
	w, _ := mysqltest.Accounts(t)
	if b, err := mysql.Open(c, w, mysql.WithReaderDSN(w)); err == nil {
		b.Close()
		t.Fatal("Open with the writer's account as the reader succeeded; want a refusal")
	} else if !errors.Is(err, mysql.ErrPrivileged) || !strings.Contains(err.Error(), "the reader may only SELECT") {
		t.Fatalf("Open with a writing reader: %v", err)
	}
}

// The accounts themselves hold no power beyond the node's database, with
// the gate out of the way: neither can read server files or another
// database, and the reader cannot kill the writer's connection or write.
func TestAccountsCannotReachBeyondTheNodesDatabase(t *testing.T) {
	w, r := mysqltest.Accounts(t)
	b := mustOpen(t, w, mysql.WithReaderDSN(r))
	defer b.Close()
	mysqltest.AdminDSN(t)       // another database, which the accounts must not see
	blk, err := b.Begin(ctx(t)) // holds the writer's connection
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	db, err := mysql.DatabaseName(w)
	if err != nil {
		t.Fatal(err)
	}
	wname, _ := mysql.AccountNames(db)
	var writerID int64
	admin := openRaw(t, mysqltest.ServerDSN(t))
	if err := admin.QueryRowContext(ctx(t), "SELECT MIN(ID) FROM information_schema.PROCESSLIST WHERE USER = ?", wname).Scan(&writerID); err != nil {
		t.Fatal(err)
	}
	var control []byte
	if err := admin.QueryRowContext(ctx(t), "SELECT LOAD_FILE('/etc/passwd')").Scan(&control); err != nil || control == nil {
		t.Fatalf("control: the administrator cannot read /etc/passwd either (%v): the LOAD_FILE checks would prove nothing", err)
	}
	for _, who := range []struct{ name, dsn string }{{"reader", r}, {"writer", w}} {
		conn := openRaw(t, who.dsn)
		var file []byte
		if err := conn.QueryRowContext(ctx(t), "SELECT LOAD_FILE('/etc/passwd')").Scan(&file); err == nil && file != nil {
			t.Errorf("the %s read a server file with LOAD_FILE", who.name)
		}
		var n int
		if err := conn.QueryRowContext(ctx(t), "SELECT COUNT(*) FROM information_schema.SCHEMATA "+
			"WHERE SCHEMA_NAME NOT IN ('information_schema', DATABASE())").Scan(&n); err != nil || n != 0 {
			t.Errorf("the %s sees %d other databases (%v); want none", who.name, n, err)
		}
		if _, err := conn.ExecContext(ctx(t), "SELECT COUNT(*) FROM mysql.user"); err == nil {
			t.Errorf("the %s read mysql.user", who.name)
		}
	}
	reader := openRaw(t, r)
	if _, err := reader.ExecContext(ctx(t), "KILL "+itoa(int(writerID))); err == nil {
		t.Error("the reader killed the writer's connection")
	}
	if _, err := reader.ExecContext(ctx(t), "CREATE TABLE t_reader (a INT)"); err == nil {
		t.Error("the reader created a table")
	}
}
