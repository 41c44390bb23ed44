// Command compat-go is the compatibility suite's Go clients (run by
// test/compat_test.go with go run): pgx v5 (a pool, parameters, types, a
// transaction, a 40001 conflict retried) and GORM with its PostgreSQL
// driver (AutoMigrate twice, CRUD, a transaction), each as its users
// write it. It is a module of its own so that GORM stays out of
// relchain's go.mod.
//
// Usage: go run . pgx|gorm URL PREFIX
// It prints one JSON line per step: {"step", "ok", "error"}, and
// {"check": SQL} for the queries every validator must agree on.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func step(name string, fn func() error) bool {
	err := fn()
	if err != nil {
		msg := err.Error()
		if len(msg) > 400 {
			msg = msg[:400]
		}
		emit(map[string]any{"step": name, "ok": false, "error": msg})
		return false
	}
	emit(map[string]any{"step": name, "ok": true})
	return true
}

func check(sql string) { emit(map[string]string{"check": sql}) }

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: compat-go pgx|gorm URL PREFIX")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	switch os.Args[1] {
	case "pgx":
		runPgx(ctx, os.Args[2], os.Args[3])
	case "gorm":
		runGorm(ctx, os.Args[2], os.Args[3])
	default:
		fmt.Fprintln(os.Stderr, "unknown client", os.Args[1])
		os.Exit(2)
	}
}

// conflict runs the same read-modify-write transaction in two sessions,
// interleaved (both read, both write, both commit): one gets 40001 and
// retries alone. begin starts a transaction of session i; read and write
// run inside it; commit and rollback end it.
type session interface {
	read() (int, error)
	write(n int) error
	commit() error
	rollback()
	begin() error
}

func conflict(s [2]session) ([]string, error) {
	var codes []string
	var seen [2]int
	for i := range s {
		if err := s[i].begin(); err != nil {
			return nil, err
		}
		n, err := s[i].read()
		if err != nil {
			return nil, err
		}
		seen[i] = n
	}
	for i := range s {
		err := s[i].write(seen[i] + 1)
		if err == nil {
			err = s[i].commit()
		}
		if err == nil {
			continue
		}
		codes = append(codes, sqlstate(err))
		s[i].rollback()
		for attempt := 0; attempt < 5; attempt++ {
			err := s[i].begin()
			if err == nil {
				var n int
				if n, err = s[i].read(); err == nil {
					if err = s[i].write(n + 1); err == nil {
						err = s[i].commit()
					}
				}
			}
			if err == nil {
				break
			}
			codes = append(codes, sqlstate(err))
			s[i].rollback()
		}
	}
	return codes, nil
}

type pgxSession struct {
	ctx   context.Context
	conn  *pgx.Conn
	tx    pgx.Tx
	table string
}

func (s *pgxSession) begin() (err error) { s.tx, err = s.conn.Begin(s.ctx); return err }
func (s *pgxSession) read() (n int, err error) {
	err = s.tx.QueryRow(s.ctx, "SELECT n FROM "+s.table+" WHERE id = 1").Scan(&n)
	return n, err
}
func (s *pgxSession) write(n int) error {
	_, err := s.tx.Exec(s.ctx, "UPDATE "+s.table+" SET n = $1 WHERE id = 1", n)
	return err
}
func (s *pgxSession) commit() error { return s.tx.Commit(s.ctx) }
func (s *pgxSession) rollback()     { _ = s.tx.Rollback(s.ctx) }

