package mysql

import (
	"context"
	"strings"

	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// LoadSystem implements backend.Backend.
func (b *Backend) LoadSystem(ctx context.Context) (map[string][]byte, error) {
	rows, err := b.internal.QueryContext(ctx, `SELECT k, v FROM relchain_system`)
	if err == nil {
		defer rows.Close()
	}
	return sqlstore.ReadSystem("mysql", rows, err)
}

// SaveSystem implements backend.Block: a multi-row DELETE of the removed
// keys and a multi-row INSERT ... ON DUPLICATE KEY UPDATE of the others,
// as sqlstore.SplitSystem orders them.
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
	delKeys, upKeys, upVals := sqlstore.SplitSystem(kv)
	var del, up []any
	for _, key := range delKeys {
		del = append(del, key)
	}
	for i, key := range upKeys {
		up = append(up, key, upVals[i])
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
