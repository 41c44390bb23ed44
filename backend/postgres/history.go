package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// Row history (backend.HistoryBlock, backend.HistoryReader) lives in
// relchain's schema beside relchain.system (schemaSQL, installed at every
// Open, so also into a database from before it): relchain.history_blocks
// and relchain.history_versions, keyed by table, the SHA-256 of the key
// and height (a key can be longer than an index entry may be), indexed
// by height. Being in relchain's schema, change capture, the state
// digest, CanonicalTables, the dump and the pg catalog leave them out and
// the gate refuses every client statement naming them; the reader may
// SELECT them (readerGrants: HistoryReader reads on the pool); a
// checkpoint (pg_dump) leaves their rows out.

var (
	_ backend.HistoryBlock  = ctxBlock{}
	_ backend.HistoryBlock  = canonClassified{}
	_ backend.HistoryReader = (*Backend)(nil)
)

// historySQL are the history reads (sqlstore.HistorySQL).
var historySQL = sqlstore.HistorySQL{
	Range: `SELECT COALESCE(MIN(height), 0)::bigint, COALESCE(MAX(height), 0)::bigint FROM relchain.history_blocks`,
	Prev: `SELECT op, image FROM relchain.history_versions
		WHERE tbl = $1::text AND key_hash = pg_catalog.sha256($2::bytea) AND height < $3::bigint ORDER BY height DESC LIMIT 1`,
	From: `SELECT height, op, image, txs FROM relchain.history_versions
		WHERE tbl = $1::text AND key_hash = pg_catalog.sha256($2::bytea) AND height >= $3::bigint ORDER BY height LIMIT $4::bigint`,
	At: `SELECT height, op, image, txs FROM relchain.history_versions
		WHERE tbl = $1::text AND key_hash = pg_catalog.sha256($2::bytea) AND height <= $3::bigint ORDER BY height DESC LIMIT 2`,
	Counts: `SELECT height, COUNT(*) FROM relchain.history_versions WHERE height >= $1::bigint GROUP BY height ORDER BY height LIMIT $2::bigint`,
	Changes: `SELECT v.height, v.tbl, v.key, v.op, v.image, v.txs, p.op, p.image
		FROM relchain.history_versions v LEFT JOIN relchain.history_versions p
		ON p.tbl = v.tbl AND p.key_hash = v.key_hash AND p.height = (SELECT MAX(q.height) FROM relchain.history_versions q
			WHERE q.tbl = v.tbl AND q.key_hash = v.key_hash AND q.height < v.height)
		WHERE v.height BETWEEN $1::bigint AND $2::bigint ORDER BY v.height`,
	Blocks: `SELECT height, time, app_hash, txs FROM relchain.history_blocks WHERE height BETWEEN $1::bigint AND $2::bigint ORDER BY height`,
	Table: `SELECT v.height, v.tbl, v.key, v.op, v.image, v.txs, p.op, p.image
		FROM relchain.history_versions v LEFT JOIN relchain.history_versions p
		ON p.tbl = v.tbl AND p.key_hash = v.key_hash AND p.height = (SELECT MAX(q.height) FROM relchain.history_versions q
			WHERE q.tbl = v.tbl AND q.key_hash = v.key_hash AND q.height < v.height)
		WHERE v.tbl = $1::text AND v.height >= $2::bigint ORDER BY v.height, v.key LIMIT $3::bigint`,
	State: `SELECT state FROM relchain.history_states WHERE height = $1::bigint`,
	Roots: `SELECT height, roots FROM relchain.history_roots WHERE height <= $1::bigint ORDER BY height DESC LIMIT 1`,
}

// AppendHistory implements backend.HistoryBlock, its context watched as
// the block's statements are.
func (c ctxBlock) AppendHistory(ctx context.Context, info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: append history: %w", err)
	}
	driverCtx, stop := watchStatement(ctx, c.conn.PgConn())
	err := c.block.appendHistory(driverCtx, info, versions, pruneBelow)
	stop()
	return withCtx(ctx, err)
}

