package postgres

import (
	"context"
	"fmt"

	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// LoadSystem implements backend.Backend.
func (b *Backend) LoadSystem(ctx context.Context) (map[string][]byte, error) {
	rows, err := b.pool.Query(ctx, `SELECT key, value FROM relchain.system`)
	if err == nil {
		defer rows.Close()
	}
	return sqlstore.ReadSystem("postgres", rows, err)
}

// SaveSystem implements backend.Block: one DELETE ... = ANY of the removed
// keys and one INSERT ... ON CONFLICT of the others, each of arrays bound
// as parameters, in the order sqlstore.SplitSystem gives.
func (k *block) SaveSystem(ctx context.Context, kv map[string][]byte) error {
	if len(kv) == 0 {
		return nil
	}
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if k.done {
		return errBlockDone
	}
	if err := k.flush(ctx); err != nil {
		return fmt.Errorf("postgres: save system state: %w", err)
	}
	delKeys, upKeys, upVals := sqlstore.SplitSystem(kv)
	if len(delKeys) > 0 {
		if _, err := k.conn.Exec(ctx, `DELETE FROM relchain.system WHERE key = ANY($1::bytea[])`, delKeys); err != nil {
			return fmt.Errorf("postgres: save system state: %w", err)
		}
	}
	if len(upKeys) > 0 {
		_, err := k.conn.Exec(ctx, `INSERT INTO relchain.system (key, value)
			SELECT * FROM unnest($1::bytea[], $2::bytea[])
			ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, upKeys, upVals)
		if err != nil {
			return fmt.Errorf("postgres: save system state: %w", err)
		}
	}
	return nil
}
