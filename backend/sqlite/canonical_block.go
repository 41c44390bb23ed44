package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/rowcanon"
)

// A block's canonical rows (issue 36): CanonicalDelta names the rows a
// block changed by the keys its change records hold. The records are
// the ones the state digest folds in (capture.go): the hook's, and those
// capture triggers write for tables with user triggers or foreign-key
// actions, so no row a record names is missed. ChangeDigest hands every
// record it consumes to changedRows (hookDigest) before dropping it: a
// copy of its image, nothing more on the hot path. CanonicalDelta then
// reads the key columns back out of the images (an image is SQLite's
// quote() of every column, parseImage), encodes each key as CanonicalRows
// does, and reads the row each key holds now inside the block's
// db-transaction, one prepared statement per table. A record of a change
// a savepoint rolled back stays: its key re-reads as the row it is, which
// changes no tree.
//
// A table whose records all come from the hook (no capture triggers:
// no user triggers, no foreign-key actions) skips the read back: the hook
// writes each record when its row changes, so the table's records are its
// rows' changes in the order they happened, every one a savepoint or a
// failed statement undid dropped (capture.go), and a key's last record is
// the row it holds after the block: an 'I' or 'U' its image, a 'D' or a
// 'B' (an update that moved the row to another key) no row. The image
// holds the stored values (a whole REAL as SQLite stores it, so -0 reads
// back as 0, as from the table), which become the canonical row as a
// scan's values do. A capture trigger places its record after the row's
// later changes (an AFTER trigger that updates the row again records
// first), so such a table's keys are read back; so are every table's
// when ChangeDigest consumed records inside an open savepoint (reread: a
// rollback after it would leave them), which the executor never does.

var (
	_ backend.CanonicalReader = (*Backend)(nil)
	_ backend.CanonicalBlock  = (*block)(nil)
)

// errNotPostgres is the error of every canonical method of a backend of
// SQLite's own dialect.
var errNotPostgres = fmt.Errorf("only a backend of the postgres dialect has canonical rows: %w", errors.ErrUnsupported)

// changedRows are the images of the records ChangeDigest consumed since
// Begin, guarded by wmu; image i is arena[ends[i-1]:ends[i]] of table
// tbls[i], written by tx txs[i] (backend.NoTx: outside every savepoint). cut holds the tables of which an image cut a text at a NUL
// (quote() stops there): such a key cannot be read back from its image,
// and the table's part of the delta asks for a rescan, which finds the
// value rowcanon refuses if a row still holds it.
type changedRows struct {
	tbls  []string
	ends  []int
	txs   []int
	ops   []byte
	arena []byte
	cut   map[string]bool
	// reread: records were consumed inside an open savepoint; every
	// table's keys are read back.
	reread bool
	// lookups are the texts of the lookups by key kept compiled among
	// the writer's internal statements (lookupStmt); not reset per block.
	lookups map[string]bool
	// columns are the tables' canonical columns read on the writer at
	// capture's schema version columnsVer (blockColumns); not reset per
	// block.
	columns    map[string]tableColumns
	columnsVer int64
}

// tableColumns are canonColumns' answer for a table.
type tableColumns struct {
	cols []canonColumn
	pk   []int
	err  error
}

// blockColumns is canonColumns of table on the writer, kept while the
// schema stays at the version capture read (a block without DDL leaves
// it there) and dropped with the compiled lookups.
func (b *Backend) blockColumns(table string) ([]canonColumn, []int, error) {
	c := &b.changed
	if c.columns == nil || c.columnsVer != b.hook.ver {
		c.columns, c.columnsVer = make(map[string]tableColumns), b.hook.ver
	}
	tc, ok := c.columns[table]
	if !ok {
		tc.cols, tc.pk, tc.err = canonColumns(b.w, table)
		if tc.err != nil && !backend.NotCanonical(tc.err) {
			return nil, nil, tc.err // a failure of the database: not kept
		}
		c.columns[table] = tc
	}
	return tc.cols, tc.pk, tc.err
}

