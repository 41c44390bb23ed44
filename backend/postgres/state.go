package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/statedigest"
)

var _ backend.StateReader = (*Backend)(nil)

// replicatedTablesSQL lists the replicated leaf tables (those relchain
// attaches capture to: permanent, outside its own and the system schemas),
// by their name as the capture trigger records it (schema.table) and as
// SQL names it. A partitioned table's rows are its partitions'. A table
// whose capture trigger was dropped is still listed: its rows still count.
const replicatedTablesSQL = `SELECT n.nspname || '.' || c.relname, pg_catalog.format('%I.%I', n.nspname, c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'r' AND c.relpersistence <> 't'
	AND n.nspname NOT IN ('relchain', 'pg_catalog', 'information_schema', 'pg_toast')
	AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'
UNION ALL SELECT 'relchain.sequences', 'relchain.sequences' WHERE EXISTS (SELECT 1 FROM relchain.sequences)
ORDER BY 1`

// querier is what a scan needs of a connection or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// StateDigest implements backend.Block: the changes ChangeDigest consumed
// are folded into relchain.digest in the block's db-transaction; a block
// that changed the schema rescans every table instead.
func (k *block) StateDigest(ctx context.Context) ([]byte, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if k.done {
		return nil, errBlockDone
	}
	if err := k.flush(ctx); err != nil {
		return nil, fmt.Errorf("postgres: state digest: %w", err)
	}
	tables, changed, err := sqlstore.NextSums(k.ddl, k.delta,
		func() (statedigest.Tables, error) { return scanTables(ctx, k.conn, imagesText) },
		func() (statedigest.Tables, error) { return loadSums(ctx, k.conn) },
		func() error { _, err := k.conn.Exec(ctx, "DELETE FROM relchain.digest"); return err })
	if err != nil {
		return nil, fmt.Errorf("postgres: state digest: %w", err)
	}
	k.delta, k.ddl = make(backend.TableDelta), false
	if k.migrating {
		if _, err := k.conn.Exec(ctx, `INSERT INTO relchain.format (id, images) VALUES (1, `+imagesTextSQL+`)
			ON CONFLICT (id) DO UPDATE SET images = excluded.images`); err != nil {
			return nil, fmt.Errorf("postgres: state digest: record the row image format: %w", err)
		}
		k.migrating, k.migrated = false, true
	}
	if len(changed) > 0 {
		names := make([]string, len(changed))
		sums := make([][]byte, len(changed))
		for i, name := range changed {
			names[i], sums[i] = name, tables[name][:]
		}
		if _, err := k.conn.Exec(ctx, `INSERT INTO relchain.digest (tbl, sum) SELECT * FROM ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::bytea[]))
			ON CONFLICT (tbl) DO UPDATE SET sum = excluded.sum`, names, sums); err != nil {
			return nil, fmt.Errorf("postgres: state digest: save table sums: %w", err)
		}
	}
	return tables.Digest(), nil
}

// StoredState implements backend.StateReader, in a stateSnapshot.
func (b *Backend) StoredState(ctx context.Context) (statedigest.Tables, int64, error) {
	return sqlstore.ReadState(ctx, "postgres", b.stateSnapshot, loadSums)
}

// ScanState implements backend.StateReader: in a stateSnapshot, so it may
// run while blocks commit.
func (b *Backend) ScanState(ctx context.Context) (statedigest.Tables, int64, error) {
	return sqlstore.ReadState(ctx, "postgres", b.stateSnapshot, scanStoredFormat)
}

