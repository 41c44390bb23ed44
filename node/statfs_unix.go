//go:build unix

package node

import "syscall"

// statFS is the space available to an unprivileged user and in all on the
// file system of path.
func statFS(path string) (free, size uint64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, 0, false
	}
	return st.Bavail * uint64(st.Bsize), st.Blocks * uint64(st.Bsize), true
}
