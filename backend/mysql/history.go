package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// Row history (backend.HistoryBlock, backend.HistoryReader) lives in two
// tables of relchain's own beside relchain_system (schemaSQL, created at
// every Open, so also in a database from before them):
// relchain_history_blocks and relchain_history_versions, keyed by table,
// the SHA-256 of the key and height (a key may be longer than an index
// entry may be), indexed by height. Being relchain_* tables, they get no
// capture triggers, the state digest, CanonicalTables, the dump and the
// catalog leave them out, and the gate refuses every client statement
// naming them; a checkpoint leaves them out (dump, historyTables).

var (
	_ backend.HistoryBlock  = (*block)(nil)
	_ backend.HistoryBlock  = canonBlock{}
	_ backend.HistoryReader = (*Backend)(nil)
)

// historyTables are the history's tables, which checkpoints leave out.
var historyTables = map[string]bool{"relchain_history_blocks": true, "relchain_history_versions": true,
	"relchain_history_states": true, "relchain_history_roots": true}

// historySQL are the history reads (sqlstore.HistorySQL).
var historySQL = sqlstore.HistorySQL{
	Range: `SELECT COALESCE(MIN(height), 0), COALESCE(MAX(height), 0) FROM relchain_history_blocks`,
	Prev: `SELECT op, image FROM relchain_history_versions
		WHERE tbl = ? AND key_hash = UNHEX(SHA2(?, 256)) AND height < ? ORDER BY height DESC LIMIT 1`,
	From: `SELECT height, op, image, txs FROM relchain_history_versions
		WHERE tbl = ? AND key_hash = UNHEX(SHA2(?, 256)) AND height >= ? ORDER BY height LIMIT ?`,
	At: `SELECT height, op, image, txs FROM relchain_history_versions
		WHERE tbl = ? AND key_hash = UNHEX(SHA2(?, 256)) AND height <= ? ORDER BY height DESC LIMIT 2`,
	Counts: `SELECT height, COUNT(*) FROM relchain_history_versions WHERE height >= ? GROUP BY height ORDER BY height LIMIT ?`,
	Changes: `SELECT v.height, v.tbl, v.k, v.op, v.image, v.txs, p.op, p.image
		FROM relchain_history_versions v LEFT JOIN relchain_history_versions p
		ON p.tbl = v.tbl AND p.key_hash = v.key_hash AND p.height = (SELECT MAX(q.height) FROM relchain_history_versions q
			WHERE q.tbl = v.tbl AND q.key_hash = v.key_hash AND q.height < v.height)
		WHERE v.height BETWEEN ? AND ? ORDER BY v.height`,
	Blocks: `SELECT height, time, app_hash, txs FROM relchain_history_blocks WHERE height BETWEEN ? AND ? ORDER BY height`,
	Table: `SELECT v.height, v.tbl, v.k, v.op, v.image, v.txs, p.op, p.image
		FROM relchain_history_versions v LEFT JOIN relchain_history_versions p
		ON p.tbl = v.tbl AND p.key_hash = v.key_hash AND p.height = (SELECT MAX(q.height) FROM relchain_history_versions q
			WHERE q.tbl = v.tbl AND q.key_hash = v.key_hash AND q.height < v.height)
		WHERE v.tbl = ? AND v.height >= ? ORDER BY v.height, v.k LIMIT ?`,
	State: `SELECT state FROM relchain_history_states WHERE height = ?`,
	Roots: `SELECT height, roots FROM relchain_history_roots WHERE height <= ? ORDER BY height DESC LIMIT 1`,
}

// historyPrune deletes what lies below a height: the newest roots below
// it stay (the heights from it on need them; MySQL reads the table it
// deletes from only through a derived table).
var historyPrune = []string{
	"DELETE FROM relchain_history_versions WHERE height < ?",
	"DELETE FROM relchain_history_blocks WHERE height < ?",
	"DELETE FROM relchain_history_states WHERE height < ?",
	"DELETE FROM relchain_history_roots WHERE height < (SELECT h FROM (SELECT COALESCE(MAX(height), 0) AS h FROM relchain_history_roots WHERE height <= ?) AS newest)",
}

// historyRowsPerInsert bounds the rows of one multi-row INSERT of
// versions (7 parameters a row, under the protocol's 65,535).
const historyRowsPerInsert = 1000

// AppendHistory implements backend.HistoryBlock.
func (c canonBlock) AppendHistory(ctx context.Context, info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) error {
	return unavailable(ctx, c.k.AppendHistory(ctx, info, versions, pruneBelow))
}

// AppendHistory implements backend.HistoryBlock: the pruning, the block's
// row and its versions in multi-row INSERTs, in the block's
// db-transaction.
func (k *block) AppendHistory(ctx context.Context, info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) error {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		return err
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	if pruneBelow > 0 {
		for _, q := range historyPrune {
			if _, err := k.conn.ExecContext(ctx, q, pruneBelow); err != nil {
				return k.fault("prune history", err)
			}
		}
	}
	_, err := k.conn.ExecContext(ctx, "INSERT INTO relchain_history_blocks (height, time, app_hash, txs) VALUES (?, ?, ?, ?)",
		info.Height, info.TimeUnixNano, nonNil(info.AppHash), sqlstore.EncodeBlockTxs(info.Txs))
	if err == nil && info.State != nil {
		_, err = k.conn.ExecContext(ctx, "INSERT INTO relchain_history_states (height, state) VALUES (?, ?)", info.Height, info.State)
	}
	if err == nil && info.Roots != nil {
		_, err = k.conn.ExecContext(ctx, "REPLACE INTO relchain_history_roots (height, roots) VALUES (?, ?)", info.Height, info.Roots)
	}
	if err != nil {
		return k.fault("record history", err)
	}
	for start := 0; start < len(versions); start += historyRowsPerInsert {
		batch := versions[start:min(start+historyRowsPerInsert, len(versions))]
		args := make([]any, 0, 7*len(batch))
		for _, v := range batch {
			var image any
			if v.Op != backend.HistoryDelete {
				image = nonNil(v.Image)
			}
			args = append(args, []byte(v.Table), sqlstore.HistoryKeyHash(v.Key), info.Height, nonNil(v.Key),
				string(rune(v.Op)), image, sqlstore.EncodeVersionTxs(v.Txs))
		}
		q := "INSERT INTO relchain_history_versions (tbl, key_hash, height, k, op, image, txs) VALUES (?, ?, ?, ?, ?, ?, ?)" +
			strings.Repeat(", (?, ?, ?, ?, ?, ?, ?)", len(batch)-1)
		if _, err := k.conn.ExecContext(ctx, q, args...); err != nil {
			return k.fault("record history", err)
		}
	}
	k.dirty = true
	return nil
}

// nonNil is b, or an empty slice when nil (a NOT NULL column).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// historyRead runs fn with queries in one consistent-snapshot read-only
// transaction on the internal pool: one snapshot of committed history.
func (b *Backend) historyRead(ctx context.Context, fn func(q sqlstore.HistoryQuery) error) error {
	conn, _, err := b.snapshot(ctx, b.internal)
	if err != nil {
		return fmt.Errorf("mysql: history: %w", err)
	}
	defer b.endSnapshot(conn)
	return fn(func(q string, args []any, scan func(sqlstore.Rows) error) error {
		rows, err := conn.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return scanAll(rows, scan)
	})
}

// scanAll hands rows to scan and reports the first error.
func scanAll(rows *sql.Rows, scan func(sqlstore.Rows) error) error {
	if err := scan(rows); err != nil {
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
}
