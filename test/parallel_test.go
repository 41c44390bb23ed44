package e2e

import (
	"fmt"
	"os"
	"strconv"
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
// come. It must be called before the test starts its network.
func runBesideOtherNetworks(t *testing.T) {
	t.Helper()
	t.Parallel()
	networkSlots <- struct{}{}
	// Registered first, so it runs last: after the network has stopped.
	t.Cleanup(func() { <-networkSlots })
}
