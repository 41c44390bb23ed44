package postgres

import (
	"context"
	"fmt"
	"sort"
)

// LoadReplayWindows implements backend.Backend.
func (b *Backend) LoadReplayWindows(ctx context.Context) (map[string][]byte, error) {
	rows, err := b.pool.Query(ctx, `SELECT pubkey, state FROM relchain.replay`)
	if err != nil {
		return nil, fmt.Errorf("postgres: load replay windows: %w", err)
	}
	defer rows.Close()
	out := make(map[string][]byte)
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("postgres: load replay windows: %w", err)
		}
		out[string(k)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: load replay windows: %w", err)
	}
	return out, nil
}

// SaveReplayWindows implements backend.Block: one upsert of all windows
// (keys sorted, so every node writes in the same order).
func (k *block) SaveReplayWindows(ctx context.Context, windows map[string][]byte) error {
	if len(windows) == 0 {
		return nil
	}
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if k.done {
		return errBlockDone
	}
	keys := make([]string, 0, len(windows))
	for key := range windows {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	pks := make([][]byte, len(keys))
	states := make([][]byte, len(keys))
	for i, key := range keys {
		pks[i], states[i] = []byte(key), windows[key]
	}
	_, err := k.conn.Exec(ctx, `INSERT INTO relchain.replay (pubkey, state)
		SELECT * FROM unnest($1::bytea[], $2::bytea[])
		ON CONFLICT (pubkey) DO UPDATE SET state = EXCLUDED.state`, pks, states)
	if err != nil {
		return fmt.Errorf("postgres: save replay windows: %w", err)
	}
	return nil
}
