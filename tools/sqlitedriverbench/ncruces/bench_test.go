package ncruces

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver"
	"sqlitebench/sqlbench"
)

// ---- low-level API ----

func open(b *testing.B, path string) *sqlite3.Conn {
	c, err := sqlite3.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if err := c.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL`); err != nil {
		b.Fatal(err)
	}
	return c
}

func prep(b *testing.B, c *sqlite3.Conn, q string) *sqlite3.Stmt {
	s, tail, err := c.Prepare(q)
	if err != nil {
		b.Fatal(err)
	}
	if tail != "" {
		b.Fatalf("unexpected tail %q", tail)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func setup(b *testing.B, c *sqlite3.Conn) {
	for _, s := range sqlbench.Schema {
		if err := c.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Exec("BEGIN"); err != nil {
		b.Fatal(err)
	}
	ins := prep(b, c, `INSERT INTO acct(id, bal, name) VALUES (?, ?, ?)`)
	for i := 1; i <= sqlbench.NRows; i++ {
		ins.BindInt64(1, int64(i))
		ins.BindInt64(2, 1000)
		ins.BindText(3, fmt.Sprintf("acct-%06d", i))
		if err := ins.Exec(); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Exec("COMMIT"); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkBlock(b *testing.B) {
	c := open(b, sqlbench.Path(b))
	setup(b, c)
	begin, sp, upd, rel, commit := prep(b, c, "BEGIN"), prep(b, c, "SAVEPOINT tx"), prep(b, c, sqlbench.UpdateSQL), prep(b, c, "RELEASE tx"), prep(b, c, "COMMIT")
	rng := rand.New(rand.NewPCG(1, 2))
	ex := func(s *sqlite3.Stmt) {
		if err := s.Exec(); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		ex(begin)
		for range sqlbench.UpdPerBlock {
			ex(sp)
			upd.BindInt64(1, rng.Int64N(100)+1)
			upd.BindInt64(2, rng.Int64N(sqlbench.NRows)+1)
			ex(upd)
			ex(rel)
		}
		ex(commit)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sqlbench.UpdPerBlock), "ns/update")
}

func BenchmarkPointSelect(b *testing.B) {
	p := sqlbench.Path(b)
	w := open(b, p)
	setup(b, w)
	r := open(b, p)
	st := prep(b, r, sqlbench.SelectSQL)
	rng := rand.New(rand.NewPCG(3, 4))
	var bal int64
	for b.Loop() {
		st.BindInt64(1, rng.Int64N(sqlbench.NRows)+1)
		if !st.Step() {
			b.Fatal("no row", st.Err())
		}
		bal = st.ColumnInt64(0)
		if err := st.Reset(); err != nil {
			b.Fatal(err)
		}
	}
	if bal == 0 {
		b.Fatal("bad bal")
	}
}

func BenchmarkPrepare(b *testing.B) {
	c := open(b, sqlbench.Path(b))
	setup(b, c)
	for b.Loop() {
		s, _, err := c.Prepare(sqlbench.JoinSQL)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// ---- database/sql via github.com/ncruces/go-sqlite3/driver ----

func dsn(p string) string { return "file:" + p }

func BenchmarkSQLBlock(b *testing.B)       { sqlbench.Block(b, "sqlite3", dsn) }
func BenchmarkSQLPointSelect(b *testing.B) { sqlbench.PointSelect(b, "sqlite3", dsn) }
func BenchmarkSQLPrepare(b *testing.B)     { sqlbench.Prepare(b, "sqlite3", dsn) }

// ---- feature smoke test: tail, authorizer, update hook, preupdate hook, backup ----

func TestFeatures(t *testing.T) {
	c, err := sqlite3.Open(t.TempDir() + "/f.db")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var denied, updates, preupdates int
	if err := c.SetAuthorizer(func(a sqlite3.AuthorizerActionCode, n3, n4, schema, inner string) sqlite3.AuthorizerReturnCode {
		if a == sqlite3.AUTH_DROP_TABLE {
			denied++
			return sqlite3.AUTH_DENY
		}
		return sqlite3.AUTH_OK
	}); err != nil {
		t.Fatal(err)
	}
	c.UpdateHook(func(op sqlite3.AuthorizerActionCode, schema, table string, rowid int64) { updates++ })
	c.PreUpdateHook(func(sqlite3.PreUpdateData) { preupdates++ })
	s, tail, err := c.Prepare("CREATE TABLE t(x); INSERT INTO t VALUES (1); DROP TABLE t;")
	if err != nil {
		t.Fatal(err)
	}
	s.Exec()
	s.Close()
	t.Logf("tail after first stmt: %q", tail)
	if err := c.Exec(tail); err == nil {
		t.Fatal("expected DROP to be denied")
	}
	t.Logf("denied=%d updates=%d preupdates=%d", denied, updates, preupdates)
	if err := c.Backup("main", t.TempDir()+"/bk.db"); err != nil {
		t.Fatal(err)
	}
}
