package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgsetup"
)

// Generated from the catalogs rather than by pg_dump (which the checkpoints
// use): pg_dump's plain output includes relchain's schema, capture triggers
// and event triggers, and its INSERTs follow no order, so the same state
// would not give the same text.

// dumpColumnsSQL lists a table's columns with their definitions.
const dumpColumnsSQL = `SELECT pg_catalog.quote_ident(a.attname), pg_catalog.format_type(a.atttypid, a.atttypmod),
	a.attnotnull, coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), ''), a.attgenerated::text
FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`

// dumpConstraintsSQL lists a table's constraints: primary key, unique and
// check constraints first (in CREATE TABLE), foreign keys last.
const dumpConstraintsSQL = `SELECT pg_catalog.quote_ident(c.conname), pg_catalog.pg_get_constraintdef(c.oid), c.contype = 'f'
FROM pg_catalog.pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u', 'c', 'f', 'x')
ORDER BY c.contype = 'f', c.contype <> 'p', c.conname`

// dumpIndexesSQL lists a table's indexes that back no constraint.
const dumpIndexesSQL = `SELECT pg_catalog.pg_get_indexdef(i.indexrelid)
FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
ORDER BY c.relname`

// dumpKeySQL lists a table's primary-key columns in key order.
const dumpKeySQL = `SELECT pg_catalog.quote_ident(a.attname)
FROM pg_catalog.pg_index i CROSS JOIN LATERAL pg_catalog.unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY k.n`

// Dump writes the replicated tables of the database of a node's DSN (its
// writer's, as in relchain.toml) to w as SQL text PostgreSQL runs: for
// each table, in order of its schema-qualified name, its CREATE TABLE with
// columns, defaults, NOT NULL, primary key, unique and check constraints,
// its rows as INSERTs in primary-key order (in order of all columns for a
// table without one), then its indexes; foreign keys come last, as ALTER
// TABLE. relchain's schema and its triggers are left out. It reads one
// REPEATABLE READ READ ONLY snapshot, so a running node goes on committing
// blocks, and returns the height that snapshot holds.
func Dump(ctx context.Context, dsn string, w io.Writer) (int64, error) {
	writerDSN, _, err := pgsetup.SplitDSN(dsn)
	if err != nil {
		return 0, err
	}
	cfg, err := writerConfig(writerDSN)
	if err != nil {
		return 0, err
	}
	cfg.RuntimeParams["statement_timeout"] = "0"
	// Settings that fix the text of values: UTC ISO timestamps, hex bytea,
	// floats that read back exactly.
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["datestyle"] = "ISO, YMD"
	cfg.RuntimeParams["intervalstyle"] = "postgres"
	cfg.RuntimeParams["bytea_output"] = "hex"
	cfg.RuntimeParams["extra_float_digits"] = "3"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("dump: connect: %w", err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	defer tx.Rollback(context.Background())
	var height int64
	if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT height FROM relchain.meta WHERE id = 1), 0)`).Scan(&height); err != nil {
		return 0, fmt.Errorf("dump: read height: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := dumpTables(ctx, tx, height, bw); err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	return height, bw.Flush()
}

// dumpTables writes every replicated table of the snapshot tx to w.
func dumpTables(ctx context.Context, tx pgx.Tx, height int64, w io.Writer) error {
	type table struct{ schema, ident string }
	var tables []table
	err := eachRow(ctx, tx, `SELECT pg_catalog.quote_ident(n.nspname), pg_catalog.format('%I.%I', n.nspname, c.relname)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'r' AND c.relpersistence = 'p' AND NOT c.relispartition
		AND n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema', 'pg_toast')
		AND n.nspname NOT LIKE 'pg\_%' ORDER BY n.nspname, c.relname`, nil, func(r pgx.Rows) error {
		var t table
		err := r.Scan(&t.schema, &t.ident)
		tables = append(tables, t)
		return err
	})
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	var partitioned string
	if err := tx.QueryRow(ctx, `SELECT coalesce(pg_catalog.string_agg(pg_catalog.format('%I.%I', n.nspname, c.relname), ', '), '')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'p' AND n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'`).Scan(&partitioned); err != nil {
		return fmt.Errorf("list partitioned tables: %w", err)
	}
	if partitioned != "" {
		return fmt.Errorf("partitioned tables (%s) cannot be dumped yet: %w", partitioned, errors.ErrUnsupported)
	}
	fmt.Fprintf(w, "-- relchain dump of the replicated tables at height %d\nBEGIN;\n", height)
	owned, err := dumpSequences(ctx, tx, w)
	if err != nil {
		return fmt.Errorf("sequences: %w", err)
	}
	schemas := map[string]bool{"public": true}
	var foreign []string
	for _, t := range tables {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !schemas[t.schema] {
			schemas[t.schema] = true
			fmt.Fprintf(w, "CREATE SCHEMA IF NOT EXISTS %s;\n", t.schema)
		}
		fks, err := dumpTable(ctx, tx, t.ident, w)
		if err != nil {
			return fmt.Errorf("%s: %w", t.ident, err)
		}
		foreign = append(foreign, fks...)
	}
	for _, fk := range foreign {
		fmt.Fprintf(w, "%s;\n", fk)
	}
	for _, o := range owned {
		fmt.Fprintf(w, "%s;\n", o)
	}
	_, err = fmt.Fprintf(w, "COMMIT;\n")
	return err
}