// cutAt notes that an image of table cut a text at a NUL.
func (c *changedRows) cutAt(table string) {
	if c.cut == nil {
		c.cut = make(map[string]bool)
	}
	c.cut[table] = true
}

// add keeps the images of records (their bytes in arena).
func (c *changedRows) add(records []capRecord, arena []byte) {
	for _, r := range records {
		c.arena = append(c.arena, arena[r.from:r.to]...)
		c.tbls = append(c.tbls, r.tbl)
		c.ends = append(c.ends, len(c.arena))
		c.txs = append(c.txs, r.tx)
		c.ops = append(c.ops, r.op)
	}
}

// reset forgets every image (Begin, Commit, Rollback).
func (c *changedRows) reset() {
	clear(c.tbls) // let go of the names
	clear(c.cut)
	c.tbls, c.ends, c.txs, c.ops, c.arena = c.tbls[:0], c.ends[:0], c.txs[:0], c.ops[:0], c.arena[:0]
	c.reread = false
}

// tableImages are a table's change records: their images and, in the
// same order, their txs and ops.
type tableImages struct {
	images [][]byte
	txs    []int
	ops    []byte
}

// byTable returns the kept images and those of pending (the hook's
// records ChangeDigest has not consumed yet, their bytes in arena) by
// table, and the tables sorted.
func (c *changedRows) byTable(pending []capRecord, arena []byte) (map[string]*tableImages, []string) {
	m := make(map[string]*tableImages)
	add := func(t string, image []byte, tx int, op byte) {
		ti := m[t]
		if ti == nil {
			ti = &tableImages{}
			m[t] = ti
		}
		ti.images, ti.txs, ti.ops = append(ti.images, image), append(ti.txs, tx), append(ti.ops, op)
	}
	from := 0
	for i, t := range c.tbls {
		add(t, c.arena[from:c.ends[i]], c.txs[i], c.ops[i])
		from = c.ends[i]
	}
	for _, r := range pending {
		add(r.tbl, arena[r.from:r.to], r.tx, r.op)
	}
	names := make([]string, 0, len(m))
	for t := range m {
		names = append(names, t)
	}
	slices.Sort(names)
	return m, names
}

// CanonicalTables implements backend.CanonicalReader: the replicated
// tables of committed state, read on a read connection.
func (b *Backend) CanonicalTables(ctx context.Context) ([]string, error) {
	if !b.opts.pg {
		return nil, fmt.Errorf("canonical tables: %w", errNotPostgres)
	}
	r, err := b.reader(ctx)
	if err != nil {
		return nil, fmt.Errorf("canonical tables: %w", err)
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		return nil, fmt.Errorf("canonical tables: begin: %w", err)
	}
	defer closeQuietly(func() error { return rc.exec("ROLLBACK") })
	return canonTables(r)
}

