package sqlstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/relchain/relchain/backend"
)

func TestSplitSystemOrdersDeletesAndUpserts(t *testing.T) {
	del, upKeys, upVals := SplitSystem(map[string][]byte{"c": []byte("3"), "a": nil, "b": {}, "d": nil})
	if !reflect.DeepEqual(del, [][]byte{[]byte("a"), []byte("d")}) {
		t.Fatalf("deletes = %q", del)
	}
	if !reflect.DeepEqual(upKeys, [][]byte{[]byte("b"), []byte("c")}) || !reflect.DeepEqual(upVals, [][]byte{{}, []byte("3")}) {
		t.Fatalf("upserts = %q %q", upKeys, upVals)
	}
}

func TestReadSystemNamesTheBackend(t *testing.T) {
	boom := errors.New("boom")
	if _, err := ReadSystem("mysql", nil, boom); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "mysql: load system state") {
		t.Fatalf("ReadSystem of a failed query = %v", err)
	}
}

func TestCheckBegin(t *testing.T) {
	if err := CheckBegin("postgres", true, false); err == nil || err.Error() != "postgres: begin: backend is closed" {
		t.Fatalf("closed: %v", err)
	}
	if err := CheckBegin("postgres", false, true); !errors.Is(err, backend.ErrBlockOpen) {
		t.Fatalf("block open: %v", err)
	}
	if err := CheckBegin("postgres", false, false); err != nil {
		t.Fatalf("ready: %v", err)
	}
}

func TestCloseRollsBackAndReleasesOnce(t *testing.T) {
	var mu sync.Mutex
	var closed bool
	var ckpt Checkpointing
	boom := errors.New("boom")
	rollbacks, releases := 0, 0
	rollback := func(context.Context) error { rollbacks++; return boom }
	release := func() { releases++ }
	if err := Close(&mu, &closed, &ckpt, rollback, release); !errors.Is(err, boom) {
		t.Fatalf("first Close = %v, want the rollback's error", err)
	}
	if err := Close(&mu, &closed, &ckpt, rollback, release); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if rollbacks != 1 || releases != 1 || !closed {
		t.Fatalf("rollbacks %d, releases %d, closed %v", rollbacks, releases, closed)
	}
}

func TestRollbackSkipsAnEndedBlock(t *testing.T) {
	var mu sync.Mutex
	done := true
	if err := Rollback(&mu, &done, func() error { return errors.New("ran") }); err != nil {
		t.Fatalf("Rollback of an ended block = %v", err)
	}
}

func TestWriteCheckpointKeepsOnlyCompleteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ckpt")
	o := NewCheckpointOptions(dir, 1, 0, nil)
	write := func(h int64) func(context.Context, string) (int64, error) {
		return func(_ context.Context, tmp string) (int64, error) { return h, os.WriteFile(tmp, []byte("x"), 0o644) }
	}
	for h := int64(1); h <= 3; h++ {
		if err := WriteCheckpoint(context.Background(), o, ".x", write(h)); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	failed := func(_ context.Context, tmp string) (int64, error) { _ = os.WriteFile(tmp, nil, 0o644); return 4, boom }
	if err := WriteCheckpoint(context.Background(), o, ".x", failed); !errors.Is(err, boom) {
		t.Fatalf("failed dump = %v", err)
	}
	cps, err := backend.ListCheckpoints(dir, ".x")
	if err != nil {
		t.Fatal(err)
	}
	// Keep 0 is raised to 1: the newest and one before it stay.
	if len(cps) != 2 || cps[0].Height != 3 || cps[1].Height != 2 {
		t.Fatalf("checkpoints = %+v", cps)
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint.tmp")); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}
}
