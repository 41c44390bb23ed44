package e2e

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrUnsupported is wrapped by Run's error when this machine cannot run
// the manifest at all (a disk-full fault without root): a skip, not a
// failure.
var ErrUnsupported = errors.New("not possible on this machine")

// stopsOnlyItsNode reports whether action is a fault on one node's data,
// which must stop that node only: the others go on.
func stopsOnlyItsNode(action string) bool { return action == ActTamper || action == ActDiskFull }

// smallDiskBytes is the size of a disk-full node's data disk.
const smallDiskBytes = 64 << 20

// stopWithin bounds how long a node may keep running after its disk
// filled up or its database was tampered with and a block came.
const stopWithin = 15 * time.Second

// Lines a node's log must carry when it stopped for a fault on its data.
const (
	diskFullLine   = "error: disk full: no space left on device"
	outOfBandLine  = "the database was changed outside the chain"
	diskFullFiller = "e2e-filler"
)

// diskFill is a disk filled up: when, where, and what /readyz said.
type diskFill struct {
	path  string
	at    time.Time
	ready func() string
}

// mountSmallDisks puts the data directory (CometBFT's stores and the
// SQLite database) of every disk-full node on a tmpfs of its own,
// keeping what it held. Only root may mount: otherwise ErrUnsupported.
func (nw *network) mountSmallDisks(nodes []int) error {
	if len(nodes) > 0 && os.Geteuid() != 0 {
		return fmt.Errorf("manifest %s fills a disk, which needs a size-limited tmpfs that only root may mount: %w", nw.m.Name, ErrUnsupported)
	}
	for _, i := range nodes {
		dir := filepath.Join(nw.net.Nodes[i].Home, "data")
		keep := dir + ".before-mount"
		if err := os.Rename(dir, keep); err != nil {
			return fmt.Errorf("small disk for node%d: %w", i, err)
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("small disk for node%d: %w", i, err)
		}
		opts := fmt.Sprintf("size=%d,mode=0755", smallDiskBytes)
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("mount a tmpfs at %s: %v %s: %w", dir, err, out, ErrUnsupported)
		}
		nw.disks = append(nw.disks, dir)
		if out, err := exec.Command("cp", "-a", keep+"/.", dir+"/").CombinedOutput(); err != nil {
			return fmt.Errorf("copy %s onto its tmpfs: %v %s", keep, err, out)
		}
	}
	return nil
}

// unmountDisks unmounts the small disks; the nodes must have stopped.
func (nw *network) unmountDisks() {
	for _, dir := range nw.disks {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			nw.note(fmt.Sprintf("unmount %s: %v %s", dir, err, out))
		}
	}
	nw.disks = nil
}

// fillDisk fills node i's data disk until the file system has no space.
func (nw *network) fillDisk(i int) error {
	path := filepath.Join(nw.net.Nodes[i].Home, "data", diskFullFiller)
	nw.expectExit(i)
	nw.watchExit(i)
	ready := nw.watchReadiness(i)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("fill node%d's disk: %w", i, err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				return fmt.Errorf("fill node%d's disk: %w", i, err)
			}
			break
		}
	}
	nw.fills[i] = &diskFill{path: path, at: time.Now(), ready: ready}
	return nil
}

// freeDisk checks that node i stopped promptly after its disk filled up,
// saying so and not ready, then frees the space and restarts it. The
// node is restarted even when a check failed; the error names the check.
func (nw *network) freeDisk(i int) error {
	fill := nw.fills[i]
	if fill == nil {
		return fmt.Errorf("node%d's disk was not filled", i)
	}
	delete(nw.fills, i)
	checkErr := nw.checkDiskFullStop(i, fill)
	if err := os.Remove(fill.path); err != nil {
		return errors.Join(checkErr, fmt.Errorf("free node%d's disk: %w", i, err))
	}
	if err := nw.restart(i); err != nil {
		return errors.Join(checkErr, err)
	}
	return checkErr
}

func (nw *network) checkDiskFullStop(i int, fill *diskFill) error {
	select {
	case <-nw.net.Exited(i):
	case <-time.After(time.Until(fill.at.Add(stopWithin))):
		return fmt.Errorf("node%d still runs %v after its disk filled up", i, stopWithin)
	}
	line, err := nw.stopLine(i, diskFullLine)
	if err != nil {
		return err
	}
	ready := fill.ready()
	if ready != "" && !strings.Contains(ready, "503") {
		return fmt.Errorf("node%d's /readyz answered %s after its disk filled up, want 503", i, ready)
	}
	if ready == "" {
		ready = "200 until the exit, no 503 seen"
	}
	nw.note(fmt.Sprintf("node%d stopped %.1f s after its disk filled up (/readyz: %s): %s",
		i, nw.exitedAt(i).Sub(fill.at).Seconds(), ready, line))
	return nil
}

// tamper runs the statements on node i's database outside the chain,
// through `relchain debug tamper` of a test-hooks build (hooksBinary: the
// release binary has no debug command; the harness never opens a node's
// database itself).
func (nw *network) tamper(i int, stmts []string) error {
	bin, err := hooksBinary(filepath.Dir(nw.net.Nodes[i].Home))
	if err != nil {
		return fmt.Errorf("tamper with node%d: %w", i, err)
	}
	nw.expectExit(i)
	nw.watchExit(i)
	args := []string{"debug", "tamper", "--home", nw.net.Nodes[i].Home}
	for _, s := range stmts {
		args = append(args, "--sql", s)
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("tamper with node%d: %v: %s", i, err, strings.TrimSpace(string(out)))
	}
	nw.tampered[i] = time.Now()
	return nil
}

