package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/pgwire"
)

func TestGatewayLimitFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want pgwire.Limits
		err  string
	}{
		{nil, pgwire.Limits{MaxConns: 256, MaxConnsPerAddr: 32, StartupTimeout: 10 * time.Second,
			IdleSessionTimeout: time.Hour, IdleInTransactionTimeout: 10 * time.Minute, WriteTimeout: time.Minute,
			MaxMessage: 16 << 20, MaxSessionMemory: 64 << 20}, ""},
		{[]string{"--max-connections", "-1", "--max-connections-per-address", "5", "--idle-session-timeout", "0",
			"--idle-in-transaction-timeout", "30s", "--write-timeout", "0", "--max-message-bytes", "1024"},
			pgwire.Limits{MaxConns: -1, MaxConnsPerAddr: 5, StartupTimeout: 10 * time.Second,
				IdleSessionTimeout: -1, IdleInTransactionTimeout: 30 * time.Second, WriteTimeout: -1,
				MaxMessage: 1024, MaxSessionMemory: 64 << 20}, ""},
		{[]string{"--startup-timeout", "0"}, pgwire.Limits{}, "--startup-timeout 0s: give a positive duration"},
		{[]string{"--max-connections-per-address", "-3"}, pgwire.Limits{}, "--max-connections-per-address -3"},
	} {
		cmd := &cobra.Command{}
		var lim gatewayLimits
		lim.flags(cmd)
		if err := cmd.Flags().Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		got, err := lim.pgwire()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: %v, want an error containing %q", c.args, err, c.err)
		case c.err == "" && got != c.want:
			t.Errorf("%v: %+v, want %+v", c.args, got, c.want)
		}
	}
}
