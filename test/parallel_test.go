package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// networkSlots bounds how many tests run their networks at the same time:
// RELCHAIN_E2E_NETWORKS (default 2; 1 runs them one after another). Tests
// spend most of their time waiting for blocks, so two 4-validator
// networks share two cores without slowing each other down much; more
// would make block times, not the tests, the thing under test.
var networkSlots = make(chan struct{}, networksAtOnce())

func networksAtOnce() int {
	v := os.Getenv("RELCHAIN_E2E_NETWORKS")
	if v == "" {
		return 2
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		panic(fmt.Sprintf("RELCHAIN_E2E_NETWORKS=%q: want a positive number of networks", v))
	}
	return n
}

// runBesideOtherNetworks lets t run in parallel with the other tests that
// call it (t.Parallel), at most networksAtOnce of them at a time. Only a
// test whose network is its own and healthy calls it: no killed, paused
// or partitioned validators, no per-tx time limits, no fixed ports, no
// process-wide state (t.Setenv), nothing that depends on how fast blocks
// come. It must be called before the test starts its network. In the
// job that runs the tests alone (RELCHAIN_E2E_JOB=alone) it skips t.
func runBesideOtherNetworks(t *testing.T) {
	t.Helper()
	if e2eJob == jobAlone {
		t.Skip("a healthy network of its own: make test-e2e runs it in its other job (RELCHAIN_E2E_JOB=healthy)")
	}
	healthyTests.Store(t.Name(), true)
	t.Parallel()
	networkSlots <- struct{}{}
	// Registered first, so it runs last: after the network has stopped.
	t.Cleanup(func() { <-networkSlots })
}

// The jobs of RELCHAIN_E2E_JOB: make test-e2e runs ./test as two go test
// processes side by side, one with the tests that run alone (their
// networks lose, pause or restart validators, or depend on block timing),
// the other with the healthy networks (runBesideOtherNetworks), so that
// the machine always runs two networks instead of one network alone for
// most of the run and two at its end. Unset, every test runs.
const (
	jobAlone   = "alone"
	jobHealthy = "healthy"
)

var e2eJob = jobFromEnv()

func jobFromEnv() string {
	switch v := os.Getenv("RELCHAIN_E2E_JOB"); v {
	case "", jobAlone, jobHealthy:
		return v
	default:
		panic(fmt.Sprintf("RELCHAIN_E2E_JOB=%q: want %q, %q or nothing (every test)", v, jobAlone, jobHealthy))
	}
}

// healthyTests are the names of the tests that called
// runBesideOtherNetworks.
var healthyTests sync.Map

// runAlone is called by every test that starts a network without
// runBesideOtherNetworks (mustStartCluster calls it): in the healthy job
// (RELCHAIN_E2E_JOB=healthy) it skips t unless t or a test it belongs to
// called runBesideOtherNetworks.
// runInHealthyJob is for a test that runs alone (no network beside its
// own in its process: it restarts every node, or depends on block
// timing) but whose place is free: make test-e2e runs it in the healthy
// job's process, before the healthy networks start (Go runs a package's
// sequential tests before its parallel ones), to even out the two jobs'
// times. It must be called before the test starts its network.
func runInHealthyJob(t *testing.T) {
	t.Helper()
	switch e2eJob {
	case jobAlone:
		t.Skip("runs alone in the other job: make test-e2e runs it in the healthy job's process, before its networks (RELCHAIN_E2E_JOB=healthy)")
	case jobHealthy:
		healthyTests.Store(t.Name(), true)
	}
}

func runAlone(t *testing.T) {
	t.Helper()
	if e2eJob != jobHealthy {
		return
	}
	for name := t.Name(); ; {
		if _, ok := healthyTests.Load(name); ok {
			return
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			break
		}
		name = name[:i]
	}
	t.Skip("runs alone: make test-e2e runs it in its other job (RELCHAIN_E2E_JOB=alone)")
}
