// Package sqlbench holds the shared workload, run through database/sql.
package sqlbench

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

const (
	NRows       = 100_000
	UpdPerBlock = 1_000
)

// Schema: acct is the workload table; txn/blk exist only for the join in BenchmarkPrepare.
var Schema = []string{
	`CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER, name TEXT)`,
	`CREATE TABLE blk(id INTEGER PRIMARY KEY, height INTEGER NOT NULL, ts INTEGER NOT NULL)`,
	`CREATE TABLE txn(id INTEGER PRIMARY KEY, acct_id INTEGER NOT NULL REFERENCES acct(id), blk_id INTEGER NOT NULL REFERENCES blk(id), amount INTEGER NOT NULL)`,
	`CREATE INDEX txn_acct ON txn(acct_id)`,
	`CREATE INDEX txn_blk ON txn(blk_id)`,
	`CREATE UNIQUE INDEX blk_height ON blk(height)`,
}

const JoinSQL = `SELECT a.id, a.name, b.height, SUM(t.amount) AS total, COUNT(*) AS n
FROM acct AS a
JOIN txn AS t ON t.acct_id = a.id
JOIN blk AS b ON b.id = t.blk_id
WHERE b.height BETWEEN ?1 AND ?2 AND a.bal > ?3 AND a.name LIKE ?4
GROUP BY a.id, b.height
HAVING SUM(t.amount) > ?5
ORDER BY total DESC, a.id
LIMIT 10`

const UpdateSQL = `UPDATE acct SET bal = bal + ? WHERE id = ?`
const SelectSQL = `SELECT bal FROM acct WHERE id = ?`

func Path(b *testing.B) string { return filepath.Join(b.TempDir(), "bench.db") }

// Open opens a *sql.DB pinned to one connection with WAL + synchronous=FULL.
func Open(b *testing.B, driver, dsn string) *sql.DB {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode=WAL`).Scan(&mode); err != nil || mode != "wal" {
		b.Fatalf("journal_mode: %q %v", mode, err)
	}
	if _, err := db.Exec(`PRAGMA synchronous=FULL`); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func Setup(b *testing.B, db *sql.DB) {
	for _, s := range Schema {
		if _, err := db.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO acct(id, bal, name) VALUES (?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= NRows; i++ {
		if _, err := st.Exec(i, 1000, fmt.Sprintf("acct-%06d", i)); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

func Block(b *testing.B, driver string, dsn func(path string) string) {
	ctx := context.Background()
	db := Open(b, driver, dsn(Path(b)))
	Setup(b, db)
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	prep := func(q string) *sql.Stmt {
		s, err := conn.PrepareContext(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	begin, sp, upd, rel, commit := prep("BEGIN"), prep("SAVEPOINT tx"), prep(UpdateSQL), prep("RELEASE tx"), prep("COMMIT")
	rng := rand.New(rand.NewPCG(1, 2))
	ex := func(s *sql.Stmt, args ...any) {
		if _, err := s.ExecContext(ctx, args...); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		ex(begin)
		for range UpdPerBlock {
			ex(sp)
			ex(upd, rng.Int64N(100)+1, rng.Int64N(NRows)+1)
			ex(rel)
		}
		ex(commit)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*UpdPerBlock), "ns/update")
}

func PointSelect(b *testing.B, driver string, dsn func(path string) string) {
	ctx := context.Background()
	p := Path(b)
	w := Open(b, driver, dsn(p))
	Setup(b, w)
	r := Open(b, driver, dsn(p)) // separate read connection
	st, err := r.PrepareContext(ctx, SelectSQL)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var bal int64
	for b.Loop() {
		if err := st.QueryRowContext(ctx, rng.Int64N(NRows)+1).Scan(&bal); err != nil {
			b.Fatal(err)
		}
	}
	if bal == 0 {
		b.Fatal("bad bal")
	}
}

func Prepare(b *testing.B, driver string, dsn func(path string) string) {
	ctx := context.Background()
	db := Open(b, driver, dsn(Path(b)))
	Setup(b, db)
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	for b.Loop() {
		s, err := conn.PrepareContext(ctx, JoinSQL)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
