package sqlite

import (
	"context"
	"fmt"
	"sort"
)

// System state is one table, relchain_system (key BLOB PRIMARY KEY, value
// BLOB NOT NULL), written in the block's db-transaction. It is not a
// replicated table: no capture triggers (the executor hashes what it saves
// itself), and client SQL can neither read nor write it (the gate refuses
// every relchain_* table, even WithoutGate).

// LoadSystem implements backend.Backend.
func (b *Backend) LoadSystem(ctx context.Context) (map[string][]byte, error) {
	r, err := b.reader(ctx)
	if err != nil {
		return nil, err
	}
	defer b.release(r)
	st, _, err := r.Prepare("SELECT key, value FROM " + systemTable)
	if err != nil {
		return nil, fmt.Errorf("load system state: %w", err)
	}
	defer st.Close()
	out := make(map[string][]byte)
	for st.Step() {
		out[string(st.ColumnBlob(0, nil))] = st.ColumnBlob(1, []byte{})
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("load system state: %w", err)
	}
	return out, nil
}

// SaveSystem implements backend.Block: keys in sorted order, so every node
// writes the same way; a nil value deletes the key.
func (k *block) SaveSystem(ctx context.Context, kv map[string][]byte) error {
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	if len(kv) == 0 {
		return nil
	}
	b.internal = true
	defer func() { b.internal = false }()
	keys := make([]string, 0, len(kv))
	for key := range kv {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	// Kept compiled (internalStmt): SaveSystem runs twice per block.
	put, err := b.internalStmt("INSERT INTO " + systemTable + " (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
	if err != nil {
		return fmt.Errorf("save system state: %w", err)
	}
	del, err := b.internalStmt("DELETE FROM " + systemTable + " WHERE key = ?1")
	if err != nil {
		return fmt.Errorf("save system state: %w", err)
	}
	for _, key := range keys {
		v := kv[key]
		st := put
		if v == nil {
			st = del
		}
		if err := st.BindBlob(1, []byte(key)); err != nil {
			return fmt.Errorf("save system state: %w", err)
		}
		if v != nil {
			if err := st.BindBlob(2, v); err != nil {
				return fmt.Errorf("save system state: %w", err)
			}
		}
		if err := st.Exec(); err != nil {
			return fmt.Errorf("save system state: %w", err)
		}
	}
	return nil
}
