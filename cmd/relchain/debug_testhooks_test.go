//go:build testhooks

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
)

// debug tamper writes to a SQLite node's database file outside the chain,
// in order, and refuses no statement, a failing one, and a missing home.
func TestDebugTamperWritesTheNodesDatabase(t *testing.T) {
	nodes, err := netctl.Generate(netctl.Options{Validators: 1, Dir: t.TempDir(), Backend: "sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	home := nodes[0].Home
	ctx := context.Background()
	if err := tamper(ctx, home, []string{"CREATE TABLE probe (a INTEGER)", "INSERT INTO probe VALUES (7)"}); err != nil {
		t.Fatal(err)
	}
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite3.Open(rc.SQLitePath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, _, err := db.Prepare("SELECT a FROM probe")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Step() || st.ColumnInt(0) != 7 {
		t.Fatalf("the tampered row is not in %s: %v", rc.SQLitePath(home), st.Err())
	}
	if err := tamper(ctx, home, []string{"INSERT INTO nosuch VALUES (1)"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("a failing statement: %v, want an error naming it", err)
	}
	if err := tamper(ctx, filepath.Join(t.TempDir(), "nohome"), []string{"SELECT 1"}); err == nil {
		t.Error("a missing home was accepted")
	}
	cmd := rootCmd()
	cmd.SetArgs([]string{"debug", "tamper", "--home", home})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--sql") {
		t.Errorf("no --sql: %v", err)
	}
}
