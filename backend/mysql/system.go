package mysql

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// LoadSystem implements backend.Backend.
func (b *Backend) LoadSystem(ctx context.Context) (map[string][]byte, error) {
	rows, err := b.internal.QueryContext(ctx, `SELECT k, v FROM relchain_system`)
	if err != nil {
		return nil, fmt.Errorf("mysql: load system state: %w", err)
	}
	defer rows.Close()
	out := make(map[string][]byte)
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("mysql: load system state: %w", err)
		}
		if v == nil {
			v = []byte{}
		}
		out[string(k)] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mysql: load system state: %w", err)
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
	if err := k.check(); err != nil {
		return err
	}
	ctx, stop := k.watch(ctx)
	defer stop()
	keys := make([]string, 0, len(kv))
	for key := range kv {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var del, up []any
	for _, key := range keys {
		if v := kv[key]; v == nil {
			del = append(del, []byte(key))
		} else {
			up = append(up, []byte(key), v)
		}
	}
	if len(del) > 0 {
		q := "DELETE FROM relchain_system WHERE k IN (?" + strings.Repeat(", ?", len(del)-1) + ")"
		if _, err := k.conn.ExecContext(ctx, q, del...); err != nil {
			return k.fault("save system state", err)
		}
	}
	if len(up) > 0 {
		q := "INSERT INTO relchain_system (k, v) VALUES (?, ?)" + strings.Repeat(", (?, ?)", len(up)/2-1) +
			" ON DUPLICATE KEY UPDATE v = VALUES(v)"
		if _, err := k.conn.ExecContext(ctx, q, up...); err != nil {
			return k.fault("save system state", err)
		}
	}
	k.dirty = true
	return nil
}
