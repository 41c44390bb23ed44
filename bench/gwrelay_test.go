package bench

import (
	"context"
	"strings"
	"testing"
)

func TestRelayReadersRefuseADSNWithoutTCPHost(t *testing.T) {
	_, _, err := relayReaders(context.Background(), "postgres://u@/db?host=/run/postgresql", 1)
	if err == nil || !strings.Contains(err.Error(), "no TCP host") {
		t.Fatalf("relayReaders on a socket DSN: %v", err)
	}
}
