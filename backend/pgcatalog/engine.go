package pgcatalog

import (
	"context"
	"fmt"
	"sync"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// Engine answers catalog queries over one Schema. It is safe for
// concurrent use (one query at a time runs on its database).
type Engine struct {
	mu sync.Mutex
	db *sqlite3.Conn
}

// ResultColumn is one result column: its name and PostgreSQL type (a
// pg_type name, as backend.Rows.Types) and type modifier (-1 none).
type ResultColumn struct {
	Name   string
	Type   string
	Typmod int32
}

// Result is a catalog query's rows. Values are nil, int64, float64, bool,
// string or []byte: a value of an array or reg* column is its PostgreSQL
// text ('{a,b}', 'public.t'), as PostgreSQL's text output shows it.
type Result struct {
	Columns []ResultColumn
	Rows    [][]any
}

// Error is PostgreSQL's error for a catalog query: Code its SQLSTATE
// (42P01 an unknown relation, 42703 an unknown column, 42883 an unknown
// function, 0A000 a construct the emulation does not support, naming
// it), Message the text.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (SQLSTATE %s)", e.Message, e.Code) }

// New builds the Engine of s: the catalog database with Relations filled
// from s and PostgreSQL's built-in objects, and Functions registered.
func New(s *Schema) (*Engine, error) {
	db, err := buildDB(s)
	if err != nil {
		return nil, fmt.Errorf("pgcatalog: build the catalog database: %w", err)
	}
	return &Engine{db: db}, nil
}

// Close releases the catalog database.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.db.Close()
}

// Query runs one catalog query with its arguments ($1 … as args[0] …;
// strings are the parameters' text, as a client sends them).
func (e *Engine) Query(ctx context.Context, sql string, args []any) (*Result, error) {
	rw, err := rewrite(sql)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return run(ctx, e.db, rw, args)
}

// Describe returns a catalog query's parameter types and result columns
// without running it.
func (e *Engine) Describe(sql string) (params []string, cols []ResultColumn, err error) {
	rw, err := rewrite(sql)
	if err != nil {
		return nil, nil, err
	}
	return rw.Params, rw.Columns, nil
}

// rewritten is a catalog query rewritten into SQLite's SQL over the
// catalog database (rewrite.go): SQL takes the parameters as ?1 …;
// Columns and Params are PostgreSQL's types for them.
type rewritten struct {
	SQL     string
	Columns []ResultColumn
	Params  []string
}
