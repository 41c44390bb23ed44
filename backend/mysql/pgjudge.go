package mysql

import (
	"fmt"
	"sync"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/sqlcheck"
)

// SchemaJudge is backend.SchemaJudge for MariaDB's postgres dialect: what
// execPostgres decides before it runs anything (the arguments, PostgreSQL's
// gate, the translation, a DDL translation's statement count, the
// arguments' conversion), on a pgdialect.Schema kept from the network's
// committed DDL instead of a MariaDB database. pgdialect's TestDifferential
// requires the translation on that schema to equal the one on MariaDB's
// information_schema for every statement of its corpus.
type SchemaJudge struct {
	// mu serialises Judge and Apply: a node judges its mempool's
	// statements (CheckTx) while its block runs and commits.
	mu     sync.Mutex
	schema *pgdialect.Schema
	// done caches translations on schema by text and argument types
	// (translationKey); Apply empties it. Refusals are not cached.
	done map[string]*pgdialect.Translation
}

// judgeCacheEntries bounds SchemaJudge.done; a full cache is emptied.
const judgeCacheEntries = 4096

var _ backend.SchemaJudge = (*SchemaJudge)(nil)

// NewSchemaJudge is a judge on an empty schema.
func NewSchemaJudge() *SchemaJudge {
	return &SchemaJudge{schema: pgdialect.NewSchema(), done: make(map[string]*pgdialect.Translation)}
}

// Judge implements backend.SchemaJudge.
func (j *SchemaJudge) Judge(sql string, args []any, env sqlcheck.Env) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, err := j.translate(sql, args, env)
	return err
}

// translate is Judge's translation of sql, or its verdict.
func (j *SchemaJudge) translate(sql string, args []any, env sqlcheck.Env) (*pgdialect.Translation, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	_, text, err := pgJudge(sql, env)
	if err != nil {
		return nil, err
	}
	types := argTypes(args)
	key := translationKey(text, types)
	tr := j.done[key]
	if tr == nil {
		if tr, err = pgdialect.TranslateTyped(text, j.schema, types); err != nil {
			return nil, translationError(err)
		}
		if len(j.done) >= judgeCacheEntries {
			clear(j.done)
		}
		j.done[key] = tr
	}
	if tr.DDL && len(tr.Statements) != 1 {
		return nil, errPGDDLStatements
	}
	for s := range tr.Statements {
		if _, err := bindArgs(tr, s, args); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// Apply implements backend.SchemaJudge.
func (j *SchemaJudge) Apply(sql string, args []any) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	tr, err := j.translate(sql, args, sqlcheck.Env{})
	if err != nil {
		return fmt.Errorf("mysql: the postgres dialect's schema: a committed DDL statement does not translate: %w", err)
	}
	j.schema.Apply(tr)
	clear(j.done)
	return nil
}
