package node

import (
	"fmt"
	"strings"
	"time"
)

// futureBlockText is how CometBFT v0.38's block validation
// (state/validation.go, since block_time_tolerance) says that a block's
// time is not before this node's wall clock plus
// consensus.block_time_tolerance (default 60 s). When +2/3 of the
// validators prevoted for or committed such a block, consensus panics
// ("precommit step; +2/3 prevoted for an invalid block: …", "+2/3
// committed an invalid block: …") and ends: the node's clock is behind
// the network's by more than the tolerance.
const futureBlockText = "is too far in the future (wall clock"

// clockBehindError is the report of a consensus that ended on a block
// from this node's future (cause, the noted panic), else nil.
func clockBehindError(cause string, tolerance time.Duration) error {
	if !strings.Contains(cause, futureBlockText) {
		return nil
	}
	return fmt.Errorf("%w: +2/3 of the validators accepted a block whose time is more than consensus.block_time_tolerance (%v) ahead of this node's wall clock, so this node's clock is behind the network's: set it right (NTP) and start the node again (%s)",
		ErrConsensusStopped, tolerance, oneLine(cause, 300))
}

// clockBehindInConsensus is the report of a consensus that ended because
// this node's clock is behind, else nil. It is logged here: the node
// stops at once, without the grace it gives its peers to show a
// divergence, since no peer can tell more.
func (n *Node) clockBehindInConsensus() error {
	err := clockBehindError(n.panics.cause(), n.cmt.Config().Consensus.BlockTimeTolerance)
	if err != nil {
		n.logger.Error("relchain: " + err.Error())
	}
	return err
}
