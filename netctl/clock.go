package netctl

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ClockOffsetEnv is the variable through which a fault-injection build of
// relchain (go build -tags e2e_clock) offsets its own wall clock; a
// default build ignores it.
const ClockOffsetEnv = "RELCHAIN_E2E_CLOCK_OFFSET"

// SetClockOffset makes node i's next start run clockBin, an e2e_clock
// build of relchain, with its wall clock offset by d (monotonic time is
// not touched); d == 0 puts node i back on Bin and the true clock. It
// takes effect when the node (re)starts.
func (n *Network) SetClockOffset(i int, clockBin string, d time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if i < 0 || i >= len(n.Nodes) {
		return fmt.Errorf("no node %d", i)
	}
	if d != 0 && clockBin == "" {
		return fmt.Errorf("%s: a clock offset needs an e2e_clock build of relchain", n.Nodes[i].Name)
	}
	for len(n.NodeBin) < len(n.Nodes) {
		n.NodeBin = append(n.NodeBin, "")
	}
	for len(n.NodeEnv) < len(n.Nodes) {
		n.NodeEnv = append(n.NodeEnv, nil)
	}
	n.NodeEnv[i] = slices.DeleteFunc(n.NodeEnv[i], func(kv string) bool { return strings.HasPrefix(kv, ClockOffsetEnv+"=") })
	n.NodeBin[i] = ""
	if d != 0 {
		n.NodeBin[i] = clockBin
		n.NodeEnv[i] = append(n.NodeEnv[i], fmt.Sprintf("%s=%s", ClockOffsetEnv, d))
	}
	return nil
}
