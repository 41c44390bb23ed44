package mysql

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/rowcanon"
)

var _ backend.CanonicalBlock = (*block)(nil)

// canonRecord is one row image a change record of the block held (an
// INSERT's or DELETE's image, an UPDATE's new or old one), as the capture
// triggers wrote it (imageSQL: a JSON object of every column). ChangeDigest
// keeps them (a reference each, no copy) for CanonicalDelta, which reads
// the primary key out of them.
type canonRecord struct {
	table, image []byte
	tx, lane     int
}

// CanonicalTables implements backend.CanonicalBlock: the replicated tables
// as the block's db-transaction sees them.
func (k *block) CanonicalTables(ctx context.Context) ([]string, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		return nil, err
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	names, err := canonTables(ctx, k.conn)
	return names, k.wrapInterrupted(err)
}

// CanonicalTableRows implements backend.CanonicalBlock: table's rows in
// the block's db-transaction (its writes included).
func (k *block) CanonicalTableRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		return err
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	return k.wrapInterrupted(k.b.canonRows(ctx, k.conn, table, fn))
}

// CanonicalDelta implements backend.CanonicalBlock. The keys are read out
// of the images of every change record ChangeDigest consumed since Begin,
// and of those still waiting in relchain_changes (a superset does no
// harm); each key's row is then read by primary key in the block's
// db-transaction, a batch of keys per query. A key whose row the read
// does not return (deleted, or its key changed) holds nil; a read may
// return a row of another key equal under the column's collation (PAD
// SPACE, a case-insensitive one), which is told apart by its canonical
// key. A table whose key has a float column is rescanned: a float's text
// in a record is not exact.
func (k *block) CanonicalDelta(ctx context.Context) (backend.CanonicalDelta, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		return backend.CanonicalDelta{}, err
	}
	if k.ddl || k.ranDDL {
		return backend.CanonicalDelta{SchemaChanged: true}, nil
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	byTable, err := k.canonImages(ctx)
	if err != nil {
		return backend.CanonicalDelta{}, fmt.Errorf("mysql: canonical delta: %w", k.wrapInterrupted(err))
	}
	if byTable == nil {
		return backend.CanonicalDelta{SchemaChanged: true}, nil
	}
	tables := make([]string, 0, len(byTable))
	for t := range byTable {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	var d backend.CanonicalDelta
	for _, t := range tables {
		td, err := k.canonTableDelta(ctx, t, byTable[t])
		if err != nil {
			return backend.CanonicalDelta{}, fmt.Errorf("mysql: canonical delta: %w", k.wrapInterrupted(err))
		}
		d.Tables = append(d.Tables, td)
	}
	return d, nil
}

// tableImages are the images of a table's change records and, in the
// same order, their txs.
type tableImages struct {
	images [][]byte
	txs    []int
}

// add notes one record's image.
func (ti *tableImages) add(image []byte, tx int) {
	ti.images, ti.txs = append(ti.images, image), append(ti.txs, tx)
}

// canonImages gathers the images of the block's change records by table:
// those ChangeDigest consumed and those still in relchain_changes. nil: a
// schema record is among the latter.
func (k *block) canonImages(ctx context.Context) (map[string]*tableImages, error) {
	byTable := map[string]*tableImages{}
	of := func(t string) *tableImages {
		if byTable[t] == nil {
			byTable[t] = &tableImages{}
		}
		return byTable[t]
	}
	for _, r := range k.canonRecs {
		of(string(r.table)).add(r.image, r.tx)
	}
	rows, err := k.conn.QueryContext(ctx, "SELECT tbl, img, old, tx FROM relchain_changes")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	schema := false
	for rows.Next() {
		var tbl string
		var img, old []byte
		var tx int
		if err := rows.Scan(&tbl, &img, &old, &tx); err != nil {
			return nil, err
		}
		if tbl == "" {
			schema = true
		}
		of(tbl).add(img, tx)
		if old != nil {
			of(tbl).add(old, tx)
		}
	}
	if err := rows.Err(); err != nil || schema {
		return nil, err
	}
	return byTable, nil
}

// canonTableDelta is the delta of table, whose change records held
// images. A refusal of the table's schema or of a value is its Err.
func (k *block) canonTableDelta(ctx context.Context, table string, recs *tableImages) (backend.CanonicalTableDelta, error) {
	td := backend.CanonicalTableDelta{Table: table}
	t, err := k.b.canonColumns(ctx, k.conn, table)
	if err != nil {
		if backend.NotCanonical(err) {
			td.Err = err
			return td, nil
		}
		return td, err
	}
	for _, i := range t.pk {
		if t.cols[i].kind == kindFloat {
			td.Rescan = true
			return td, nil
		}
	}
	keys, err := t.recordKeys(recs.images, recs.txs)
	if err == nil {
		td.Rows, err = k.readKeys(ctx, t, keys)
	}
	if err != nil && backend.NotCanonical(err) {
		td.Rows, td.Err = nil, fmt.Errorf("canonical rows of %s: %w", table, err)
		return td, nil
	}
	return td, err
}

// recordKey is one key named by the records: its canonical bytes, the
// values that find its row (one per key column) and the txs of the
// records that named it (recordKeys).
type recordKey struct {
	key  string
	args []any
	txs  []int
}

// recordKeys reads the primary key out of each image, once per key,
// sorted by key, with the txs of the images (txs[i] is image i's) that
// named it.
func (t canonTable) recordKeys(images [][]byte, txs []int) ([]recordKey, error) {
	seen := map[string]bool{}
	named := make(sqlstore.KeyTxs)
	var keys []recordKey
	for n, img := range images {
		rk, err := t.recordKey(img)
		if err != nil {
			return nil, err
		}
		named.Add([]byte(rk.key), txs[n])
		if !seen[rk.key] {
			seen[rk.key] = true
			keys = append(keys, rk)
		}
	}
	for i := range keys {
		keys[i].txs = named.Of([]byte(keys[i].key))
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].key < keys[j].key })
	return keys, nil
}

