package serverdb

import (
	"os"
	"strings"
	"testing"
)

func TestTailKeepsTheEnd(t *testing.T) {
	if got := Tail([]byte("abcdef"), 3); got != "def" {
		t.Fatalf("Tail = %q", got)
	}
	if got := Tail([]byte("ab"), 3); got != "ab" {
		t.Fatalf("Tail of a short log = %q", got)
	}
}

func TestAliveAndFreePort(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Fatal("this process is not alive")
	}
	p, err := FreePort()
	if err != nil || p <= 0 {
		t.Fatalf("FreePort = %d, %v", p, err)
	}
}

func TestCredentialNamesAMissingUser(t *testing.T) {
	if os.Geteuid() != 0 {
		if c, err := Credential("no-such-user-relchain"); c != nil || err != nil {
			t.Fatalf("not root: Credential = %v, %v; want nil, nil", c, err)
		}
		return
	}
	_, err := Credential("no-such-user-relchain")
	if err == nil || !strings.Contains(err.Error(), "no-such-user-relchain") {
		t.Fatalf("Credential of a missing user: %v", err)
	}
}
