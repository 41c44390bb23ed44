package mysql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/sqlcheck"
)

// privateServer starts a MariaDB server of the test's own (its global
// settings are the test's to change; the shared server's never are) with
// more mariadbd options args, and stops it when the test ends.
func privateServer(t *testing.T, args ...string) *mysqltest.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a MariaDB server of its own")
	}
	if _, _, err := mysqltest.FindBinaries(); err != nil {
		if os.Getenv(mysqltest.EnvSkip) == "1" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "relchain-profile-*")
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := mysqltest.Start(c, dir, mysqltest.Options{Args: args})
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("start a private MariaDB: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop the private MariaDB: %v", err)
		}
		os.RemoveAll(dir)
	})
	return s
}

// adminExec runs statements as the private server's root.
func adminExec(t *testing.T, s *mysqltest.Server, stmts ...string) {
	t.Helper()
	for _, st := range stmts {
		if err := mysqltest.RunOn(ctx(t), s.DSN(), st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

// nodeOn creates database db and its least-privilege accounts on s, as
// relchain init does, and opens it as a node does.
func nodeOn(t *testing.T, s *mysqltest.Server, db string) *mysql.Backend {
	t.Helper()
	w, r, err := mysql.SetupAccounts(ctx(t), s.DSN(), db)
	if err != nil {
		t.Fatalf("SetupAccounts: %v", err)
	}
	b := mustOpen(t, w, mysql.WithReaderDSN(r))
	t.Cleanup(func() { b.Close() })
	return b
}

// runProfileBlock runs each statement as a bc-transaction of one block and
// commits it at height; it returns the block's change digest.
func runProfileBlock(t *testing.T, b backend.Backend, height int64, stmts ...string) []byte {
	t.Helper()
	c := ctx(t)
	blk, err := b.Begin(c)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	for i, st := range stmts {
		if err := blk.Savepoint(c, sqlcheck.Env{Tx: i, Time: time.Unix(1700000000, 0).UTC()}); err != nil {
			t.Fatalf("Savepoint: %v", err)
		}
		if _, err := blk.Exec(c, st, nil); err != nil {
			t.Fatalf("Exec %q: %v", st, err)
		}
		if err := blk.Release(c); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
	ch, err := blk.ChangeDigest(c)
	if err != nil {
		t.Fatalf("ChangeDigest: %v", err)
	}
	if _, err := blk.StateDigest(c); err != nil {
		t.Fatalf("StateDigest: %v", err)
	}
	if err := blk.Commit(c, backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return ch.Block
}

// The notes of issue 32's reproduction 4.
var regexBlocks = [][]string{
	{"CREATE TABLE notes (id INT PRIMARY KEY, body TEXT, m INT)"},
	{"INSERT INTO notes (id, body) VALUES (1, 'line1\nline2')", "UPDATE notes SET m = (body REGEXP 'line1.line2')"},
}

// regexDigests runs regexBlocks on b and returns each block's change
// digest and the stored m.
func regexDigests(t *testing.T, b *mysql.Backend) ([][]byte, string) {
	t.Helper()
	var out [][]byte
	for i, stmts := range regexBlocks {
		out = append(out, runProfileBlock(t, b, int64(i+1), stmts...))
	}
	rows, _, err := b.Query(ctx(t), "SELECT m FROM notes WHERE id = 1", nil)
	if err != nil || len(rows.Rows) != 1 {
		t.Fatalf("read m: %v %v", rows, err)
	}
	return out, strings.TrimSpace(string(mustJSON(t, rows.Rows[0][0])))
}

// Issue 32, reproduction 4: a server whose default_regex_flags is DOTALL
// (my.cnf, SET GLOBAL) computes REGEXP as every other node does, because
// relchain pins the flags on its own sessions: the same change digests
// and the same stored value (0: '.' does not match a newline).
func TestServerRegexFlagsDoNotChangeResults(t *testing.T) {
	s := privateServer(t)
	adminExec(t, s, "SET GLOBAL default_regex_flags = 'DOTALL'")
	dotall := nodeOn(t, s, "relchain_regex")
	if err := dotall.CheckProfile(ctx(t), nil); err != nil {
		t.Fatalf("a server with DOTALL as its default regex flags matches the profile (relchain pins the flags): %v", err)
	}
	plain := mustOpen(t, mysqltest.DSN(t))
	defer plain.Close()

	got, gotM := regexDigests(t, dotall)
	want, wantM := regexDigests(t, plain)
	if gotM != "0" || wantM != "0" {
		t.Errorf("stored m = %s on the DOTALL server, %s on the default one; want 0 on both", gotM, wantM)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("block %d: change digest %x on the DOTALL server, %x on the default one", i+1, got[i], want[i])
		}
	}
	// The read path pins them too.
	rows, _, err := dotall.Query(ctx(t), "SELECT 'line1\nline2' REGEXP 'line1.line2'", nil)
	if err != nil || len(rows.Rows) != 1 || string(mustJSON(t, rows.Rows[0][0])) != "0" {
		t.Errorf("a read on the DOTALL server: %v %v; want 0", rows, err)
	}
}

// init_connect runs SQL of the operator's on every connection of an
// account without SUPER, after which relchain pins its settings; whatever
// else it does (a session variable relchain does not know, a temporary
// table that shadows a replicated one) is outside relchain's control: a
// server with one is refused, naming it, and runs no block.
func TestServerWithInitConnectIsRefused(t *testing.T) {
	s := privateServer(t)
	adminExec(t, s, "SET GLOBAL init_connect = 'SET SESSION default_regex_flags = ''DOTALL'''")
	b := nodeOn(t, s, "relchain_initconnect")
	wantProfileError(t, b.CheckProfile(ctx(t), nil), "init_connect", "SET SESSION default_regex_flags = 'DOTALL'", "")
	_, err := b.Begin(ctx(t))
	wantProfileError(t, err, "init_connect", "SET SESSION default_regex_flags = 'DOTALL'", "")
	if backend.AsError(err) != nil {
		t.Errorf("Begin's refusal is a statement failure: %v; want a node fault", err)
	}

	// Even so, relchain's pins run after init_connect's: a session
	// variable it set is overridden on every relchain connection.
	rows, _, err := b.Query(ctx(t), "SELECT 'line1\nline2' REGEXP 'line1.line2'", nil)
	if err != nil || len(rows.Rows) != 1 || string(mustJSON(t, rows.Rows[0][0])) != "0" {
		t.Errorf("a read with init_connect setting DOTALL: %v %v; want 0", rows, err)
	}

	adminExec(t, s, "SET GLOBAL init_connect = ''")
	if err := b.CheckProfile(ctx(t), nil); err != nil {
		t.Fatalf("after init_connect was emptied: %v", err)
	}
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatalf("Begin after init_connect was emptied: %v", err)
	}
	blk.Rollback(ctx(t))
}

// A server whose row format or page size differs from the network's
// profile would fail different DDL and rows with 1118 / 1071 than the
// others: it is refused, naming the setting, its value and the value
// expected. The genesis may name another value (an override), never an
// unknown setting.
func TestServerProfileMismatchIsRefused(t *testing.T) {
	t.Run("row format", func(t *testing.T) {
		s := privateServer(t)
		b := nodeOn(t, s, "relchain_rowformat")
		// Changed while the node runs: refused before its next block.
		runProfileBlock(t, b, 1, "CREATE TABLE t (id INT PRIMARY KEY)")
		adminExec(t, s, "SET GLOBAL innodb_default_row_format = 'compact'")
		wantProfileError(t, b.CheckProfile(ctx(t), nil), "innodb_default_row_format", "compact", "dynamic")
		_, err := b.Begin(ctx(t))
		wantProfileError(t, err, "innodb_default_row_format", "compact", "dynamic")

		if err := b.CheckProfile(ctx(t), map[string]string{"innodb_default_row_format": "compact"}); err != nil {
			t.Fatalf("a genesis that names compact: %v", err)
		}
		blk, err := b.Begin(ctx(t))
		if err != nil {
			t.Fatalf("Begin under a profile the server matches: %v", err)
		}
		blk.Rollback(ctx(t))
		err = b.CheckProfile(ctx(t), map[string]string{"innodb_row_format": "compact"})
		if err == nil || !strings.Contains(err.Error(), `unknown setting "innodb_row_format"`) {
			t.Fatalf("an override of an unknown setting: %v; want it refused, naming it", err)
		}
	})
	t.Run("page size", func(t *testing.T) {
		s := privateServer(t, "--innodb-page-size=8192")
		b := nodeOn(t, s, "relchain_pagesize")
		wantProfileError(t, b.CheckProfile(ctx(t), nil), "innodb_page_size", "8192", "16384")
		_, err := b.Begin(ctx(t))
		wantProfileError(t, err, "innodb_page_size", "8192", "16384")
	})
}

// wantProfileError fails t unless err wraps a *backend.ProfileError for
// setting with those values, and says so in its text.
func wantProfileError(t *testing.T, err error, setting, have, want string) {
	t.Helper()
	var pe *backend.ProfileError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v; want a profile error naming %s", err, setting)
	}
	if pe.Setting != setting || pe.Have != have || pe.Want != want {
		t.Fatalf("profile error for %s = %q, want %q; want %s = %q, want %q", pe.Setting, pe.Have, pe.Want, setting, have, want)
	}
	for _, s := range []string{setting, "Fix:"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not say %q", err, s)
		}
	}
}

// mustJSON is v's JSON text (a row value as a client sees it).
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Trim(b, `"`)
}
