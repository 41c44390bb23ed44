package node

import (
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/relchain/relchain/pgwire"
)

func TestPGLimitsFromTOML(t *testing.T) {
	for _, c := range []struct {
		toml string
		want pgwire.Limits
		err  string // "" if valid
	}{
		{"", pgwire.Limits{MaxConns: pgwire.DefaultMaxConns, MaxConnsPerAddr: pgwire.DefaultMaxConnsPerAddr,
			StartupTimeout: pgwire.DefaultStartupTimeout, IdleSessionTimeout: pgwire.DefaultIdleSessionTimeout,
			IdleInTransactionTimeout: pgwire.DefaultIdleInTxTimeout, WriteTimeout: pgwire.DefaultWriteTimeout,
			MaxMessage: pgwire.DefaultMaxMessage, MaxSessionMemory: pgwire.DefaultMaxSessionMemory}, ""},
		{`max_connections = 0
startup_timeout = ""`, pgwire.Limits{StartupTimeout: 0, MaxConnsPerAddr: pgwire.DefaultMaxConnsPerAddr,
			IdleSessionTimeout: pgwire.DefaultIdleSessionTimeout, IdleInTransactionTimeout: pgwire.DefaultIdleInTxTimeout,
			WriteTimeout: pgwire.DefaultWriteTimeout, MaxMessage: pgwire.DefaultMaxMessage,
			MaxSessionMemory: pgwire.DefaultMaxSessionMemory}, ""},
		{`max_connections = 10
max_connections_per_address = -1
startup_timeout = "3s"
idle_session_timeout = "0"
idle_in_transaction_timeout = "90s"
write_timeout = "0s"
max_message_bytes = 1048576
max_session_memory_bytes = -1`, pgwire.Limits{MaxConns: 10, MaxConnsPerAddr: -1, StartupTimeout: 3 * time.Second,
			IdleSessionTimeout: -1, IdleInTransactionTimeout: 90 * time.Second, WriteTimeout: -1,
			MaxMessage: 1 << 20, MaxSessionMemory: -1}, ""},
		{`max_connections = -2`, pgwire.Limits{}, "[pg] max_connections = -2"},
		{`startup_timeout = "0"`, pgwire.Limits{}, `[pg] startup_timeout = "0": give a positive duration`},
		{`idle_session_timeout = "soon"`, pgwire.Limits{}, `[pg] idle_session_timeout = "soon"`},
		{`write_timeout = "-1s"`, pgwire.Limits{}, `[pg] write_timeout = "-1s"`},
	} {
		rc := DefaultConfig()
		if _, err := toml.Decode("[pg]\n"+c.toml, &rc); err != nil {
			t.Fatalf("%q: %v", c.toml, err)
		}
		got, err := rc.PG.Limits()
		verr := rc.Validate()
		switch {
		case c.err == "" && (err != nil || verr != nil):
			t.Errorf("%q: %v / Validate: %v", c.toml, err, verr)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: got %v, want an error containing %q", c.toml, err, c.err)
		case c.err != "" && verr == nil:
			t.Errorf("%q: Validate accepted it", c.toml)
		case c.err == "" && got != c.want:
			t.Errorf("%q: %+v, want %+v", c.toml, got, c.want)
		}
	}
}
