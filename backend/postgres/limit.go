package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	pgcheck "github.com/relchain/relchain/backend/postgres/pggate"
)

// keySQL lists the columns of the key a table's rows are ordered by when a
// statement keeps rows by LIMIT without ORDER BY (pggate's OrderLimits):
// the table's primary key, or else its unique index of NOT NULL key
// columns with the fewest columns, ties broken by the index's name. Only
// an immediate, valid unique index without a predicate or expressions
// counts. A plain table with inheritance children has no key unless read
// with ONLY (a child's rows may repeat a parent's key); a partitioned
// table's key holds for all its partitions. Views, foreign tables and the
// system catalogs have none. Every part is replicated state (the same DDL
// ran on every node, index names included), so the answer is the same on
// every node at the same point of a block. $1 is the schema (empty for the
// search path), $2 the table, $3 whether ONLY was written.
const keySQL = `SELECT a.attname::text
FROM (SELECT i.indrelid, i.indkey, i.indnkeyatts
      FROM pg_catalog.pg_index i
      JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
      JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
      WHERE i.indrelid = pg_catalog.to_regclass(CASE WHEN $1::text = '' THEN pg_catalog.quote_ident($2::text)
                                                ELSE pg_catalog.quote_ident($1::text) || '.' || pg_catalog.quote_ident($2::text) END)
        AND c.relkind IN ('r', 'p') AND (c.relkind = 'p' OR $3::bool OR NOT c.relhassubclass)
        AND c.relnamespace <> 'pg_catalog'::regnamespace AND c.relnamespace <> 'information_schema'::regnamespace
        AND i.indisunique AND i.indisvalid AND i.indimmediate AND i.indpred IS NULL AND i.indexprs IS NULL
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute na
                        WHERE na.attrelid = i.indrelid AND na.attnum = ANY ((i.indkey::int2[])[0:i.indnkeyatts - 1])
                          AND NOT na.attnotnull)
      ORDER BY i.indisprimary DESC, i.indnkeyatts, ic.relname COLLATE "C"
      LIMIT 1) i
CROSS JOIN LATERAL pg_catalog.unnest((i.indkey::int2[])[0:i.indnkeyatts - 1]) WITH ORDINALITY AS k(attnum, n)
JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
ORDER BY k.n`

// keyOIDs are keySQL's parameter types: text, text, bool.
var keyOIDs = []uint32{25, 25, 16}

// tableRef is a table as a statement names it.
type tableRef struct {
	schema, name string
	only         bool
}

// tableKey runs keySQL on pc: as a statement prepared on pc (named, its
// plan cached: planning the catalog join costs milliseconds), or as an
// unnamed one if named is "".
func tableKey(ctx context.Context, pc *pgconn.PgConn, named string, schema, name string, only bool) ([]string, error) {
	onlyText := "false"
	if only {
		onlyText = "true"
	}
	values := [][]byte{[]byte(schema), []byte(name), []byte(onlyText)}
	var rr *pgconn.ResultReader
	if named != "" {
		rr = pc.ExecPrepared(ctx, named, values, nil, nil)
	} else {
		rr = pc.ExecParams(ctx, keySQL, values, keyOIDs, nil, nil)
	}
	var cols []string
	for rr.NextRow() {
		cols = append(cols, string(rr.Values()[0]))
	}
	if _, err := rr.Close(); err != nil || len(cols) > 0 {
		return cols, err
	}
	// No key: a table without one, or no table of that name, which
	// PostgreSQL would report as such.
	rr = pc.ExecParams(ctx, existsSQL, [][]byte{[]byte(schema), []byte(name)}, nil, nil, nil)
	exists := true
	for rr.NextRow() {
		exists = string(rr.Values()[0]) == "t"
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	if !exists {
		if schema != "" {
			name = schema + "." + name
		}
		return nil, &backend.Error{Class: backend.ClassOfSQLState("42P01"), SQLState: "42P01", Message: fmt.Sprintf("relation %q does not exist", name)}
	}
	return nil, nil
}

// existsSQL says whether keySQL's $1.$2 names a relation.
const existsSQL = `SELECT pg_catalog.to_regclass(CASE WHEN $1::text = '' THEN pg_catalog.quote_ident($2::text)
	ELSE pg_catalog.quote_ident($1::text) || '.' || pg_catalog.quote_ident($2::text) END) IS NOT NULL`

// keyFunc is a pggate.KeyFunc that looks keys up on pc (named: keySQL
// prepared there, or ""), each table once per seen map.
func keyFunc(ctx context.Context, pc *pgconn.PgConn, named string, seen map[tableRef][]string) pgcheck.KeyFunc {
	return func(schema, name string, only bool) ([]string, error) {
		r := tableRef{schema, name, only}
		if cols, ok := seen[r]; ok {
			return cols, nil
		}
		cols, err := tableKey(ctx, pc, named, schema, name, only)
		if err != nil {
			return nil, err
		}
		seen[r] = cols
		return cols, nil
	}
}

// keyOrdered is a block statement with its LIMITs without ORDER BY
// ordered by their tables' keys (pggate's OrderLimits), the keys read in
// the block's db-transaction, inside the tx's savepoint: a key added by an
// earlier statement of the block counts. A table's key is read once until
// the block runs DDL or rolls back to a savepoint (block.keys). A table
// without a key is the statement's error (42P10, naming what to add); a
// failure of the lookup itself aborts the tx's savepoint like a failed
// statement. The caller holds the backend's mutex.
func (k *session) keyOrdered(ctx context.Context, sql string) (string, bool, error) {
	if err := k.flush(ctx); err != nil {
		return "", false, err
	}
	if k.keys == nil {
		k.keys = make(map[tableRef][]string)
	}
	text, ordered, err := pgcheck.OrderLimits(sql, keyFunc(ctx, k.conn.PgConn(), "", k.keys), true)
	if err == nil {
		return text, ordered, nil
	}
	if e := backend.AsError(err); e != nil {
		return "", false, e
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if ctx.Err() != nil || nodeFault(pgErr.Code) {
			return "", false, fmt.Errorf("postgres: exec: key lookup: %w", err)
		}
		k.aborted = true
		return "", false, asBackendError(err)
	}
	if pgconn.SafeToRetry(err) || k.conn.IsClosed() || ctx.Err() != nil {
		return "", false, fmt.Errorf("postgres: exec: key lookup: %w", err)
	}
	return "", false, &backend.Error{Class: backend.ClassPermission, SQLState: "42P10", Message: err.Error()}
}

// readKeyOrdered is a read's text with its LIMITs without ORDER BY over a
// keyed table ordered by that key (looked up on the read's connection),
// so every node answers the same rows from the same state; a LIMIT no key
// orders is left as it is (a read decides nothing).
func (b *Backend) readKeyOrdered(ctx context.Context, pc *pgconn.PgConn, text string) (string, bool, error) {
	named, err := b.queryStmts.prepare(ctx, pc, keySQL, keyOIDs)
	if err != nil {
		return "", false, err
	}
	return pgcheck.OrderLimits(text, keyFunc(ctx, pc, named, map[tableRef][]string{}), false)
}
