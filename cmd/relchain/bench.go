package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// labBinary is the benchmark lab's binary (cmd/relchain-bench). The lab is
// not linked into the node: `relchain bench …` runs it.
const labBinary = "relchain-bench"

func benchCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "bench [flags] | bench paper [flags]",
		Short: "Run the benchmark lab (relchain-bench): measure a workload, or regenerate the paper's evaluation",
		Long: `Runs the benchmark lab, the relchain-bench binary, with these arguments:
"relchain bench ARGS" is "relchain-bench ARGS" (see "relchain bench --help"
for its flags). relchain-bench is looked up next to this executable, then in
PATH; "make build" builds both into bin/. The networks it starts run this
relchain binary.`,
		Example: `  relchain bench --workload smallbank --mode sync --txs 500 --baseline --ceiling
  relchain bench paper --output report --quick`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			lab, err := findLab(self)
			if err != nil {
				return err
			}
			return runLab(lab, self, args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
}

// findLab returns the lab binary next to self (the running relchain), or
// else the one in PATH.
func findLab(self string) (string, error) {
	next := filepath.Join(filepath.Dir(self), labBinary)
	if st, err := os.Stat(next); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
		return next, nil
	}
	if p, err := exec.LookPath(labBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("relchain bench runs the benchmark lab, %s, which is neither next to %s nor in PATH: "+
		"build it with `make build` (bin/relchain and bin/%s) or `go build -o %s ./cmd/relchain-bench`",
		labBinary, self, labBinary, next)
}

// labExit is the lab's non-zero exit status; the lab has reported its
// error itself, so relchain exits with the status and prints nothing.
type labExit struct{ code int }

func (e *labExit) Error() string { return fmt.Sprintf("%s exited with status %d", labBinary, e.code) }

// runLab runs the lab with args and the given standard streams, telling
// it to start its networks with self (RELCHAIN_BIN). SIGINT and SIGTERM
// are passed on to the lab, which stops its networks before it exits; the
// lab also gets SIGTERM when relchain dies.
func runLab(lab, self string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.Command(lab, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(), "RELCHAIN_BIN="+self)
	// Pdeathsig: the lab does not outlive relchain killed (a test's
	// deadline, kill -9); SIGTERM makes it stop its networks and exit.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s: %w", lab, err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 { // killed by a signal
			code = 1
		}
		return &labExit{code: code}
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", lab, err)
	}
	return nil
}
