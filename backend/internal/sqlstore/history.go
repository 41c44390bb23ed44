package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/relchain/relchain/backend"
)

// Row history (backend.HistoryReader) is read the same way on every
// engine: a backend runs the queries of its HistorySQL in one consistent
// read (HistoryQuery) and the functions here turn their rows into
// RowVersions, filling Before and BeforeKnown from the previous version
// of the same key. The txs of a version and of a block are stored as
// bytes (EncodeVersionTxs, EncodeBlockTxs).

// HistoryQuery runs sql with args inside the backend's consistent read
// and hands the result to scan, closing it after.
type HistoryQuery func(sql string, args []any, scan func(Rows) error) error

// HistorySQL is a backend's queries of its history tables, in its
// dialect's placeholders, each taking the arguments named.
type HistorySQL struct {
	// Range: (min height, max height) of the blocks, 0 when none.
	Range string
	// Prev (table, key, height): (op, image) of the newest version of
	// the key below height; no row when none.
	Prev string
	// From (table, key, from, limit): (height, op, image, txs) of the
	// key's versions at heights >= from, ascending, at most limit.
	From string
	// At (table, key, height): (height, op, image, txs) of the key's two
	// newest versions at heights <= height, newest first.
	At string
	// Counts (from, limit): (height, number of versions) of the blocks
	// with versions at heights >= from, ascending, at most limit.
	Counts string
	// Changes (from, to): (height, table, key, op, image, txs, previous
	// op, previous image) of every version at heights from..to, the
	// previous columns NULL when the key has no version before.
	Changes string
	// Blocks (from, to): (height, time, app hash, txs) of the blocks at
	// heights from..to.
	Blocks string
	// Table (table, from, limit): the columns of Changes for table's
	// versions at heights >= from, by height then key, at most limit.
	Table string
	// State (height): the state recorded with the block, no row when
	// none; Roots (height): (height, roots) of the newest roots kept at
	// a height <= height.
	State, Roots string
}

// CheckHistoryLimit refuses a limit outside 1..backend.MaxHistoryRows.
func CheckHistoryLimit(limit int) error {
	if limit < 1 || limit > backend.MaxHistoryRows {
		return fmt.Errorf("history limit %d is outside 1..%d", limit, backend.MaxHistoryRows)
	}
	return nil
}

// HistoryRange is backend.HistoryReader.HistoryRange.
func HistoryRange(q HistoryQuery, s *HistorySQL) (start, end int64, err error) {
	err = q(s.Range, nil, func(r Rows) error {
		if r.Next() {
			if err := r.Scan(&start, &end); err != nil {
				return err
			}
		}
		return r.Err()
	})
	if err != nil {
		return 0, 0, fmt.Errorf("history range: %w", err)
	}
	return start, end, nil
}

