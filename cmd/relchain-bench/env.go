package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/node"
)

// nodeBinaryEnv names the relchain node binary the lab's networks run;
// `relchain bench` sets it to its own executable when it forwards here.
const nodeBinaryEnv = "RELCHAIN_BIN"

// nodeBinary finds the relchain node binary: $RELCHAIN_BIN, else relchain
// next to this executable, else relchain in PATH.
func nodeBinary() (string, error) {
	if p := os.Getenv(nodeBinaryEnv); p != "" {
		return p, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if p := filepath.Join(filepath.Dir(self), "relchain"); isExecutable(p) {
		return p, nil
	}
	if p, err := exec.LookPath("relchain"); err == nil {
		return p, nil
	}
	return "", errors.New("the benchmark starts networks of relchain nodes, but no relchain binary is next to " +
		self + " nor in PATH: build both with `make build` (bin/relchain, bin/relchain-bench) or set " + nodeBinaryEnv)
}

// testHooksBinaryEnv names the node binary built with the test hooks
// (make build-testhooks) that the gate-off run needs: a default relchain
// cannot turn the gate off.
const testHooksBinaryEnv = "RELCHAIN_TESTHOOKS_BIN"

// testHooksBinary finds the test-hooks node binary for --gate-off:
// $RELCHAIN_TESTHOOKS_BIN, else relchain-testhooks next to the node binary
// or to this executable, else in PATH.
func testHooksBinary(node string) (string, error) {
	if p := os.Getenv(testHooksBinaryEnv); p != "" {
		return p, nil
	}
	const name = "relchain-testhooks"
	dirs := []string{filepath.Dir(node)}
	if self, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(self))
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", errors.New("--gate-off runs a network with the gate turned off, which only a node built with the test hooks can do: " +
		"build it with `make build-testhooks` (bin/relchain-testhooks) or set " + testHooksBinaryEnv)
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

func defaultHome() string {
	if h := os.Getenv("RELCHAIN_HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".relchain")
	}
	return ".relchain"
}

// loadKey loads keyFile, or the home's default key (as relchain's client
// commands do).
func loadKey(home, keyFile string) (keyring.Key, error) {
	if keyFile != "" {
		return keyring.LoadFile(keyFile)
	}
	return keyring.Dir(filepath.Join(home, "keys")).LoadOrCreateDefault()
}

// netFlags are the network flags `relchain bench` shared with `relchain
// testnet`; the bench reads --validators, --backend, --dsn-template and
// the --timeout-* flags and accepts the others unchanged.
type netFlags struct {
	validators    int
	backend       string
	backends      string // one per validator: a network over several engines
	dsnTemplates  []string
	chainID       string
	blockAtomic   bool
	timeoutCommit time.Duration
	// timeoutPropose, timeoutProposeDelta and timeoutPrecommit: 0 keeps
	// CometBFT's own.
	timeoutPropose      time.Duration
	timeoutProposeDelta time.Duration
	timeoutPrecommit    time.Duration
	basePort            int
	unsafeSuper         bool
}

func (f *netFlags) register(cmd *cobra.Command, basePort int) {
	cmd.Flags().IntVar(&f.validators, "validators", 4, "number of validators")
	cmd.Flags().StringVar(&f.backend, "backend", "sqlite", "database backend: sqlite, postgres or mysql")
	cmd.Flags().StringVar(&f.backends, "backends", "", "one backend per validator, comma-separated (a network over several engines, PostgreSQL's SQL at protocol version 5, docs/mixed-networks.md); --backend then names the engine of the baseline and the DSN template")
	cmd.Flags().StringArrayVar(&f.dsnTemplates, "dsn-template", nil, "PostgreSQL or MySQL DSN with {node}, e.g. postgres://127.0.0.1:5432/relchain_{node}?sslmode=disable or root@tcp(127.0.0.1:3306)/relchain_{node}; with --backends over two server engines, one ENGINE=DSN per engine (repeatable)")
	cmd.Flags().StringVar(&f.chainID, "chain-id", "", "chain id (default: random)")
	cmd.Flags().BoolVar(&f.blockAtomic, "block-atomic", false, "roll back a whole block when any of its transactions fails (the paper's behaviour)")
	d := node.DefaultTuning()
	cmd.Flags().DurationVar(&f.timeoutCommit, "timeout-commit", d.TimeoutCommit, "CometBFT timeout_commit")
	cmd.Flags().DurationVar(&f.timeoutPropose, "timeout-propose", d.TimeoutPropose, "CometBFT timeout_propose")
	cmd.Flags().DurationVar(&f.timeoutProposeDelta, "timeout-propose-delta", d.TimeoutProposeDelta, "CometBFT timeout_propose_delta")
	cmd.Flags().DurationVar(&f.timeoutPrecommit, "timeout-precommit", d.TimeoutPrecommit, "CometBFT timeout_precommit")
	cmd.Flags().BoolVar(&f.unsafeSuper, "unsafe-superuser", false, "PostgreSQL, TESTS ONLY: nodes connect as --dsn-template's role (a superuser) instead of least-privilege roles created from it")
	cmd.Flags().IntVar(&f.basePort, "base-port", basePort, "node i uses ports BASE+10i (p2p) and BASE+10i+1 (RPC); 0 picks free ports")
}
