// Command capture runs GORM's Migrator (gorm.io/driver/postgres on pgx)
// against the corpus schema so that the server log records the catalog
// queries each call sends (scripts/capture-catalog-queries.sh). Before
// each call the session's application_name is "cap:gorm:<call>"; GORM
// holds one connection.
//
// Usage: go run . URL
package main

import (
	"fmt"
	"os"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Author mirrors the corpus schema's authors table.
type Author struct {
	ID        int32     `gorm:"primaryKey"`
	Name      string    `gorm:"type:varchar(100);not null"`
	Email     string    `gorm:"type:varchar(255);not null;unique"`
	Active    bool      `gorm:"not null;default:true"`
	CreatedAt time.Time `gorm:"not null;default:now()"`
}

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "capture gorm:", err)
		os.Exit(1)
	}
}

func run(url string) error {
	db, err := gorm.Open(postgres.Open(url+"?application_name=cap:gorm:connect"), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return fmt.Errorf("pool: %w", err)
	}
	sqlDB.SetMaxOpenConns(1)
	m := db.Migrator()
	ops := []struct {
		name string
		fn   func() error
	}{
		{"CurrentDatabase", func() error { m.CurrentDatabase(); return nil }},
		{"GetTables", func() error { _, err := m.GetTables(); return err }},
		{"HasTable authors", func() error { m.HasTable("authors"); return nil }},
		{"HasTable missing", func() error { m.HasTable("missing"); return nil }},
		{"HasColumn Author email", func() error { m.HasColumn(&Author{}, "Email"); return nil }},
		{"ColumnTypes Author", func() error { _, err := m.ColumnTypes(&Author{}); return err }},
		{"HasIndex Author authors_email_key", func() error { m.HasIndex(&Author{}, "authors_email_key"); return nil }},
		{"HasConstraint books books_author_id_fkey", func() error { m.HasConstraint("books", "books_author_id_fkey"); return nil }},
		{"GetIndexes Author", func() error { _, err := m.GetIndexes(&Author{}); return err }},
		{"AutoMigrate Author", func() error { return m.AutoMigrate(&Author{}) }},
	}
	for _, op := range ops {
		if err := db.Exec("SET application_name = 'cap:gorm:" + op.name + "'").Error; err != nil {
			return fmt.Errorf("%s: set application_name: %w", op.name, err)
		}
		if err := op.fn(); err != nil {
			// AutoMigrate reads the catalog before it fails on DDL it
			// wants: the capture needs its reads, not its success.
			fmt.Fprintf(os.Stderr, "capture gorm: %s: %v\n", op.name, err)
		}
	}
	return sqlDB.Close()
}