// HooksBinEnv names a test-hooks build of relchain (BuildHooksBinary) for
// the tamper perturbation; relchain-e2e sets it before a run.
const HooksBinEnv = "RELCHAIN_E2E_HOOKS_BIN"

// hooksBinary is $RELCHAIN_E2E_HOOKS_BIN, or a test-hooks build of relchain
// in dir (the network's directory), built there on the first tamper.
func hooksBinary(dir string) (string, error) {
	if bin := os.Getenv(HooksBinEnv); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(dir, "relchain-e2e-hooks")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	return BuildHooksBinary(dir)
}

// BuildHooksBinary builds the test-hooks relchain (go build -tags
// testhooks: relchain debug tamper) into dir. Release builds never
// contain it.
func BuildHooksBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "relchain-e2e-hooks")
	cmd := exec.Command("go", "build", "-tags", "testhooks", "-o", bin, "github.com/relchain/relchain/cmd/relchain")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the test-hooks relchain: %w\n%s", err, out)
	}
	return bin, nil
}

// rebuild checks that tampered node i stopped by itself naming the
// out-of-band change, then wipes its data (all but its signing state)
// and restarts it: it syncs the chain from its peers. The node is
// rebuilt even when the check failed; the error names the check.
func (nw *network) rebuild(i int) error {
	at, ok := nw.tampered[i]
	if !ok {
		return fmt.Errorf("node%d was not tampered with", i)
	}
	delete(nw.tampered, i)
	checkErr := nw.checkOutOfBandStop(i, at)
	nw.expectExit(i)
	if err := nw.net.Kill(i); err != nil {
		return errors.Join(checkErr, err)
	}
	if err := wipeData(nw.net.Nodes[i].Home); err != nil {
		return errors.Join(checkErr, err)
	}
	if err := nw.start(i); err != nil {
		return errors.Join(checkErr, err)
	}
	return checkErr
}

func (nw *network) checkOutOfBandStop(i int, at time.Time) error {
	select {
	case <-nw.net.Exited(i):
	case <-time.After(time.Until(at.Add(stopWithin))):
		return fmt.Errorf("node%d still runs %v after its database was changed outside the chain", i, stopWithin)
	}
	line, err := nw.stopLine(i, outOfBandLine)
	if err != nil {
		return err
	}
	nw.note(fmt.Sprintf("node%d stopped %.1f s after the tamper: %s", i, nw.exitedAt(i).Sub(at).Seconds(), line))
	return nil
}

// stopLine checks that node i exited with a failure status and returns
// the last line of its log that contains want.
func (nw *network) stopLine(i int, want string) (string, error) {
	if nw.net.ExitError(i) == nil {
		return "", fmt.Errorf("node%d exited with status 0, want a failure", i)
	}
	b, err := os.ReadFile(nw.net.LogFile(i))
	if err != nil {
		return "", fmt.Errorf("node%d's log: %w", i, err)
	}
	var line string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, want) {
			line = l
		}
	}
	if line == "" {
		return "", fmt.Errorf("node%d exited (%v) without a log line saying %q", i, nw.net.ExitError(i), want)
	}
	const maxLine = 300
	if len(line) > maxLine {
		line = line[:maxLine] + "…"
	}
	return line, nil
}

// watchExit notes when node i's current process ends (exitedAt).
func (nw *network) watchExit(i int) {
	nw.emu.Lock()
	delete(nw.exits, i)
	nw.emu.Unlock()
	exited := nw.net.Exited(i)
	go func() { <-exited; nw.noteExit(i) }()
}

func (nw *network) noteExit(i int) {
	nw.emu.Lock()
	defer nw.emu.Unlock()
	if _, ok := nw.exits[i]; !ok {
		nw.exits[i] = time.Now()
	}
}

// exitedAt is when the harness saw node i's process end (now, at the
// latest: it is asked once Exited fired).
func (nw *network) exitedAt(i int) time.Time {
	nw.emu.Lock()
	defer nw.emu.Unlock()
	if t, ok := nw.exits[i]; ok {
		return t
	}
	return time.Now()
}

// restart starts node i again if it is not running.
func (nw *network) restart(i int) error {
	if nw.net.Running(i) {
		return nil
	}
	return nw.start(i)
}

// watchReadiness polls node i's /readyz until its process exits and
// returns what it saw: "" if never anything but ready, else the status
// and body of the first not-ready answer. It also notes the exit time.
func (nw *network) watchReadiness(i int) func() string {
	seen := make(chan string, 1)
	seen <- ""
	exited := nw.net.Exited(i)
	url := nw.net.Nodes[i].Metrics + "/readyz"
	go func() {
		hc := &http.Client{Timeout: time.Second}
		for {
			select {
			case <-exited:
				return
			case <-time.After(20 * time.Millisecond):
			}
			resp, err := hc.Get(url)
			if err != nil {
				continue
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				s := <-seen
				if s == "" {
					s = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
				}
				seen <- s
			}
		}
	}()
	return func() string { s := <-seen; seen <- s; return s }
}

// wipeData deletes a stopped node's data (CometBFT's stores, the SQLite
// database, checkpoints, a recorded halt) but its signing state, which
// keeps it from signing twice at a height it already signed.
func wipeData(home string) error {
	data := filepath.Join(home, "data")
	entries, err := os.ReadDir(data)
	if err != nil {
		return fmt.Errorf("wipe %s: %w", data, err)
	}
	for _, e := range entries {
		if e.Name() == "priv_validator_state.json" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(data, e.Name())); err != nil {
			return fmt.Errorf("wipe %s: %w", data, err)
		}
	}
	return nil
}
