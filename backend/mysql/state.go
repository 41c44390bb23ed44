package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/statedigest"
)

var _ backend.StateReader = (*Backend)(nil)

// StateDigest implements backend.Block: the changes ChangeDigest consumed
// are folded into relchain_digest in the block's db-transaction; a block
// that changed the schema rescans every table instead.
func (k *block) StateDigest(ctx context.Context) ([]byte, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if err := k.check(); err != nil {
		return nil, err
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	var tables statedigest.Tables
	var changed []string
	var err error
	if k.ddl {
		if tables, err = scanTables(ctx, k.conn); err != nil {
			return nil, k.fault("state digest: rescan after a schema change", err)
		}
		if _, err := k.conn.ExecContext(ctx, "DELETE FROM relchain_digest"); err != nil {
			return nil, k.fault("state digest", err)
		}
		for name := range tables {
			changed = append(changed, name)
		}
		slices.Sort(changed)
	} else {
		if tables, err = loadSums(ctx, k.conn); err != nil {
			return nil, k.fault("state digest", err)
		}
		changed = k.delta.Apply(tables)
	}
	k.delta, k.ddl = make(backend.TableDelta), false
	if len(changed) > 0 {
		var b strings.Builder
		args := make([]any, 0, 2*len(changed))
		b.WriteString("INSERT INTO relchain_digest (tbl, sum) VALUES ")
		for i, name := range changed {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?)")
			args = append(args, name, tables[name][:])
		}
		b.WriteString(" ON DUPLICATE KEY UPDATE sum = VALUES(sum)")
		if _, err := k.conn.ExecContext(ctx, b.String(), args...); err != nil {
			return nil, k.fault("state digest: save table sums", err)
		}
		k.dirty = true
	}
	return tables.Digest(), nil
}

// StoredState implements backend.StateReader.
func (b *Backend) StoredState(ctx context.Context) (statedigest.Tables, int64, error) {
	return b.readSnapshot(ctx, loadSums)
}

// ScanState implements backend.StateReader: one consistent-snapshot
// read-only transaction, so it may run while blocks commit.
func (b *Backend) ScanState(ctx context.Context) (statedigest.Tables, int64, error) {
	return b.readSnapshot(ctx, scanTables)
}

func (b *Backend) readSnapshot(ctx context.Context, read func(context.Context, querier) (statedigest.Tables, error)) (statedigest.Tables, int64, error) {
	conn, height, err := b.snapshot(ctx, b.internal)
	if err != nil {
		return nil, 0, fmt.Errorf("mysql: read state: %w", err)
	}
	defer b.endSnapshot(conn)
	tables, err := read(ctx, conn)
	if err != nil {
		return nil, 0, fmt.Errorf("mysql: read state at height %d: %w", height, err)
	}
	return tables, height, nil
}

func loadSums(ctx context.Context, q querier) (statedigest.Tables, error) {
	rows, err := q.QueryContext(ctx, "SELECT tbl, sum FROM relchain_digest")
	if err != nil {
		return nil, fmt.Errorf("load table sums: %w", err)
	}
	defer rows.Close()
	tables := make(statedigest.Tables)
	for rows.Next() {
		var name string
		var raw []byte
		if err := rows.Scan(&name, &raw); err != nil {
			return nil, fmt.Errorf("load table sums: %w", err)
		}
		s, err := statedigest.Load(raw)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		tables[name] = &s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load table sums: %w", err)
	}
	return tables, nil
}

// scanTables computes every replicated table's sum from its rows, with the
// row image the capture triggers record (imageSQL).
func scanTables(ctx context.Context, q querier) (statedigest.Tables, error) {
	names, cols, err := replicatedTables(ctx, q)
	if err != nil {
		return nil, err
	}
	tables := make(statedigest.Tables, len(names))
	for _, name := range names {
		scan := statedigest.NewScan(name)
		rows, err := q.QueryContext(ctx, "SELECT "+imageSQL("x", cols[name])+" FROM "+quoteIdent(name)+" x")
		if err != nil {
			scan.Sum()
			return nil, fmt.Errorf("scan %s: %w", name, err)
		}
		var img sql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&img); err != nil {
				rows.Close()
				scan.Sum()
				return nil, fmt.Errorf("scan %s: %w", name, err)
			}
			scan.Add(img)
		}
		rows.Close()
		sum := scan.Sum()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("scan %s: %w", name, err)
		}
		tables[name] = &sum
	}
	return tables, nil
}
