package sqlite

import (
	"context"
	"fmt"
	"slices"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/statedigest"
)

var _ backend.StateReader = (*Backend)(nil)

// StateDigest implements backend.Block: the changes ChangeDigest consumed
// are folded into relchain_digest in the block's db-transaction; a block
// that changed the schema (a new, dropped or altered table changes every
// row's image) recomputes every table's sum by a scan instead.
//
// When ctx is done it stops at once with an error wrapping ctx.Err().
func (k *block) StateDigest(ctx context.Context) ([]byte, error) {
	b, err := k.lock()
	if err != nil {
		return nil, err
	}
	defer b.wmu.Unlock()
	defer b.interruptible(ctx)()
	d, err := b.stateDigest()
	return d, interrupted(ctx, "state digest", err)
}

func (b *Backend) stateDigest() ([]byte, error) {
	var err error
	b.internal = true
	defer func() { b.internal = false }()
	var tables statedigest.Tables
	var changed []string
	if b.blockDDL || b.sumsStale {
		b.rescans++
		if tables, err = scanTables(b.w); err != nil {
			return nil, fmt.Errorf("state digest: rescan after a schema change: %w", err)
		}
		if err := b.w.Exec("DELETE FROM " + digestTable); err != nil {
			return nil, fmt.Errorf("state digest: %w", err)
		}
		for name := range tables {
			changed = append(changed, name)
		}
		slices.Sort(changed)
	} else {
		st, err := b.internalStmt(sumsSQL)
		if err != nil {
			return nil, fmt.Errorf("state digest: %w", err)
		}
		tables, err = readSums(st)
		if rerr := st.Reset(); err == nil && rerr != nil {
			err = fmt.Errorf("load table sums: %w", rerr)
		}
		if err != nil {
			return nil, fmt.Errorf("state digest: %w", err)
		}
		changed = b.delta.Apply(tables)
	}
	b.delta = make(backend.TableDelta)
	if len(changed) > 0 {
		st, err := b.internalStmt("INSERT OR REPLACE INTO " + digestTable + " (tbl, sum) VALUES (?, ?)")
		if err != nil {
			return nil, fmt.Errorf("state digest: %w", err)
		}
		for _, name := range changed {
			err := st.BindText(1, name)
			if err == nil {
				err = st.BindBlob(2, tables[name][:])
			}
			if err == nil {
				err = st.Exec()
			}
			if err != nil {
				return nil, fmt.Errorf("state digest: save the sum of %s: %w", name, err)
			}
		}
	}
	return tables.Digest(), nil
}

// StoredState implements backend.StateReader on a read connection.
func (b *Backend) StoredState(ctx context.Context) (statedigest.Tables, int64, error) {
	return b.readSnapshot(ctx, loadSums)
}

// ScanState implements backend.StateReader: one read transaction (a WAL
// snapshot), so it may run while blocks commit.
func (b *Backend) ScanState(ctx context.Context) (statedigest.Tables, int64, error) {
	return b.readSnapshot(ctx, scanTables)
}

func (b *Backend) readSnapshot(ctx context.Context, read func(*sqlite3.Conn) (statedigest.Tables, error)) (statedigest.Tables, int64, error) {
	r, err := b.reader(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer b.release(r)
	if err := r.Exec("BEGIN"); err != nil {
		return nil, 0, fmt.Errorf("read state: begin: %w", err)
	}
	defer r.Exec("ROLLBACK")
	st, err := readState(r)
	if err != nil {
		return nil, 0, err
	}
	tables, err := read(r)
	if err != nil {
		return nil, 0, fmt.Errorf("read state at height %d: %w", st.Height, err)
	}
	return tables, st.Height, nil
}

const sumsSQL = "SELECT tbl, sum FROM " + digestTable

// loadSums reads relchain_digest.
func loadSums(c *sqlite3.Conn) (statedigest.Tables, error) {
	st, _, err := c.Prepare(sumsSQL)
	if err != nil {
		return nil, fmt.Errorf("load table sums: %w", err)
	}
	defer st.Close()
	return readSums(st)
}

// readSums steps st, a compiled sumsSQL; the caller resets or closes it.
func readSums(st *sqlite3.Stmt) (statedigest.Tables, error) {
	tables := make(statedigest.Tables)
	for st.Step() {
		s, err := statedigest.Load(st.ColumnRawBlob(1))
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", st.ColumnText(0), err)
		}
		tables[st.ColumnText(0)] = &s
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("load table sums: %w", err)
	}
	return tables, nil
}

// scanTables computes every replicated table's sum from its rows, with the
// same row image the capture triggers record.
func scanTables(c *sqlite3.Conn) (statedigest.Tables, error) {
	infos, err := replicatedTables(c)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	tables := make(statedigest.Tables, len(infos))
	for _, t := range infos {
		st, _, err := c.Prepare("SELECT " + rowImage(t, "") + " FROM " + quoteIdent(t.name))
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", t.name, err)
		}
		scan := statedigest.NewScan(t.name)
		for st.Step() {
			scan.Add(st.ColumnRawText(0))
		}
		sum := scan.Sum()
		tables[t.name] = &sum
		err = st.Err()
		st.Close()
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", t.name, err)
		}
	}
	return tables, nil
}