// recordKey reads the primary key out of one image.
func (t canonTable) recordKey(img []byte) (recordKey, error) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(img))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return recordKey{}, fmt.Errorf("change record of %s: %w", t.name, err)
	}
	vals := make([]rowcanon.Value, len(t.pk))
	args := make([]any, len(t.pk))
	for n, i := range t.pk {
		c := t.cols[i]
		s, arg, err := jsonKeyText(c, obj[c.name])
		if err != nil {
			return recordKey{}, fmt.Errorf("change record of %s: column %s: %w", t.name, c.name, err)
		}
		if vals[n], err = textValue(c, s); err != nil {
			return recordKey{}, notCanonical(c, err)
		}
		args[n] = arg
	}
	key, err := rowcanon.EncodeKey(vals)
	if err != nil {
		return recordKey{}, fmt.Errorf("key: %w: %w", backend.ErrValueNotCanonical, err)
	}
	return recordKey{key: string(key), args: args}, nil
}

// jsonKeyText is the text textValue reads of key column c's value v in a
// change record's JSON image (imageSQL), and the argument that finds it.
func jsonKeyText(c canonColumn, v any) (string, any, error) {
	switch x := v.(type) {
	case json.Number:
		if c.kind == kindInt || c.kind == kindUnsigned || c.kind == kindNumeric || c.kind == kindBool {
			return x.String(), x.String(), nil
		}
	case string:
		if c.kind == kindBytes {
			b, err := hex.DecodeString(x)
			return string(b), b, err
		}
		if c.kind != kindInt && c.kind != kindUnsigned && c.kind != kindNumeric && c.kind != kindBool {
			return x, x, nil
		}
	}
	return "", nil, fmt.Errorf("unexpected %T in the image of a %s", v, c.shown)
}

// keysPerRead bounds the keys one read by primary key asks for.
const keysPerRead = 200

// readKeys reads the rows of keys by primary key in the block's
// db-transaction: each key with its row's image, or nil.
func (k *block) readKeys(ctx context.Context, t canonTable, keys []recordKey) ([]backend.CanonicalChange, error) {
	var found map[string][]byte
	var err error
	if len(k.lanes) == 0 {
		found, err = t.readByKey(ctx, k.conn, keys)
	} else {
		found, err = k.readKeysOnLanes(ctx, t, keys)
	}
	if err != nil {
		return nil, err
	}
	rows := make([]backend.CanonicalChange, len(keys))
	for i, rk := range keys {
		rows[i] = backend.CanonicalChange{Key: []byte(rk.key), Image: found[rk.key], Txs: rk.txs}
	}
	return rows, nil
}