// stateSnapshot is a REPEATABLE READ read-only transaction on Query's
// pool, and the height committed in it.
func (b *Backend) stateSnapshot(ctx context.Context) (querier, int64, func(), error) {
	tx, height, err := b.snapshotTx(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	return tx, height, func() { _ = tx.Rollback(ctx) }, nil
}

// snapshotTx is stateSnapshot's transaction itself, for a reader that
// needs its connection; the caller rolls it back.
//
// The snapshot is taken by the first statement, under the lanes' read
// gate (readSnapshot); the connection is acquired before it, since a
// reader must never wait for the pool while holding the gate (a parallel
// block's Commit waits for the gate, and readers holding the pool's
// connections wait behind that Commit).
func (b *Backend) snapshotTx(ctx context.Context) (pgx.Tx, int64, error) {
	tx, err := b.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, 0, err
	}
	var height int64
	unlock := b.readSnapshot()
	err = tx.QueryRow(ctx, `SELECT coalesce((SELECT height FROM relchain.meta WHERE id = 1), 0)`).Scan(&height)
	unlock()
	if err != nil {
		_ = tx.Rollback(ctx)
		return nil, 0, err
	}
	return tx, height, nil
}

func loadSums(ctx context.Context, q querier) (statedigest.Tables, error) {
	rows, err := q.Query(ctx, "SELECT d.tbl, d.sum FROM relchain.digest AS d")
	if err != nil {
		return nil, fmt.Errorf("load table sums: %w", err)
	}
	defer rows.Close()
	return sqlstore.LoadSums(rows)
}

// scanTableSQL reads every row image of the table ident, as the capture
// trigger records it, in format (imagesText, or imagesJSON for the sums of
// a database not yet migrated). The row is named as x.* and the functions
// qualified: a bare x would resolve to a column x of the user's table, a
// bare record_out or row_to_json to a user's public function of the same
// name taking the table's row type, which matches better than
// pg_catalog's taking record. The same rule holds for all of relchain's
// own SQL: user identifiers must not be able to capture its aliases,
// columns or functions (see schemaSQL).
func scanTableSQL(ident string, format int) string {
	if format == imagesJSON {
		return "SELECT pg_catalog.row_to_json(x.*)::text FROM ONLY " + ident + " AS x"
	}
	return "SELECT " + rowImageOpen + "x.*" + rowImageClose + " FROM ONLY " + ident + " AS x"
}

// scanStoredFormat is scanTables in the image format of the sums q's
// database stores: what ScanState compares with them.
func scanStoredFormat(ctx context.Context, q querier) (statedigest.Tables, error) {
	var format int
	err := q.QueryRow(ctx, `SELECT coalesce((SELECT images FROM relchain.format WHERE id = 1), `+
		strconv.Itoa(imagesJSON)+`)`).Scan(&format)
	if err != nil {
		return nil, fmt.Errorf("read the row image format: %w", err)
	}
	return scanTables(ctx, q, format)
}

// scanTables computes every captured table's sum from its rows, with the
// row images of format (imagesText: what the capture trigger records).
func scanTables(ctx context.Context, q querier, format int) (statedigest.Tables, error) {
	rows, err := q.Query(ctx, replicatedTablesSQL)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var names, idents []string
	for rows.Next() {
		var n, id string
		if err := rows.Scan(&n, &id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list tables: %w", err)
		}
		names, idents = append(names, n), append(idents, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	tables := make(statedigest.Tables, len(names))
	for i, name := range names {
		sum, err := scanTable(ctx, q, name, scanTableSQL(idents[i], format))
		if err != nil {
			return nil, err
		}
		tables[name] = &sum
	}
	return tables, nil
}

func scanTable(ctx context.Context, q querier, name, sql string) (statedigest.Sum, error) {
	scan := statedigest.NewScan(name)
	rows, err := q.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		scan.Sum()
		return statedigest.Sum{}, fmt.Errorf("scan %s: %w", name, err)
	}
	for rows.Next() {
		scan.Add(rows.RawValues()[0])
	}
	rows.Close()
	sum := scan.Sum()
	if err := rows.Err(); err != nil {
		return statedigest.Sum{}, fmt.Errorf("scan %s: %w", name, err)
	}
	return sum, nil
}
