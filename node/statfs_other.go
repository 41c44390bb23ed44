//go:build !unix

package node

// statFS is unknown on this platform.
func statFS(string) (free, size uint64, ok bool) { return 0, 0, false }