// canonTables lists the replicated tables as c sees them, sorted by bytes.
func canonTables(c *sqlite3.Conn) ([]string, error) {
	infos, err := replicatedTables(c)
	if err != nil {
		return nil, fmt.Errorf("canonical tables: %w", err)
	}
	seqState, _, err := c.Prepare(`SELECT 1 FROM pragma_table_info(?1) WHERE cid = 0 AND type = 'int8 sequence'`)
	if err != nil {
		return nil, fmt.Errorf("canonical tables: %w", err)
	}
	defer seqState.Close()
	names := make([]string, 0, len(infos))
	for _, t := range infos {
		seq, err := isSequenceState(seqState, t.name)
		if err != nil {
			return nil, fmt.Errorf("canonical tables: %w", err)
		}
		if !seq {
			names = append(names, t.name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// isSequenceState reports whether table is a sequence's state table (the
// dialect's "Serial columns": its first column declared "int8 sequence",
// a type no client's DDL can name): relchain's own state, as
// relchain.sequences is on PostgreSQL, covered by the sequences' digest
// (CanonicalSequences), not a table of the map.
func isSequenceState(q *sqlite3.Stmt, table string) (bool, error) {
	defer q.Reset()
	if err := q.BindText(1, table); err != nil {
		return false, err
	}
	if q.Step() {
		return true, nil
	}
	return false, q.Err()
}

// inBlock runs fn on the writer inside the block's db-transaction, as
// relchain's own read (the authorizer allows it; it fires no pre-update
// hook and runs on no fuel), stopping when ctx is done.
func (k *block) inBlock(ctx context.Context, fn func(b *Backend) error) error {
	if !k.b.opts.pg {
		return errNotPostgres
	}
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	defer b.interruptible(ctx)()
	b.internal = true
	defer func() { b.internal = false }()
	return interrupted(ctx, "canonical read", fn(b))
}

// CanonicalTables implements backend.CanonicalBlock: the replicated
// tables inside the block's db-transaction, its DDL included.
func (k *block) CanonicalTables(ctx context.Context) ([]string, error) {
	var names []string
	err := k.inBlock(ctx, func(b *Backend) (err error) {
		names, err = canonTables(b.w)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("canonical tables in block: %w", err)
	}
	return names, nil
}

// CanonicalTableRows implements backend.CanonicalBlock: CanonicalRows of
// table inside the block's db-transaction, its writes included. fn runs
// holding the block: it must not call the block or the backend's writer.
func (k *block) CanonicalTableRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	return k.inBlock(ctx, func(b *Backend) error {
		cols, pk, err := canonColumns(b.w, table)
		if err != nil {
			return err
		}
		return canonScan(ctx, b.w, table, cols, pk, fn)
	})
}

// CanonicalDelta implements backend.CanonicalBlock. A block that changed
// the schema (the signal StateDigest rescans on) has SchemaChanged and no
// Tables. Records still waiting for ChangeDigest are taken too (a superset
// of keys is harmless).
func (k *block) CanonicalDelta(ctx context.Context) (backend.CanonicalDelta, error) {
	var d backend.CanonicalDelta
	err := k.inBlock(ctx, func(b *Backend) error {
		if b.blockDDL {
			d.SchemaChanged = true
			return nil
		}
		images, tables := b.changed.byTable(b.hook.records, b.hook.arena)
		for _, t := range tables {
			if b.changed.cut[t] {
				d.Tables = append(d.Tables, backend.CanonicalTableDelta{Table: t, Rescan: true})
				continue
			}
			td, err := tableDelta(ctx, b, t, images[t])
			if err != nil {
				return err
			}
			d.Tables = append(d.Tables, td)
		}
		return nil
	})
	if err != nil {
		return backend.CanonicalDelta{}, fmt.Errorf("canonical delta: %w", err)
	}
	return d, nil
}

// tableDelta is table's part of the delta, from the images its records
// hold and their txs. A refusal of the table's schema or of a value is
// the part's Err; anything else is the error.
func tableDelta(ctx context.Context, b *Backend, table string, recs *tableImages) (backend.CanonicalTableDelta, error) {
	td := backend.CanonicalTableDelta{Table: table}
	refused := func(err error) (backend.CanonicalTableDelta, error) {
		if backend.NotCanonical(err) {
			td.Err = err
			return td, nil
		}
		return backend.CanonicalTableDelta{}, err
	}
	cols, pk, err := b.blockColumns(table)
	if err != nil {
		return refused(err)
	}
	var ops []byte
	if t := b.hook.tables[table]; t != nil && t.triggered == "" && !b.changed.reread {
		ops = recs.ops // the records are the rows' changes in order
	}
	keys, err := changedKeys(table, cols, pk, recs.images, recs.txs, ops)
	if err != nil {
		return refused(err)
	}
	var rows []backend.CanonicalChange
	if ops != nil {
		rows, err = recordedRows(ctx, b, table, cols, pk, keys)
	} else {
		rows, err = readKeys(ctx, b, table, cols, pk, keys)
	}
	if err != nil {
		return refused(err)
	}
	td.Rows = rows
	return td, nil
}

// recordedRows are the rows keys hold after the block as their last
// records left them (changedKeys with ops). A key whose last image holds
// a REAL zero is read back: quote() writes -0 as 0.0, and a column
// without REAL affinity stores -0 as it is.
func recordedRows(ctx context.Context, b *Backend, table string, cols []canonColumn, pk []int, keys []changedKey) ([]backend.CanonicalChange, error) {
	out := make([]backend.CanonicalChange, len(keys))
	row := make([]rowcanon.Column, len(cols))
	var unsure []changedKey
	var at []int
	for i, k := range keys {
		out[i] = backend.CanonicalChange{Key: k.key, Txs: k.txs}
		if k.last == nil {
			continue
		}
		if holdsZeroReal(k.last) {
			unsure, at = append(unsure, k), append(at, i)
			continue
		}
		for c, col := range cols {
			v, err := rawCanon(k.last[c], col.typ)
			if err != nil {
				return nil, fmt.Errorf("canonical rows of %s: column %s: %w", table, col.name, err)
			}
			row[c] = rowcanon.Column{Name: col.name, Value: v}
		}
		key, image, err := backend.CanonicalRow(table, row, pk)
		if err != nil {
			return nil, fmt.Errorf("canonical rows of %s: %w", table, notCanonical(err))
		}
		if !bytes.Equal(key, k.key) {
			return nil, fmt.Errorf("canonical rows of %s: a record's key %x encodes as %x from its row", table, k.key, key)
		}
		out[i].Image = image
	}
	if len(unsure) == 0 {
		return out, nil
	}
	read, err := readKeys(ctx, b, table, cols, pk, unsure)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		out[i].Image = read[j].Image
	}
	return out, nil
}

// holdsZeroReal reports whether a parsed image holds a REAL zero.
func holdsZeroReal(vals []any) bool {
	for _, v := range vals {
		if f, ok := v.(float64); ok && f == 0 {
			return true
		}
	}
	return false
}

// changedKey is a key to look up (one a record named, or one asked for
// by CanonicalRowsByKey): its encoding and its columns' stored values,
// to look it up with (nil: no stored value can hold it), and the txs of
// the records that named it. last is every column's stored value in the
// row its last record left (nil: none), when the records' ops were given.
type changedKey struct {
	key  []byte
	vals []any
	txs  []int
	last []any
}

// changedKeys reads the key of each image, each key once, sorted by
// bytes, with the txs of the images (txs[i] is image i's; nil: none)
// that named it and, when ops (ops[i] is image i's) are given, the row
// its last record left.
func changedKeys(table string, cols []canonColumn, pk []int, images [][]byte, txs []int, ops []byte) ([]changedKey, error) {
	seen := make(map[string]int, len(images))
	named := make(sqlstore.KeyTxs)
	var keys []changedKey
	cv := make([]rowcanon.Value, len(pk))
	for n, img := range images {
		all, err := parseImage(img, len(cols))
		if err != nil {
			return nil, fmt.Errorf("canonical rows of %s: change record: %w", table, err)
		}
		vals := make([]any, len(pk))
		for i, k := range pk {
			vals[i] = all[k]
			if cv[i], err = rawCanon(all[k], cols[k].typ); err != nil {
				return nil, fmt.Errorf("canonical rows of %s: key column %s: %w", table, cols[k].name, err)
			}
		}
		key, err := rowcanon.EncodeKey(cv)
		if err != nil {
			return nil, notCanonical(fmt.Errorf("canonical rows of %s: key: %w", table, err))
		}
		if txs != nil {
			named.Add(key, txs[n])
		}
		at, ok := seen[string(key)]
		if !ok {
			at = len(keys)
			seen[string(key)] = at
			keys = append(keys, changedKey{key: key, vals: vals})
		}
		if ops != nil {
			keys[at].last = nil
			if ops[n] == 'I' || ops[n] == 'U' {
				keys[at].last = all
			}
		}
	}
	for i := range keys {
		keys[i].txs = named.Of(keys[i].key)
	}
	slices.SortFunc(keys, func(a, b changedKey) int { return bytes.Compare(a.key, b.key) })
	return keys, nil
}

// readKeys reads the row each key holds now: its image, or nil when no
// row has the key.
func readKeys(ctx context.Context, b *Backend, table string, cols []canonColumn, pk []int, keys []changedKey) ([]backend.CanonicalChange, error) {
	st, err := b.lookupStmt(lookupSQL(table, cols, pk))
	if err != nil {
		return nil, fmt.Errorf("canonical rows of %s: %w", table, err)
	}
	images, err := lookupKeys(ctx, st, table, cols, pk, keys)
	if err != nil {
		return nil, err
	}
	out := make([]backend.CanonicalChange, len(keys))
	for i, k := range keys {
		out[i] = backend.CanonicalChange{Key: k.key, Image: images[i], Txs: k.txs}
	}
	return out, nil
}

// lookupSQL is table's lookup by key: every column, in declared order,
// of the rows whose key columns are IS the parameters 1 to len(pk).
func lookupSQL(table string, cols []canonColumn, pk []int) string {
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = quoteIdent(col.name)
	}
	where := make([]string, len(pk))
	for i, k := range pk {
		where[i] = fmt.Sprintf("%s IS ?%d", names[k], i+1)
	}
	return "SELECT " + strings.Join(names, ", ") + " FROM " + quoteIdent(table) + " WHERE " + strings.Join(where, " AND ")
}

// lookupKeys runs st, table's lookup (lookupSQL), for each key and returns
// the image of the row holding it, in the order of keys: nil when no row
// holds it (one whose key columns compare equal under the column's
// collation but encode otherwise is not that key's row) or when the key
// has no stored values (vals nil: no row can hold it).
func lookupKeys(ctx context.Context, st *sqlite3.Stmt, table string, cols []canonColumn, pk []int, keys []changedKey) ([][]byte, error) {
	defer st.ClearBindings()
	row := make([]rowcanon.Column, len(cols))
	out := make([][]byte, len(keys))
	for i, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if k.vals == nil {
			continue
		}
		image, err := readKey(st, table, cols, pk, row, k)
		if err != nil {
			return nil, fmt.Errorf("canonical rows of %s: %w", table, err)
		}
		out[i] = image
	}
	return out, nil
}

// lookupStmt returns the writer's compiled lookup by key sql, one of
// relchain's own statements over a table's and its columns' names, kept
// compiled as the per-block internal statements are (a table's lookup
// runs in every block that changes it) until the schema changes
// (dropLookups).
func (b *Backend) lookupStmt(sql string) (*sqlite3.Stmt, error) {
	if b.changed.lookups == nil {
		b.changed.lookups = make(map[string]bool)
	}
	b.changed.lookups[sql] = true
	return b.internalStmt(sql)
}

// dropLookups closes the kept lookups (dropStatements: the schema changed).
func (b *Backend) dropLookups() {
	for sql := range b.changed.lookups {
		if st := b.istmts[sql]; st != nil {
			st.Close()
			delete(b.istmts, sql)
		}
	}
	clear(b.changed.lookups)
	b.changed.columns = nil
}

// readKey runs st, the table's lookup by key, for k.
func readKey(st *sqlite3.Stmt, table string, cols []canonColumn, pk []int, row []rowcanon.Column, k changedKey) (image []byte, err error) {
	defer func() {
		if rerr := st.Reset(); err == nil && rerr != nil {
			err = rerr
		}
	}()
	for i, v := range k.vals {
		if err := bindRaw(st, i+1, v); err != nil {
			return nil, err
		}
	}
	for st.Step() {
		key, img, err := canonRowOf(st, table, cols, pk, row)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(key, k.key) {
			image = img
		}
	}
	return image, st.Err()
}

// bindRaw binds a value parseImage returned.
func bindRaw(st *sqlite3.Stmt, i int, v any) error {
	switch x := v.(type) {
	case nil:
		return st.BindNull(i)
	case int64:
		return st.BindInt64(i, x)
	case float64:
		return st.BindFloat(i, x)
	case string:
		return st.BindText(i, x)
	case []byte:
		return st.BindBlob(i, x)
	}
	return fmt.Errorf("bind a %T", v)
}