// readByKey reads the rows of keys by primary key with p (inside its
// transaction), keysPerRead keys a query, their values parameters: the
// image of each key a row holds, by key. A read may return a row of
// another key equal under the column's collation (PAD SPACE, a
// case-insensitive one): rows are kept by their own canonical key, so
// such a row is never taken for the asked key's.
func (t canonTable) readByKey(ctx context.Context, p preparer, keys []recordKey) (map[string][]byte, error) {
	found := map[string][]byte{}
	var cond strings.Builder
	for i, c := range t.pk {
		if i > 0 {
			cond.WriteString(" AND ")
		}
		cond.WriteString(quoteIdent(t.cols[c].name) + " = ?")
	}
	one := "(" + cond.String() + ")"
	for start := 0; start < len(keys); start += keysPerRead {
		batch := keys[start:min(start+keysPerRead, len(keys))]
		var args []any
		for _, rk := range batch {
			args = append(args, rk.args...)
		}
		where := one + strings.Repeat(" OR "+one, len(batch)-1)
		if len(t.pk) == 1 { // the optimizer's range of an IN list is cheaper to build
			where = quoteIdent(t.cols[t.pk[0]].name) + " IN (?" + strings.Repeat(", ?", len(batch)-1) + ")"
		}
		q := "SELECT " + t.selectList() + " FROM " + quoteIdent(t.name) + " WHERE " + where
		err := t.canonQuery(ctx, p, q, args, func(key, image []byte) error {
			found[string(key)] = bytes.Clone(image)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}

// canonBlock is the Block Begin hands out: the classified block
// (sqlstore.ClassifiedBlock) that is also a backend.CanonicalBlock, its
// errors classified alike.
type canonBlock struct {
	sqlstore.ClassifiedBlock
	k *block
}

var _ backend.CanonicalBlock = canonBlock{}

// CanonicalDelta implements backend.CanonicalBlock.
func (c canonBlock) CanonicalDelta(ctx context.Context) (backend.CanonicalDelta, error) {
	d, err := c.k.CanonicalDelta(ctx)
	return d, unavailable(ctx, err)
}

// CanonicalTables implements backend.CanonicalBlock.
func (c canonBlock) CanonicalTables(ctx context.Context) ([]string, error) {
	names, err := c.k.CanonicalTables(ctx)
	return names, unavailable(ctx, err)
}

// CanonicalTableRows implements backend.CanonicalBlock.
func (c canonBlock) CanonicalTableRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	return unavailable(ctx, c.k.CanonicalTableRows(ctx, table, fn))
}

// BoundLockWaits implements backend.LockWaitBounder as the classified
// block does; the block it returns is still canonical (the mysql block
// bounds no lock waits: it is the writer, alone).
func (c canonBlock) BoundLockWaits(ctx context.Context, d time.Duration) (backend.Block, error) {
	b, err := c.ClassifiedBlock.BoundLockWaits(ctx, d)
	if cb, ok := b.(sqlstore.ClassifiedBlock); ok && err == nil && cb.Inner == backend.Block(c.k) {
		return c, nil
	}
	return b, err
}

// readKeysOnLanes is readByKey for a parallel block: each key is read on
// the session that ran the txs that changed it (lanes change disjoint
// keys; a session sees no other lane's uncommitted rows).
func (k *block) readKeysOnLanes(ctx context.Context, t canonTable, keys []recordKey) (map[string][]byte, error) {
	defer k.lockLanes()()
	sessions := k.sessions()
	byLane := make([][]recordKey, len(sessions))
	for _, rk := range keys {
		i := 0
		for j, s := range sessions {
			if len(rk.txs) > 0 && s.txs[rk.txs[0]] {
				i = j
				break
			}
		}
		byLane[i] = append(byLane[i], rk)
	}
	found := map[string][]byte{}
	for i, s := range sessions {
		if len(byLane[i]) == 0 {
			continue
		}
		f, err := t.readByKey(ctx, s.conn, byLane[i])
		if err != nil {
			return nil, fmt.Errorf("lane %d: %w", s.lane, err)
		}
		for key, img := range f {
			found[key] = img
		}
	}
	return found, nil
}
