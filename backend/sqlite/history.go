package sqlite

import (
	"context"
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// Row history (backend.HistoryBlock, backend.HistoryReader) is kept in
// two tables of relchain's own beside relchain_system, created at every
// open (so also in a database from before them): relchain_history_blocks
// (a row per recorded block) and relchain_history_versions (a row per
// version, keyed by table, key and height, indexed by height). Being
// relchain_* tables, they have no capture triggers, the state digest, the
// canonical tables, the dump and the pg catalog leave them out, and the
// gate refuses every client statement that names them. A checkpoint
// (VACUUM INTO) copies the database whole: TakeCheckpoint empties them
// in the copy (stripHistory).

var (
	_ backend.HistoryBlock  = (*block)(nil)
	_ backend.HistoryReader = (*Backend)(nil)
)

// historySchema creates the history tables (part of schema).
const historySchema = `
CREATE TABLE IF NOT EXISTS relchain_history_blocks (
	height INTEGER PRIMARY KEY,
	time INTEGER NOT NULL,
	app_hash BLOB NOT NULL,
	txs BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS relchain_history_versions (
	tbl TEXT NOT NULL,
	key BLOB NOT NULL,
	height INTEGER NOT NULL,
	op TEXT NOT NULL,
	image BLOB,
	txs BLOB NOT NULL,
	PRIMARY KEY (tbl, key, height)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS relchain_history_versions_height ON relchain_history_versions (height);
CREATE TABLE IF NOT EXISTS relchain_history_states (
	height INTEGER PRIMARY KEY,
	state BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS relchain_history_roots (
	height INTEGER PRIMARY KEY,
	roots BLOB NOT NULL
);`

// historySQL are the history reads (sqlstore.HistorySQL).
var historySQL = sqlstore.HistorySQL{
	Range:  `SELECT COALESCE(MIN(height), 0), COALESCE(MAX(height), 0) FROM relchain_history_blocks`,
	Prev:   `SELECT op, image FROM relchain_history_versions WHERE tbl = ?1 AND key = ?2 AND height < ?3 ORDER BY height DESC LIMIT 1`,
	From:   `SELECT height, op, image, txs FROM relchain_history_versions WHERE tbl = ?1 AND key = ?2 AND height >= ?3 ORDER BY height LIMIT ?4`,
	At:     `SELECT height, op, image, txs FROM relchain_history_versions WHERE tbl = ?1 AND key = ?2 AND height <= ?3 ORDER BY height DESC LIMIT 2`,
	Counts: `SELECT height, COUNT(*) FROM relchain_history_versions WHERE height >= ?1 GROUP BY height ORDER BY height LIMIT ?2`,
	Changes: `SELECT v.height, v.tbl, v.key, v.op, v.image, v.txs, p.op, p.image
		FROM relchain_history_versions v LEFT JOIN relchain_history_versions p
		ON p.tbl = v.tbl AND p.key = v.key AND p.height = (SELECT MAX(q.height) FROM relchain_history_versions q
			WHERE q.tbl = v.tbl AND q.key = v.key AND q.height < v.height)
		WHERE v.height BETWEEN ?1 AND ?2 ORDER BY v.height, v.tbl, v.key`,
	Blocks: `SELECT height, time, app_hash, txs FROM relchain_history_blocks WHERE height BETWEEN ?1 AND ?2 ORDER BY height`,
	Table: `SELECT v.height, v.tbl, v.key, v.op, v.image, v.txs, p.op, p.image
		FROM relchain_history_versions v LEFT JOIN relchain_history_versions p
		ON p.tbl = v.tbl AND p.key = v.key AND p.height = (SELECT MAX(q.height) FROM relchain_history_versions q
			WHERE q.tbl = v.tbl AND q.key = v.key AND q.height < v.height)
		WHERE v.tbl = ?1 AND v.height >= ?2 ORDER BY v.height, v.key LIMIT ?3`,
	State: `SELECT state FROM relchain_history_states WHERE height = ?1`,
	Roots: `SELECT height, roots FROM relchain_history_roots WHERE height <= ?1 ORDER BY height DESC LIMIT 1`,
}

// historyPrune deletes what lies below a height (?1): the newest roots
// below it stay (the heights from it on need them).
var historyPrune = []string{
	"DELETE FROM relchain_history_versions WHERE height < ?1",
	"DELETE FROM relchain_history_blocks WHERE height < ?1",
	"DELETE FROM relchain_history_states WHERE height < ?1",
	"DELETE FROM relchain_history_roots WHERE height < (SELECT COALESCE(MAX(height), 0) FROM relchain_history_roots WHERE height <= ?1)",
}

// AppendHistory implements backend.HistoryBlock on the writer, in the
// block's db-transaction, through statements kept compiled.
func (k *block) AppendHistory(ctx context.Context, info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	defer b.interruptible(ctx)()
	b.internal = true
	defer func() { b.internal = false }()
	return interrupted(ctx, "append history", b.appendHistory(info, versions, pruneBelow))
}

// appendHistory is AppendHistory holding the writer.
func (b *Backend) appendHistory(info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) error {
	if pruneBelow > 0 {
		for _, sql := range historyPrune {
			if err := b.historyExec(sql, pruneBelow); err != nil {
				return fmt.Errorf("prune history below %d: %w", pruneBelow, err)
			}
		}
	}
	err := b.historyExec("INSERT INTO relchain_history_blocks (height, time, app_hash, txs) VALUES (?1, ?2, ?3, ?4)",
		info.Height, info.TimeUnixNano, nonNil(info.AppHash), sqlstore.EncodeBlockTxs(info.Txs))
	if err == nil && info.State != nil {
		err = b.historyExec("INSERT INTO relchain_history_states (height, state) VALUES (?1, ?2)", info.Height, info.State)
	}
	if err == nil && info.Roots != nil {
		err = b.historyExec("INSERT OR REPLACE INTO relchain_history_roots (height, roots) VALUES (?1, ?2)", info.Height, info.Roots)
	}
	if err != nil {
		return fmt.Errorf("record history of block %d: %w", info.Height, err)
	}
	for _, v := range versions {
		var image any = v.Image
		if v.Op == backend.HistoryDelete {
			image = nil
		}
		err := b.historyExec("INSERT INTO relchain_history_versions (tbl, key, height, op, image, txs) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
			v.Table, nonNil(v.Key), info.Height, string(rune(v.Op)), image, sqlstore.EncodeVersionTxs(v.Txs))
		if err != nil {
			return fmt.Errorf("record history of block %d: %s: %w", info.Height, v.Table, err)
		}
	}
	return nil
}

// nonNil is b, or an empty slice when nil (a NOT NULL blob).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// historyExec runs one of the history's statements on the writer, kept
// compiled.
func (b *Backend) historyExec(sql string, args ...any) error {
	st, err := b.internalStmt(sql)
	if err != nil {
		return err
	}
	defer st.ClearBindings()
	if err := bindAll(st, args); err != nil {
		return err
	}
	return st.Exec()
}

// bindAll binds args to st's parameters 1 to len(args).
func bindAll(st *sqlite3.Stmt, args []any) error {
	for i, a := range args {
		var err error
		switch x := a.(type) {
		case int:
			err = st.BindInt64(i+1, int64(x))
		case int64:
			err = st.BindInt64(i+1, x)
		case []byte:
			if x == nil {
				err = st.BindNull(i + 1)
			} else {
				err = st.BindBlob(i+1, x)
			}
		default:
			err = bindRaw(st, i+1, a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// historyRead runs fn with queries on a read connection in one read
// transaction: one snapshot of committed history. Its statements are
// kept compiled on the reader (readCache.own).
func (b *Backend) historyRead(ctx context.Context, fn func(q sqlstore.HistoryQuery) error) error {
	r, err := b.reader(ctx)
	if err != nil {
		return err
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer closeQuietly(func() error { return rc.exec("ROLLBACK") })
	return fn(func(sql string, args []any, scan func(sqlstore.Rows) error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := rc.own(sql) // kept compiled with the reader's own
		if err != nil {
			return err
		}
		defer st.ClearBindings()
		defer st.Reset()
		if err := bindAll(st, args); err != nil {
			return err
		}
		return scan(stmtRows{st})
	})
}

// stmtRows reads a statement's rows as sqlstore.Rows: Scan takes
// *int64, *string and *[]byte (nil for NULL).
type stmtRows struct{ st *sqlite3.Stmt }

func (r stmtRows) Next() bool { return r.st.Step() }
func (r stmtRows) Err() error { return r.st.Err() }

func (r stmtRows) Scan(dest ...any) error {
	for i, d := range dest {
		switch x := d.(type) {
		case *int64:
			*x = r.st.ColumnInt64(i)
		case *string:
			*x = r.st.ColumnText(i)
		case *[]byte:
			*x = nil
			if r.st.ColumnType(i) != sqlite3.NULL {
				*x = r.st.ColumnBlob(i, []byte{})
			}
		default:
			return fmt.Errorf("scan into %T", d)
		}
	}
	return nil
}
