package node

import (
	"fmt"
	"time"

	"github.com/relchain/relchain/pgwire"
)

// defaultPGConfig is [pg]'s limits written out as pgwire's defaults, so
// that a new relchain.toml shows them (TestPGLimitsFromTOML checks they
// are pgwire's).
func defaultPGConfig() PGConfig {
	return PGConfig{
		MaxConnections: pgwire.DefaultMaxConns, MaxConnectionsPerAddress: pgwire.DefaultMaxConnsPerAddr,
		StartupTimeout: "10s", IdleSessionTimeout: "1h", IdleInTransactionTimeout: "10m", WriteTimeout: "1m",
		MaxMessageBytes: pgwire.DefaultMaxMessage, MaxSessionMemoryBytes: pgwire.DefaultMaxSessionMemory,
	}
}

// Limits is the PostgreSQL listener's pgwire.Limits from relchain.toml's
// [pg] section: counts and sizes 0 → default, -1 → no limit; durations
// "" → default, "0" → off (startup_timeout must be positive). A bad value is
// an error naming its key.
func (c PGConfig) Limits() (pgwire.Limits, error) {
	var l pgwire.Limits
	var err error
	ints := []struct {
		key string
		v   int
		dst *int
	}{
		{"max_connections", c.MaxConnections, &l.MaxConns},
		{"max_connections_per_address", c.MaxConnectionsPerAddress, &l.MaxConnsPerAddr},
		{"max_message_bytes", c.MaxMessageBytes, &l.MaxMessage},
		{"max_session_memory_bytes", c.MaxSessionMemoryBytes, &l.MaxSessionMemory},
	}
	for _, f := range ints {
		if f.v < -1 {
			return l, fmt.Errorf("relchain.toml [pg] %s = %d: give a positive number, 0 (the default) or -1 (no limit)", f.key, f.v)
		}
		*f.dst = f.v
	}
	if l.StartupTimeout, err = pgDuration("startup_timeout", c.StartupTimeout, false); err != nil {
		return l, err
	}
	if l.IdleSessionTimeout, err = pgDuration("idle_session_timeout", c.IdleSessionTimeout, true); err != nil {
		return l, err
	}
	if l.IdleInTransactionTimeout, err = pgDuration("idle_in_transaction_timeout", c.IdleInTransactionTimeout, true); err != nil {
		return l, err
	}
	if l.WriteTimeout, err = pgDuration("write_timeout", c.WriteTimeout, true); err != nil {
		return l, err
	}
	return l, nil
}

// pgDuration parses a [pg] duration for pgwire.Limits: "" → 0 (the
// default), "0" → -1 (off) when canTurnOff.
func pgDuration(key, v string, canTurnOff bool) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err == nil && d > 0:
		return d, nil
	case err == nil && d == 0 && canTurnOff:
		return -1, nil
	case canTurnOff:
		return 0, fmt.Errorf("relchain.toml [pg] %s = %q: give a duration such as \"10m\", or \"0\" to turn it off", key, v)
	}
	return 0, fmt.Errorf("relchain.toml [pg] %s = %q: give a positive duration such as \"10s\"", key, v)
}
