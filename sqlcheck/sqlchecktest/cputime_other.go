//go:build !linux

package sqlchecktest

import "time"

// threadTime is the wall clock where no per-thread CPU time is available.
func threadTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
