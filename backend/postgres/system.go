package postgres

import (
	"context"
	"fmt"
	"sort"
)

// LoadSystem implements backend.Backend.
func (b *Backend) LoadSystem(ctx context.Context) (map[string][]byte, error) {
	rows, err := b.pool.Query(ctx, `SELECT key, value FROM relchain.system`)
	if err != nil {
		return nil, fmt.Errorf("postgres: load system state: %w", err)
	}
	defer rows.Close()
	out := make(map[string][]byte)
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("postgres: load system state: %w", err)
		}
		out[string(k)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: load system state: %w", err)
	}
	return out, nil
}

// SaveSystem implements backend.Block: one delete of the removed keys and
// one upsert of the others (keys sorted, so every node writes in the same
// order).
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
	keys := make([]string, 0, len(kv))
	for key := range kv {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var upKeys, upVals, delKeys [][]byte
	for _, key := range keys {
		if v := kv[key]; v == nil {
			delKeys = append(delKeys, []byte(key))
		} else {
			upKeys, upVals = append(upKeys, []byte(key)), append(upVals, v)
		}
	}
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
