package serverdb

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var sleeper = Daemon{Name: "sleep", Quit: syscall.SIGTERM, Kill: syscall.SIGKILL, Grace: 5 * time.Second}

func TestProcStartsAndStopsAReadyServer(t *testing.T) {
	var p Proc
	ready := func(context.Context) error { return nil }
	if err := p.Start(context.Background(), sleeper, exec.Command("sleep", "60"), false, ready, ""); err != nil {
		t.Fatal(err)
	}
	if !p.Owned() {
		t.Fatal("a foreground server is not owned")
	}
	done := p.done
	p.Stop(sleeper)
	select {
	case <-done:
	default:
		t.Fatal("Stop returned before the server exited")
	}
	if p.Owned() {
		t.Fatal("a stopped server is still owned")
	}
}

func TestProcKillsAServerThatExitsBeforeReady(t *testing.T) {
	var p Proc
	never := func(context.Context) error { return errors.New("not yet") }
	log := filepath.Join(t.TempDir(), "missing.log")
	err := p.Start(context.Background(), sleeper, exec.Command("true"), false, never, log)
	if err == nil || !strings.Contains(err.Error(), "sleep exited") {
		t.Fatalf("Start of a server that exits = %v, want 'sleep exited'", err)
	}
	if p.Owned() {
		t.Fatal("a server that failed to start is owned")
	}
}

func TestOnFreePortRetriesOnlyFreePorts(t *testing.T) {
	calls := 0
	fail := func(int) error { calls++; return errors.New("taken") }
	if err := OnFreePort(0, fail); err == nil || calls != 3 {
		t.Fatalf("free port: err %v after %d calls, want an error after 3", err, calls)
	}
	calls = 0
	if err := OnFreePort(5432, fail); err == nil || calls != 1 {
		t.Fatalf("fixed port: err %v after %d calls, want an error after 1", err, calls)
	}
	if err := OnFreePort(5432, func(p int) error {
		if p != 5432 {
			t.Fatalf("port %d, want 5432", p)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