// AppendHistory implements backend.HistoryBlock.
func (c canonClassified) AppendHistory(ctx context.Context, info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) error {
	hb, ok := c.Inner.(backend.HistoryBlock)
	if !ok {
		return fmt.Errorf("postgres: append history: %T keeps no history", c.Inner)
	}
	return c.classify(ctx, hb.AppendHistory(ctx, info, versions, pruneBelow))
}

// appendHistory writes the block's history in its db-transaction, in one
// round trip: the pruning, the block's row and its versions, bound as
// arrays to one INSERT.
func (k *block) appendHistory(ctx context.Context, info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) error {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	switch {
	case k.done:
		return errBlockDone
	case k.aborted:
		return fmt.Errorf("postgres: append history: the block's db-transaction is aborted")
	}
	if err := k.flush(ctx); err != nil {
		return fmt.Errorf("postgres: append history: %w", err)
	}
	batch := &pgx.Batch{}
	if pruneBelow > 0 {
		batch.Queue(`DELETE FROM relchain.history_versions WHERE height < $1::bigint`, pruneBelow)
		batch.Queue(`DELETE FROM relchain.history_blocks WHERE height < $1::bigint`, pruneBelow)
		batch.Queue(`DELETE FROM relchain.history_states WHERE height < $1::bigint`, pruneBelow)
		batch.Queue(`DELETE FROM relchain.history_roots WHERE height < (SELECT COALESCE(MAX(height), 0) FROM relchain.history_roots WHERE height <= $1::bigint)`, pruneBelow)
	}
	if info.State != nil {
		batch.Queue(`INSERT INTO relchain.history_states (height, state) VALUES ($1::bigint, $2::bytea)`, info.Height, info.State)
	}
	if info.Roots != nil {
		batch.Queue(`INSERT INTO relchain.history_roots (height, roots) VALUES ($1::bigint, $2::bytea)
			ON CONFLICT (height) DO UPDATE SET roots = EXCLUDED.roots`, info.Height, info.Roots)
	}
	batch.Queue(`INSERT INTO relchain.history_blocks (height, time, app_hash, txs) VALUES ($1::bigint, $2::bigint, $3::bytea, $4::bytea)`,
		info.Height, info.TimeUnixNano, nonNil(info.AppHash), sqlstore.EncodeBlockTxs(info.Txs))
	if len(versions) > 0 {
		n := len(versions)
		tbls, ops := make([]string, n), make([]string, n)
		hashes, keys, images, txs := make([][]byte, n), make([][]byte, n), make([][]byte, n), make([][]byte, n)
		for i, v := range versions {
			tbls[i], ops[i] = v.Table, string(rune(v.Op))
			hashes[i], keys[i], txs[i] = sqlstore.HistoryKeyHash(v.Key), nonNil(v.Key), sqlstore.EncodeVersionTxs(v.Txs)
			if v.Op != backend.HistoryDelete {
				images[i] = nonNil(v.Image)
			}
		}
		batch.Queue(`INSERT INTO relchain.history_versions (tbl, key_hash, height, key, op, image, txs)
			SELECT u.t, u.h, $1::bigint, u.k, u.o, u.i, u.x
			FROM unnest($2::text[], $3::bytea[], $4::bytea[], $5::text[], $6::bytea[], $7::bytea[]) AS u (t, h, k, o, i, x)`,
			info.Height, tbls, hashes, keys, ops, images, txs)
	}
	if err := k.conn.SendBatch(ctx, batch).Close(); err != nil {
		k.aborted = true
		return fmt.Errorf("postgres: record history of block %d: %w", info.Height, err)
	}
	return nil
}

// nonNil is b, or an empty slice when nil (NOT NULL bytea).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// historyRead runs fn with queries in one read-only REPEATABLE READ
// transaction on a reader connection: one snapshot of committed history.
func (b *Backend) historyRead(ctx context.Context, fn func(q sqlstore.HistoryQuery) error) error {
	tx, err := b.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("postgres: history: begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	// The snapshot is taken by the first statement (see readSnapshot).
	unlock := b.readSnapshot()
	_, err = tx.Exec(ctx, "SELECT 1")
	unlock()
	if err != nil {
		return fmt.Errorf("postgres: history: begin: %w", err)
	}
	return fn(func(sql string, args []any, scan func(sqlstore.Rows) error) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		if err := scan(rows); err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	})
}