// dumpTable writes the CREATE TABLE, rows and indexes of the table ident
// and returns its foreign keys as ALTER TABLE statements.
func dumpTable(ctx context.Context, tx pgx.Tx, ident string, w io.Writer) ([]string, error) {
	var defs, cols []string
	err := eachRow(ctx, tx, dumpColumnsSQL, []any{ident}, func(r pgx.Rows) error {
		var name, typ, def, gen string
		var notNull bool
		if err := r.Scan(&name, &typ, &notNull, &def, &gen); err != nil {
			return err
		}
		d := name + " " + typ
		switch {
		case gen == "s":
			d += " GENERATED ALWAYS AS (" + def + ") STORED"
		default:
			cols = append(cols, name)
			if def != "" {
				d += " DEFAULT " + serverNextval(def)
			}
		}
		if notNull {
			d += " NOT NULL"
		}
		defs = append(defs, d)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	var foreign []string
	err = eachRow(ctx, tx, dumpConstraintsSQL, []any{ident}, func(r pgx.Rows) error {
		var name, def string
		var fk bool
		if err := r.Scan(&name, &def, &fk); err != nil {
			return err
		}
		if fk {
			foreign = append(foreign, "ALTER TABLE "+ident+" ADD CONSTRAINT "+name+" "+def)
		} else {
			defs = append(defs, "CONSTRAINT "+name+" "+def)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("constraints: %w", err)
	}
	fmt.Fprintf(w, "CREATE TABLE %s (\n\t%s\n);\n", ident, strings.Join(defs, ",\n\t"))
	if err := dumpRows(ctx, tx, ident, cols, w); err != nil {
		return nil, fmt.Errorf("rows: %w", err)
	}
	err = eachRow(ctx, tx, dumpIndexesSQL, []any{ident}, func(r pgx.Rows) error {
		var def string
		if err := r.Scan(&def); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "%s;\n", def)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("indexes: %w", err)
	}
	return foreign, nil
}

// dumpRows writes the rows of the table ident as INSERTs of cols (quoted
// identifiers) in primary-key order, each value a literal PostgreSQL
// renders itself (quote_nullable of its text, which reads back as the
// same value of the column's type).
func dumpRows(ctx context.Context, tx pgx.Tx, ident string, cols []string, w io.Writer) error {
	if len(cols) == 0 {
		return nil
	}
	var key []string
	err := eachRow(ctx, tx, dumpKeySQL, []any{ident}, func(r pgx.Rows) error {
		var k string
		err := r.Scan(&k)
		key = append(key, "x."+k)
		return err
	})
	if err != nil {
		return err
	}
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "pg_catalog.quote_nullable(x." + c + ")"
		if len(key) == 0 {
			key = append(key, fmt.Sprint(i+1))
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM ONLY " + ident + " AS x ORDER BY " + strings.Join(key, ", ")
	prefix := "INSERT INTO " + ident + " (" + strings.Join(cols, ", ") + ") VALUES ("
	vals := make([]string, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return eachRow(ctx, tx, q, nil, func(r pgx.Rows) error {
		if err := r.Scan(ptrs...); err != nil {
			return err
		}
		_, err := io.WriteString(w, prefix+strings.Join(vals, ", ")+");\n")
		return err
	})
}

// eachRow runs sql with args on tx and calls fn on each row.
func eachRow(ctx context.Context, tx querier, sql string, args []any, fn func(pgx.Rows) error) error {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
