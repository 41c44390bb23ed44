//go:build testhooks

package app

import (
	"os"
	"syscall"
)

// crashEnv names the point a test asks the node to die at, as by kill -9:
// the variable node's own crash points read (node/testhooks.go).
//   - authstate-sealed: the block's authenticated state is updated in
//     memory and its AppHash computed; nothing of the block is committed.
//   - block-committed: the block's rows and (height, AppHash) are
//     committed in the database; the executor's memory, the trees
//     included, still holds the block before.
const crashEnv = "RELCHAIN_UNSAFE_CRASH_AT"

// crashAt kills the process at point when the test asked for it.
func crashAt(point string) {
	if os.Getenv(crashEnv) == point {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal ends the process
	}
}
