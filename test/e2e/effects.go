package e2e

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// Every fault confirms it took effect before the schedule counts it, and
// every node exit the schedule did not cause fails the run: a harness
// that kills a dead node, or silently restarts one that crashed, passes
// while wrong.

// confirmWithin bounds how long a fault may take to show its effect.
const confirmWithin = 5 * time.Second

// exitTailLines is how much of a node's log an unexpected exit quotes.
const exitTailLines = 15

// start starts node i and watches its process: an exit the schedule did
// not ask for (expectExit) is recorded with the log's tail (unexpected).
func (nw *network) start(i int) error {
	nw.emu.Lock()
	delete(nw.expected, i)
	nw.emu.Unlock()
	if err := nw.net.Start(i); err != nil {
		return err
	}
	exited, status := nw.net.Watch(i)
	go func() {
		<-exited
		nw.emu.Lock()
		defer nw.emu.Unlock()
		if nw.expected[i] || nw.stopping {
			return
		}
		log := nw.net.LogFile(i)
		nw.crashes = append(nw.crashes, fmt.Sprintf("node%d (%s) exited without the schedule stopping it (%v)%s; the last lines of %s:\n%s",
			i, nw.net.Nodes[i].Name, exitStatus(status()), exitCause(log), log, logTail(log, exitTailLines)))
	}()
	return nil
}

// expectExit says node i's current process is meant to end (killed by
// the schedule, or stopping by itself for a fault on its data).
func (nw *network) expectExit(i int) {
	nw.emu.Lock()
	defer nw.emu.Unlock()
	nw.expected[i] = true
}

// stopAll stops every node; their exits are expected.
func (nw *network) stopAll() {
	nw.emu.Lock()
	nw.stopping = true
	nw.emu.Unlock()
	nw.net.StopAll()
}

// takeCrashes returns the unexpected exits recorded since the last call.
func (nw *network) takeCrashes() []string {
	nw.emu.Lock()
	defer nw.emu.Unlock()
	out := nw.crashes
	nw.crashes = nil
	return out
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// exitCauses start the lines that say why a process ended: a Go panic or
// fatal error (followed by a stack that fills the tail), relchain's own
// last words, CometBFT's consensus failure.
var exitCauses = []string{"panic: ", "fatal error: ", "error: ", "CONSENSUS FAILURE"}

// exitCause is ", saying: LINE" for the log's last line that says why the
// process ended, or "".
func exitCause(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		for _, c := range exitCauses {
			if strings.HasPrefix(lines[k], c) || (c == "CONSENSUS FAILURE" && strings.Contains(lines[k], c)) {
				return ", saying: " + oneLine(lines[k], 400)
			}
		}
	}
	return ""
}

// logTail is the last n lines of the file at path.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read the log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	for k, l := range lines {
		lines[k] = oneLine(l, 400) // a consensus failure's line carries a whole stack
	}
	return strings.Join(lines, "\n")
}

// kill kills running node i and confirms its process is gone. Killing a
// node that is not running is an error: it would prove nothing.
func (nw *network) kill(i int) error {
	if !nw.net.Running(i) {
		return fmt.Errorf("node%d is not running: killing it would prove nothing", i)
	}
	nw.expectExit(i)
	if err := nw.net.Kill(i); err != nil {
		return err
	}
	if nw.net.Running(i) {
		return fmt.Errorf("node%d still runs after SIGKILL", i)
	}
	return nil
}

// restartKilled starts node i again: it must not be running.
func (nw *network) restartKilled(i int) error {
	if nw.net.Running(i) {
		return fmt.Errorf("node%d is running: there is nothing to restart", i)
	}
	return nw.start(i)
}

// pause stops node i (SIGSTOP) and confirms the kernel shows it stopped;
// resume continues it and confirms it runs again.
func (nw *network) pause(i int) error {
	if !nw.net.Running(i) {
		return fmt.Errorf("node%d is not running: pausing it would prove nothing", i)
	}
	if err := nw.net.Pause(i); err != nil {
		return err
	}
	return nw.waitProcState(i, true)
}

func (nw *network) resume(i int) error {
	if err := nw.net.Resume(i); err != nil {
		return err
	}
	return nw.waitProcState(i, false)
}

// waitProcState waits until node i's process is (stopped) or is not
// (!stopped) in the stopped state 'T' of /proc/PID/stat.
func (nw *network) waitProcState(i int, stopped bool) error {
	pid := nw.net.Pid(i)
	deadline := time.Now().Add(confirmWithin)
	var state string
	for {
		st, err := procState(pid)
		if err != nil {
			return fmt.Errorf("node%d (pid %d): %w", i, pid, err)
		}
		state = st
		if (st == "T") == stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node%d (pid %d) is in state %s %v after the signal, want stopped=%v", i, pid, state, confirmWithin, stopped)
		}
		time.Sleep(20 * time.Millisecond) // polling the kernel's view, no event to wait on
	}
}

// procState is the state letter of process pid (R, S, T, Z…).
func procState(pid int) (string, error) {
	if pid <= 0 {
		return "", errors.New("no process")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", fmt.Errorf("read its state: %w", err)
	}
	// pid (comm) state …: comm may hold spaces and parentheses.
	s := string(b)
	k := strings.LastIndexByte(s, ')')
	if k < 0 || k+3 > len(s) {
		return "", fmt.Errorf("unreadable /proc stat %q", s)
	}
	return s[k+2 : k+3], nil
}

// confirmLinks checks, from inside the nodes' namespaces, that every
// link now cut refuses a new connection and that every other link
// between validators accepts one: a partition, a disconnect or a heal
// that did not take effect is an error. It probes the RPC port: a probe
// opens and closes a TCP connection, which the node's p2p layer never
// sees.
func (nw *network) confirmLinks() error {
	cut := map[[2]int]bool{}
	for _, l := range nw.ns.Cut() {
		cut[l] = true
	}
	var errs []error
	for a := range nw.m.Validators {
		for b := range nw.m.Validators {
			if a == b {
				continue
			}
			port, err := rpcPort(nw.net.Nodes[b].RPC)
			if err != nil {
				return err
			}
			if !nw.net.Running(b) {
				continue // a killed node's port proves nothing either way
			}
			err = nw.ns.Reachable(a, b, port, time.Second)
			switch {
			case cut[[2]int{a, b}] && err == nil:
				errs = append(errs, fmt.Errorf("node%d still reaches node%d across the cut", a, b))
			case !cut[[2]int{a, b}] && err != nil:
				errs = append(errs, fmt.Errorf("node%d cannot reach node%d, which no cut separates: %w", a, b, err))
			}
		}
	}
	return errors.Join(errs...)
}

func rpcPort(rpc string) (string, error) {
	u, err := url.Parse(rpc)
	if err != nil || u.Port() == "" {
		return "", fmt.Errorf("node RPC address %q has no port", rpc)
	}
	return u.Port(), nil
}
