package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/ops"
)

// recoveredAtEnv carries, across the restart after an automatic recovery,
// the height whose divergence was recovered from.
const recoveredAtEnv = "RELCHAIN_RECOVERED_AT"

// recoverAndRestart is [recover] on_mismatch = "recover": the node, stopped
// (its databases closed), restores its newest checkpoint the chain
// confirms, then starts again by re-executing this command in the same
// process. It gives up when the node diverges again at a height it has
// already recovered from (the cause is not in the database, or comes
// back), and returns why it could not recover; it returns only on failure.
func recoverAndRestart(ctx context.Context, home string, d *node.DivergenceError) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w; not recovering: the node was asked to stop", d)
	}
	logger := log.NewTMLogger(log.NewSyncWriter(os.Stdout)).With("module", "relchain")
	if prev, err := strconv.ParseInt(os.Getenv(recoveredAtEnv), 10, 64); err == nil && d.Height <= prev {
		return fmt.Errorf("%w; giving up: this node already recovered from a divergence at height %d and diverged again at height %d, so a checkpoint does not cure it", d, prev, d.Height)
	}
	logger.Error(`on_mismatch = "recover": the node stopped; restoring its newest checkpoint the chain confirms`, "height", d.Height)
	rep, err := ops.Recover(ctx, home)
	for _, r := range rep.Rejected {
		logger.Info("recover: skipped checkpoint at " + r)
	}
	if err != nil {
		return fmt.Errorf("%w; automatic recovery failed: %v", d, err)
	}
	logger.Info(fmt.Sprintf("recovered: restored the checkpoint at height %d (the old database is %s); CometBFT's state is at height %d; starting again: the node replays the blocks after %d and rejoins",
		rep.Checkpoint, rep.Replaced, rep.StateHeight, rep.Checkpoint), "checkpoint", rep.Checkpoint, "state_height", rep.StateHeight)
	err = reexec(append(withoutEnv(os.Environ(), recoveredAtEnv), fmt.Sprintf("%s=%d", recoveredAtEnv, d.Height)))
	return fmt.Errorf("%w; recovered from checkpoint %d, but could not start again (%v): start the node again", d, rep.Checkpoint, err)
}

// reexec replaces this process's image by a fresh run of the same command
// line (same process id, same standard output). A fresh image, rather than
// a second node in this one, drops whatever the stopped node still holds:
// client connections kept alive to its RPC server (which would answer from
// the stopped node), subscriptions, goroutines.
func reexec(env []string) error {
	exe := "/proc/self/exe" // the running binary, even if replaced on disk
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return err
		}
	}
	return syscall.Exec(exe, os.Args, env)
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
