package sqlite

import (
	"context"
	"fmt"
	"sort"
)

// LoadReplayWindows implements backend.Backend.
func (b *Backend) LoadReplayWindows(ctx context.Context) (map[string][]byte, error) {
	r, err := b.reader(ctx)
	if err != nil {
		return nil, err
	}
	defer b.release(r)
	st, _, err := r.Prepare("SELECT pubkey, state FROM relchain_replay")
	if err != nil {
		return nil, fmt.Errorf("load replay windows: %w", err)
	}
	defer st.Close()
	out := make(map[string][]byte)
	for st.Step() {
		out[string(st.ColumnBlob(0, nil))] = st.ColumnBlob(1, nil)
	}
	if err := st.Err(); err != nil {
		return nil, fmt.Errorf("load replay windows: %w", err)
	}
	return out, nil
}

// SaveReplayWindows implements backend.Block (keys in sorted order, so
// every node writes the same way).
func (k *block) SaveReplayWindows(ctx context.Context, windows map[string][]byte) error {
	if len(windows) == 0 {
		return nil
	}
	b, err := k.lock()
	if err != nil {
		return err
	}
	defer b.wmu.Unlock()
	b.internal = true
	defer func() { b.internal = false }()
	keys := make([]string, 0, len(windows))
	for key := range windows {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	st, _, err := b.w.Prepare("INSERT OR REPLACE INTO relchain_replay (pubkey, state) VALUES (?, ?)")
	if err != nil {
		return fmt.Errorf("save replay windows: %w", err)
	}
	defer st.Close()
	for _, key := range keys {
		if err := st.BindBlob(1, []byte(key)); err != nil {
			return err
		}
		if err := st.BindBlob(2, windows[key]); err != nil {
			return err
		}
		if err := st.Exec(); err != nil {
			return fmt.Errorf("save replay windows: %w", err)
		}
		if err := st.Reset(); err != nil {
			return fmt.Errorf("save replay windows: %w", err)
		}
	}
	return nil
}
