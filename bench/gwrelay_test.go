package bench

import (
	"context"
	"strings"
	"testing"
)

func TestRelayReadersRefuseADSNWithoutTCPHost(t *testing.T) {
	_, _, err := relayReaders(context.Background(), "postgres://u@/db?host=/run/postgresql", 1, nil)
	if err == nil || !strings.Contains(err.Error(), "no TCP host") {
		t.Fatalf("relayReaders on a socket DSN: %v", err)
	}
}

// A relay process's first line is its address; stop closes its standard
// input and waits for it. A process that prints no address is refused.
func TestStartRelayProcess(t *testing.T) {
	ctx := context.Background()
	addr, stop, err := startRelayProcess(ctx, []string{"sh", "-c", `echo 127.0.0.1:4321; [ "$1" = --target ] && [ "$2" = db:5432 ] && cat >/dev/null`, "sh"}, "db:5432")
	if err != nil || addr != "127.0.0.1:4321" {
		t.Fatalf("address %q, %v", addr, err)
	}
	stop()
	if _, _, err := startRelayProcess(ctx, []string{"sh", "-c", "echo not-an-address", "sh"}, "db:5432"); err == nil || !strings.Contains(err.Error(), "printed no address") {
		t.Fatalf("a relay without an address: %v", err)
	}
}