func runPgx(ctx context.Context, url, p string) {
	var pool *pgxpool.Pool
	if !step("connect (pgxpool)", func() (err error) {
		pool, err = pgxpool.New(ctx, url)
		if err == nil {
			err = pool.Ping(ctx)
		}
		return err
	}) {
		return
	}
	defer pool.Close()
	at := time.Date(2026, 12, 1, 23, 9, 33, 293245000, time.UTC)
	step("create table, insert with parameters", func() error {
		if _, err := pool.Exec(ctx, "CREATE TABLE "+p+"_item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC(8,2), at TIMESTAMPTZ, tags TEXT[])"); err != nil {
			return err
		}
		_, err := pool.Exec(ctx, "INSERT INTO "+p+"_item (id, name, price, at, tags) VALUES ($1, $2, $3, $4, $5), (2, 'ink', NULL, NULL, NULL)",
			1, "pen", "1.50", at, []string{"a", "b"})
		return err
	})
	step("read numeric, timestamptz, text[] back", func() error {
		var name, price string
		var got time.Time
		var tags []string
		if err := pool.QueryRow(ctx, "SELECT name, price::text, at, tags FROM "+p+"_item WHERE id = $1", 1).Scan(&name, &price, &got, &tags); err != nil {
			return err
		}
		if name != "pen" || price != "1.50" || !got.Equal(at) || strings.Join(tags, ",") != "a,b" {
			return fmt.Errorf("read back %q %q %v %v", name, price, got, tags)
		}
		return nil
	})
	step("pgx.CollectRows, a batch", func() error {
		b := &pgx.Batch{}
		b.Queue("UPDATE "+p+"_item SET name = $1 WHERE id = $2", "ink2", 2)
		b.Queue("SELECT count(*) FROM " + p + "_item")
		if err := pool.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		rows, _ := pool.Query(ctx, "SELECT name FROM "+p+"_item ORDER BY id")
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err == nil && strings.Join(names, ",") != "pen,ink2" {
			err = fmt.Errorf("names %v", names)
		}
		return err
	})
	step("pgx.BeginFunc (commit, rollback)", func() error {
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO "+p+"_item (id, name) VALUES (3, 'pad')")
			return err
		}); err != nil {
			return err
		}
		errRollback := errors.New("roll back")
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "DELETE FROM "+p+"_item"); err != nil {
				return err
			}
			return errRollback
		}); !errors.Is(err, errRollback) {
			return err
		}
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+p+"_item").Scan(&n); err != nil || n != 3 {
			return fmt.Errorf("%d rows after commit and rollback (%v), want 3", n, err)
		}
		return nil
	})
	check("SELECT id, name, price, at, tags FROM " + p + "_item ORDER BY id")
	step("40001 conflict, retried", func() error {
		table := p + "_counter"
		if _, err := pool.Exec(ctx, "CREATE TABLE "+table+" (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"); err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, "INSERT INTO "+table+" VALUES (1, 0)"); err != nil {
			return err
		}
		var s [2]session
		for i := range s {
			c, err := pgx.Connect(ctx, url)
			if err != nil {
				return err
			}
			defer c.Close(ctx)
			s[i] = &pgxSession{ctx: ctx, conn: c, table: table}
		}
		codes, err := conflict(s)
		if err != nil {
			return err
		}
		var n int
		if err := pool.QueryRow(ctx, "SELECT n FROM "+table+" WHERE id = 1").Scan(&n); err != nil {
			return err
		}
		if len(codes) == 0 || codes[0] != "40001" || n != 2 {
			return fmt.Errorf("SQLSTATEs %v and n = %d: want one 40001 and 2 after the retry", codes, n)
		}
		return nil
	})
	check("SELECT id, n FROM " + p + "_counter ORDER BY id")
}

// The GORM models: a foreign key, a decimal, a timestamp, GORM's
// gorm.Model (serial id, timestamps, soft delete).
type GormAuthor struct {
	gorm.Model
	Name  string `gorm:"size:80;uniqueIndex;not null"`
	Books []GormBook
}

type GormBook struct {
	ID           uint `gorm:"primaryKey"`
	GormAuthorID uint `gorm:"not null"`
	Title        string
	Price        decimal.Decimal `gorm:"type:numeric(8,2)"`
	Stock        int             `gorm:"not null;default:0"`
}

func runGorm(ctx context.Context, url, p string) {
	var db *gorm.DB
	if !step("open", func() (err error) {
		db, err = gorm.Open(postgres.Open(url), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
		return err
	}) {
		return
	}
	db = db.WithContext(ctx)
	step("AutoMigrate", func() error { return db.AutoMigrate(&GormAuthor{}, &GormBook{}) })
	step("AutoMigrate again (no changes)", func() error { return db.AutoMigrate(&GormAuthor{}, &GormBook{}) })
	step("Create (RETURNING ids)", func() error {
		a := GormAuthor{Name: "ann", Books: []GormBook{{Title: "one", Price: decimal.RequireFromString("9.99")}, {Title: "two"}}}
		if err := db.Create(&a).Error; err != nil {
			return err
		}
		if a.ID == 0 || a.Books[0].ID == 0 {
			return fmt.Errorf("no generated ids: %+v", a)
		}
		return nil
	})
	step("First, Preload, Update, Delete", func() error {
		var a GormAuthor
		if err := db.Preload("Books").Where("name = ?", "ann").First(&a).Error; err != nil {
			return err
		}
		if len(a.Books) != 2 {
			return fmt.Errorf("preloaded %d books", len(a.Books))
		}
		if err := db.Model(&GormBook{}).Where("title = ?", "two").Update("stock", 3).Error; err != nil {
			return err
		}
		if err := db.Where("title = ?", "one").Delete(&GormBook{}).Error; err != nil {
			return err
		}
		var b GormBook
		if err := db.First(&b, "title = ?", "two").Error; err != nil {
			return err
		}
		if b.Stock != 3 {
			return fmt.Errorf("stock %d after Update, want 3", b.Stock)
		}
		return nil
	})
	step("Transaction (commit, rollback)", func() error {
		if err := db.Transaction(func(tx *gorm.DB) error { return tx.Create(&GormAuthor{Name: "bo"}).Error }); err != nil {
			return err
		}
		errRollback := errors.New("roll back")
		if err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Create(&GormAuthor{Name: "gone"}).Error; err != nil {
				return err
			}
			return errRollback
		}); !errors.Is(err, errRollback) {
			return err
		}
		var names []string
		if err := db.Model(&GormAuthor{}).Order("name").Pluck("name", &names).Error; err != nil {
			return err
		}
		if strings.Join(names, ",") != "ann,bo" {
			return fmt.Errorf("authors %v, want ann,bo", names)
		}
		return nil
	})
	check("SELECT id, name, deleted_at FROM gorm_authors ORDER BY id")
	check("SELECT id, gorm_author_id, title, price, stock FROM gorm_books ORDER BY id")
}
