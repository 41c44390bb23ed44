package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
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
	tables, changed, err := sqlstore.NextSums(k.ddl, k.delta,
		func() (statedigest.Tables, error) { return scanTables(ctx, k.conn) },
		func() (statedigest.Tables, error) { return loadSums(ctx, k.conn) },
		func() error { _, err := k.conn.ExecContext(ctx, "DELETE FROM relchain_digest"); return err })
	if err != nil {
		return nil, k.fault("state digest", err)
	}
	k.ranDDL = k.ranDDL || k.ddl
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

// StoredState implements backend.StateReader, in a stateSnapshot.
func (b *Backend) StoredState(ctx context.Context) (statedigest.Tables, int64, error) {
	return sqlstore.ReadState(ctx, "mysql", b.stateSnapshot, loadSums)
}

// ScanState implements backend.StateReader: in a stateSnapshot, so it may
// run while blocks commit.
func (b *Backend) ScanState(ctx context.Context) (statedigest.Tables, int64, error) {
	return sqlstore.ReadState(ctx, "mysql", b.stateSnapshot, scanTables)
}

// stateSnapshot is a consistent-snapshot read-only transaction on the
// internal pool, out of reach of Query's readers.
func (b *Backend) stateSnapshot(ctx context.Context) (querier, int64, func(), error) {
	conn, height, err := b.snapshot(ctx, b.internal)
	if err != nil {
		return nil, 0, nil, err
	}
	return conn, height, func() { b.endSnapshot(conn) }, nil
}

func loadSums(ctx context.Context, q querier) (statedigest.Tables, error) {
	rows, err := q.QueryContext(ctx, "SELECT tbl, sum FROM relchain_digest")
	if err != nil {
		return nil, fmt.Errorf("load table sums: %w", err)
	}
	defer rows.Close()
	return sqlstore.LoadSums(rows)
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
