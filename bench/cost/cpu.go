package cost

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on
// every Linux this runs on).
const clockTick = 10 * time.Millisecond

// selfCPU is this process's user+system CPU time, all threads.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStat is what treeCPU needs of one /proc/<pid>/stat.
type procStat struct {
	ppid     int
	cpu      time.Duration // utime + stime
	children time.Duration // cutime + cstime: its reaped children's
}

func readStat(pid int) (procStat, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return procStat{}, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	// Fields after "pid (comm) ": state ppid … utime(14) stime cutime cstime.
	f := strings.Fields(s[i+2:])
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(f[k], 10, 64); return v }
	return procStat{
		ppid:     int(n(1)),
		cpu:      time.Duration(n(11)+n(12)) * clockTick,
		children: time.Duration(n(13)+n(14)) * clockTick,
	}, nil
}

// treeCPU is the CPU time used so far by the process root and all its
// descendants, alive or exited: the live processes' own times plus the
// times the root and its live descendants collected from children they
// reaped. Differences of two readings are what the tree spent between
// them, whatever processes came and went (PostgreSQL's backends and
// autovacuum workers; MariaDB is one process with threads).
func treeCPU(root int) (time.Duration, error) {
	rootStat, err := readStat(root)
	if err != nil {
		return 0, fmt.Errorf("server process %d: %w", root, err)
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	stats := map[int]procStat{root: rootStat}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		if st, err := readStat(pid); err == nil {
			stats[pid] = st
		}
	}
	var total time.Duration
	for pid, st := range stats {
		if descends(stats, pid, root) {
			total += st.cpu + st.children
		}
	}
	return total, nil
}

// descends reports whether pid is root or below it in stats.
func descends(stats map[int]procStat, pid, root int) bool {
	for range len(stats) {
		if pid == root {
			return true
		}
		st, ok := stats[pid]
		if !ok || st.ppid == 0 || st.ppid == pid {
			return false
		}
		pid = st.ppid
	}
	return false
}

// serverPID reads the pid on the first line of a server's pid file
// (PostgreSQL's postmaster.pid, MariaDB's mariadbd.pid).
func serverPID(file string) (int, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return 0, fmt.Errorf("server pid file: %w", err)
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, fmt.Errorf("server pid file %s: %w", file, err)
	}
	return pid, nil
}