// scanVersions reads rows of (height, op, image, txs).
func scanVersions(table string, key []byte, r Rows) ([]backend.RowVersion, error) {
	var out []backend.RowVersion
	for r.Next() {
		v := backend.RowVersion{Table: table, Key: slices.Clone(key)}
		var op string
		var txs []byte
		if err := r.Scan(&v.Height, &op, &v.Image, &txs); err != nil {
			return nil, err
		}
		if err := setOpTxs(&v, op, txs); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}

// setOpTxs decodes a version's op and txs as stored.
func setOpTxs(v *backend.RowVersion, op string, txs []byte) (err error) {
	if len(op) != 1 || (op[0] != byte(backend.HistoryInsert) && op[0] != byte(backend.HistoryUpdate) && op[0] != byte(backend.HistoryDelete)) {
		return fmt.Errorf("stored history op %q", op)
	}
	v.Op = backend.HistoryOp(op[0])
	if v.Op == backend.HistoryDelete {
		v.Image = nil
	}
	v.Txs, err = DecodeVersionTxs(txs)
	return err
}

// setBefore fills v's Before from the previous version of its key
// (known: one exists, of op prevOp and image prevImage).
func setBefore(v *backend.RowVersion, known bool, prevOp string, prevImage []byte) {
	if !known || v.Op == backend.HistoryInsert {
		return
	}
	v.BeforeKnown = true
	if prevOp != string(backend.HistoryDelete) {
		v.Before = prevImage
	}
}

// RowHistory is backend.HistoryReader.RowHistory.
func RowHistory(q HistoryQuery, s *HistorySQL, table string, key []byte, from int64, limit int) ([]backend.RowVersion, error) {
	if err := CheckHistoryLimit(limit); err != nil {
		return nil, err
	}
	var known bool
	var prevOp string
	var prevImage []byte
	err := q(s.Prev, []any{table, key, from}, func(r Rows) error {
		if r.Next() {
			known = true
			if err := r.Scan(&prevOp, &prevImage); err != nil {
				return err
			}
		}
		return r.Err()
	})
	var vs []backend.RowVersion
	if err == nil {
		err = q(s.From, []any{table, key, from, limit}, func(r Rows) (err error) {
			vs, err = scanVersions(table, key, r)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("row history of %s: %w", table, err)
	}
	for i := range vs {
		setBefore(&vs[i], known, prevOp, prevImage)
		known, prevOp, prevImage = true, string(vs[i].Op), vs[i].Image
	}
	return vs, nil
}

// VersionAt is backend.HistoryReader.VersionAt.
func VersionAt(q HistoryQuery, s *HistorySQL, table string, key []byte, height int64) (backend.RowVersion, bool, error) {
	var vs []backend.RowVersion
	err := q(s.At, []any{table, key, height}, func(r Rows) (err error) {
		vs, err = scanVersions(table, key, r)
		return err
	})
	if err != nil {
		return backend.RowVersion{}, false, fmt.Errorf("version of %s at %d: %w", table, height, err)
	}
	if len(vs) == 0 {
		return backend.RowVersion{}, false, nil
	}
	v := vs[0]
	if len(vs) > 1 {
		setBefore(&v, true, string(vs[1].Op), vs[1].Image)
	}
	return v, true, nil
}

// HistoryChanges is backend.HistoryReader.HistoryChanges: the blocks
// with versions from from on, as many whole blocks as fit in limit
// versions (at least one).
func HistoryChanges(q HistoryQuery, s *HistorySQL, from int64, limit int) ([]backend.HistoryBlockChanges, error) {
	if err := CheckHistoryLimit(limit); err != nil {
		return nil, err
	}
	to, err := changesEnd(q, s, from, limit)
	if err != nil || to < 0 {
		return nil, err
	}
	var out []backend.HistoryBlockChanges
	err = q(s.Blocks, []any{from, to}, func(r Rows) error {
		for r.Next() {
			info, err := scanBlockInfo(r)
			if err != nil {
				return err
			}
			out = append(out, backend.HistoryBlockChanges{Info: info})
		}
		return r.Err()
	})
	if err == nil {
		err = q(s.Changes, []any{from, to}, func(r Rows) error { return scanChanges(r, out) })
	}
	if err != nil {
		return nil, fmt.Errorf("history changes from %d: %w", from, err)
	}
	kept := out[:0]
	for _, c := range out {
		if len(c.Versions) > 0 {
			slices.SortFunc(c.Versions, compareVersions)
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// TableHistory is backend.HistoryReader.TableHistory: the table's
// versions, then the infos of the blocks they name, read by runs of
// nearby heights (blockRunGap).
func TableHistory(q HistoryQuery, s *HistorySQL, table string, from int64, limit int) ([]backend.HistoryBlockChanges, bool, error) {
	if err := CheckHistoryLimit(limit); err != nil {
		return nil, false, err
	}
	var out []backend.HistoryBlockChanges
	var n int
	err := q(s.Table, []any{table, from, limit + 1}, func(r Rows) error {
		for r.Next() {
			v, err := scanChange(r)
			if err != nil {
				return err
			}
			if n++; n > limit {
				continue
			}
			if len(out) == 0 || out[len(out)-1].Info.Height != v.Height {
				out = append(out, backend.HistoryBlockChanges{Info: backend.HistoryBlockInfo{Height: v.Height}})
			}
			last := &out[len(out)-1]
			last.Versions = append(last.Versions, v)
		}
		return r.Err()
	})
	if err == nil {
		err = fillBlockInfos(q, s, out)
	}
	if err != nil {
		return nil, false, fmt.Errorf("history of table %s from %d: %w", table, from, err)
	}
	return out, n > limit, nil
}

// blockRunGap: heights this close are read by one Blocks query (the
// blocks between them are read and passed over).
const blockRunGap = 32

// fillBlockInfos reads the info of each block of out (ascending by
// height), one Blocks query per run of nearby heights.
func fillBlockInfos(q HistoryQuery, s *HistorySQL, out []backend.HistoryBlockChanges) error {
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].Info.Height-out[j-1].Info.Height <= blockRunGap {
			j++
		}
		run := out[i:j]
		err := q(s.Blocks, []any{run[0].Info.Height, run[len(run)-1].Info.Height}, func(r Rows) error {
			k := 0
			for r.Next() {
				info, err := scanBlockInfo(r)
				if err != nil {
					return err
				}
				for k < len(run) && run[k].Info.Height < info.Height {
					k++
				}
				if k < len(run) && run[k].Info.Height == info.Height {
					run[k].Info = info
				}
			}
			return r.Err()
		})
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// compareVersions orders one block's versions by table, then key, as
// bytes.
func compareVersions(a, b backend.RowVersion) int {
	if c := bytes.Compare([]byte(a.Table), []byte(b.Table)); c != 0 {
		return c
	}
	return bytes.Compare(a.Key, b.Key)
}

// changesEnd is the last height HistoryChanges from from returns: -1
// when no block from there on has versions.
func changesEnd(q HistoryQuery, s *HistorySQL, from int64, limit int) (int64, error) {
	to, total := int64(-1), 0
	err := q(s.Counts, []any{from, limit}, func(r Rows) error {
		for r.Next() {
			var h, n int64
			if err := r.Scan(&h, &n); err != nil {
				return err
			}
			if total > 0 && total+int(n) > limit {
				break
			}
			to, total = h, total+int(n)
		}
		return r.Err()
	})
	if err != nil {
		return 0, fmt.Errorf("history changes from %d: %w", from, err)
	}
	return to, nil
}

// scanBlockInfo reads one row of the Blocks query.
func scanBlockInfo(r Rows) (backend.HistoryBlockInfo, error) {
	var info backend.HistoryBlockInfo
	var txs []byte
	if err := r.Scan(&info.Height, &info.TimeUnixNano, &info.AppHash, &txs); err != nil {
		return info, err
	}
	var err error
	info.Txs, err = DecodeBlockTxs(txs)
	return info, err
}

// scanChange reads one row of the Changes (or Table) query.
func scanChange(r Rows) (backend.RowVersion, error) {
	var v backend.RowVersion
	var op string
	var txs, prevOp, prevImage []byte
	if err := r.Scan(&v.Height, &v.Table, &v.Key, &op, &v.Image, &txs, &prevOp, &prevImage); err != nil {
		return v, err
	}
	if err := setOpTxs(&v, op, txs); err != nil {
		return v, err
	}
	setBefore(&v, prevOp != nil, string(prevOp), prevImage)
	return v, nil
}

// scanChanges reads the Changes query's rows into the blocks of out,
// which are ascending by height.
func scanChanges(r Rows, out []backend.HistoryBlockChanges) error {
	i := 0
	for r.Next() {
		v, err := scanChange(r)
		if err != nil {
			return err
		}
		for i < len(out) && out[i].Info.Height < v.Height {
			i++
		}
		if i == len(out) || out[i].Info.Height != v.Height {
			return fmt.Errorf("history version at %d has no block", v.Height)
		}
		out[i].Versions = append(out[i].Versions, v)
	}
	return r.Err()
}

// EncodeVersionTxs is the stored form of a version's txs: a uvarint each.
func EncodeVersionTxs(txs []int) []byte {
	out := []byte{}
	for _, t := range txs {
		out = binary.AppendUvarint(out, uint64(t))
	}
	return out
}

// errTxs: stored txs that do not decode.
var errTxs = errors.New("stored history txs do not decode")

// DecodeVersionTxs reverses EncodeVersionTxs.
func DecodeVersionTxs(b []byte) ([]int, error) {
	var out []int
	for len(b) > 0 {
		t, n := binary.Uvarint(b)
		if n <= 0 || t > 1<<31 {
			return nil, errTxs
		}
		out, b = append(out, int(t)), b[n:]
	}
	return out, nil
}

// EncodeBlockTxs is the stored form of a block's txs: for each, its
// index, then its hash and its signer, each length-prefixed (uvarints).
func EncodeBlockTxs(txs []backend.HistoryTx) []byte {
	out := []byte{}
	for _, t := range txs {
		out = binary.AppendUvarint(out, uint64(t.Index))
		out = binary.AppendUvarint(out, uint64(len(t.Hash)))
		out = append(out, t.Hash...)
		out = binary.AppendUvarint(out, uint64(len(t.Signer)))
		out = append(out, t.Signer...)
	}
	return out
}

// DecodeBlockTxs reverses EncodeBlockTxs.
func DecodeBlockTxs(b []byte) ([]backend.HistoryTx, error) {
	var out []backend.HistoryTx
	field := func() ([]byte, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, false
		}
		f := slices.Clone(b[k : k+int(n)])
		b = b[k+int(n):]
		return f, true
	}
	for len(b) > 0 {
		i, k := binary.Uvarint(b)
		if k <= 0 || i > 1<<31 {
			return nil, errTxs
		}
		b = b[k:]
		hash, ok1 := field()
		signer, ok2 := field()
		if !ok1 || !ok2 {
			return nil, errTxs
		}
		out = append(out, backend.HistoryTx{Index: int(i), Hash: hash, Signer: signer})
	}
	return out, nil
}

// KeyTxs collects the txs of the change records that named each key:
// Add as records come, Of for a key's, ascending and once each.
type KeyTxs map[string][]int

// Add notes that a record of tx named key; negative txs (backend.NoTx)
// name none.
func (k KeyTxs) Add(key []byte, tx int) {
	if tx < 0 {
		return
	}
	txs := k[string(key)]
	if i, found := slices.BinarySearch(txs, tx); !found {
		k[string(key)] = slices.Insert(txs, i, tx)
	}
}

// Of is key's txs, ascending.
func (k KeyTxs) Of(key []byte) []int { return k[string(key)] }

// HistoryKeyHash is the SHA-256 of a version's key: the server backends
// key their version tables by it (a key may exceed what an index entry
// holds).
func HistoryKeyHash(key []byte) []byte {
	h := sha256.Sum256(key)
	return h[:]
}

// HistoryReader implements backend.HistoryReader for a backend that
// embeds it: each method reads with Read (one consistent snapshot of
// committed history) the tables SQL names.
type HistoryReader struct {
	Read func(ctx context.Context, fn func(q HistoryQuery) error) error
	SQL  *HistorySQL
}

// HistoryRange implements backend.HistoryReader.
func (r HistoryReader) HistoryRange(ctx context.Context) (start, end int64, err error) {
	err = r.Read(ctx, func(q HistoryQuery) (err error) {
		start, end, err = HistoryRange(q, r.SQL)
		return err
	})
	return start, end, err
}

// RowHistory implements backend.HistoryReader.
func (r HistoryReader) RowHistory(ctx context.Context, table string, key []byte, from int64, limit int) (vs []backend.RowVersion, err error) {
	err = r.Read(ctx, func(q HistoryQuery) (err error) {
		vs, err = RowHistory(q, r.SQL, table, key, from, limit)
		return err
	})
	return vs, err
}

// VersionAt implements backend.HistoryReader.
func (r HistoryReader) VersionAt(ctx context.Context, table string, key []byte, height int64) (v backend.RowVersion, ok bool, err error) {
	err = r.Read(ctx, func(q HistoryQuery) (err error) {
		v, ok, err = VersionAt(q, r.SQL, table, key, height)
		return err
	})
	return v, ok, err
}

// TableHistory implements backend.HistoryReader.
func (r HistoryReader) TableHistory(ctx context.Context, table string, from int64, limit int) (cs []backend.HistoryBlockChanges, more bool, err error) {
	err = r.Read(ctx, func(q HistoryQuery) (err error) {
		cs, more, err = TableHistory(q, r.SQL, table, from, limit)
		return err
	})
	return cs, more, err
}

// HistoryStateAt implements backend.HistoryReader.
func (r HistoryReader) HistoryStateAt(ctx context.Context, height int64) (state, roots []byte, rootsHeight int64, ok bool, err error) {
	err = r.Read(ctx, func(q HistoryQuery) error {
		if err := q(r.SQL.State, []any{height}, func(rows Rows) error {
			if rows.Next() {
				ok = true
				if err := rows.Scan(&state); err != nil {
					return err
				}
			}
			return rows.Err()
		}); err != nil || !ok {
			return err
		}
		return q(r.SQL.Roots, []any{height}, func(rows Rows) error {
			if rows.Next() {
				if err := rows.Scan(&rootsHeight, &roots); err != nil {
					return err
				}
			}
			return rows.Err()
		})
	})
	if err != nil {
		return nil, nil, 0, false, fmt.Errorf("history state at %d: %w", height, err)
	}
	return state, roots, rootsHeight, ok, nil
}

// HistoryChanges implements backend.HistoryReader.
func (r HistoryReader) HistoryChanges(ctx context.Context, from int64, limit int) (cs []backend.HistoryBlockChanges, err error) {
	err = r.Read(ctx, func(q HistoryQuery) (err error) {
		cs, err = HistoryChanges(q, r.SQL, from, limit)
		return err
	})
	return cs, err
}
