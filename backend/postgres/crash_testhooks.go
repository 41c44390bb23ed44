//go:build testhooks

package postgres

import (
	"os"
	"strconv"
	"syscall"
)

// crashEnv names the point a test asks the node to die at, as by kill -9
// (the app's and node's crash points read the same variable): one of the
// Crash* steps of a parallel block's Commit, optionally with the lane
// (lane-prepared:1).
const crashEnv = "RELCHAIN_UNSAFE_CRASH_AT"

func init() {
	at := os.Getenv(crashEnv)
	if at == "" {
		return
	}
	laneCommitHook = func(step string, lane int) {
		if at == step || at == step+":"+strconv.Itoa(lane) {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal ends the process
		}
	}
}
