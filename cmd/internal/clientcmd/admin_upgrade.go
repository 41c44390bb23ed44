package clientcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// upgradeCmd is `relchain admin upgrade`: schedules a protocol upgrade on
// chain (admin keys only). See docs/upgrades.md.
func upgradeCmd(t *target, sg *signer, timeout *time.Duration) *cobra.Command {
	var version uint64
	var height int64
	var cancelIt bool
	cmd := &cobra.Command{
		Use:   "upgrade --version V --height H [--cancel]",
		Short: "Schedule a protocol upgrade: blocks from height H run protocol version V (admin keys only)",
		Long: `A protocol upgrade changes the rules blocks are executed by, on every node at
the same height. An admin's system transaction schedules it: from block H on,
the chain runs protocol version V (CometBFT's app version, which every header
carries from H on). It replaces an upgrade already scheduled.

The chain accepts it when V is newer than the chain's version and H is at
least ` + fmt.Sprint(protocol.MinUpgradeDelay) + ` blocks after the block that commits it; whether a node's binary
can run V does not matter for that. Every node must run a relchain that
supports V by height H: a node whose binary cannot run it executes block H-1,
then stops with a message naming the version it needs; restarted with a newer
relchain it continues at H. 'relchain status' shows the chain's version and
the scheduled upgrade; 'relchain version' the versions a binary supports.

With --cancel it cancels the scheduled upgrade instead: --version and --height
must be the scheduled upgrade's (as 'relchain status' shows them); the chain
accepts a cancel committed up to block H-1 and keeps its protocol version.
See docs/upgrades.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if version == 0 || version > math.MaxInt64 || height <= 0 {
				return errors.New("admin upgrade: --version and --height are required and must be positive")
			}
			return submitUpgrade(t, sg, *timeout, version, height, cancelIt)
		},
	}
	cmd.Flags().Uint64Var(&version, "version", 0, "the protocol version blocks run from --height on")
	cmd.Flags().Int64Var(&height, "height", 0, "the first block of the new version")
	cmd.Flags().BoolVar(&cancelIt, "cancel", false, "cancel the scheduled upgrade to --version at --height (accepted up to block height-1)")
	return cmd
}

// submitUpgrade signs the upgrade statement (or, cancelling, the cancel
// statement) with the admin key, waits for its block and says what the
// operators must do.
func submitUpgrade(t *target, sg *signer, timeout time.Duration, version uint64, height int64, cancelling bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	st := txn.Statement{SQL: protocol.UpgradeStatement, Args: []txn.Arg{txn.Int(int64(version)), txn.Int(height)}}
	what := "admin upgrade"
	if cancelling {
		st.SQL, what = protocol.CancelUpgradeStatement, "admin upgrade --cancel"
	}
	res, c, err := submitAdmin(ctx, t, sg, what, st)
	if err != nil {
		return err
	}
	if cancelling {
		fmt.Printf("protocol upgrade to version %d at height %d: cancelled at height %d (tx %s); the chain keeps its protocol version\n", version, height, res.Height, res.Hash)
		return nil
	}
	fmt.Printf("protocol upgrade to version %d at height %d: committed at height %d (tx %s)\n", version, height, res.Height, res.Hash)
	fmt.Printf("every node must run a relchain that supports protocol version %d before height %d (`relchain version` lists a binary's versions)\n", version, height)
	if ps, err := protocolOf(ctx, c); err == nil && !slices.Contains(ps.Supported, version) {
		fmt.Printf("note: node %s runs a relchain that supports protocol versions %v only: it will stop at height %d until it is upgraded\n", c.URL(), ps.Supported, height)
	}
	return nil
}

// protocolPath is the ABCI query path of the chain's protocol state
// (app.ProtocolPath).
const protocolPath = "/protocol"

// protocolStatus is the chain's protocol state as a node answers it at
// protocolPath: the JSON of app.ProtocolStatus, whose package links the
// backends (a test keeps the two the same).
type protocolStatus struct {
	Height    int64            `json:"height"`
	Version   uint64           `json:"version"`
	Since     int64            `json:"since"`
	Next      uint64           `json:"next"`
	Pending   *protocolUpgrade `json:"pending,omitempty"`
	Supported []uint64         `json:"supported"`
}

// protocolUpgrade is a scheduled upgrade (app.Upgrade).
type protocolUpgrade struct {
	Version uint64 `json:"version"`
	Height  int64  `json:"height"`
}

// protocolOf asks c's node for the chain's protocol state (protocolPath).
func protocolOf(ctx context.Context, c *client.Client) (*protocolStatus, error) {
	r, err := c.RPC().ABCIQuery(ctx, protocolPath, nil)
	if err != nil {
		return nil, fmt.Errorf("protocol state on node %s: %w", c.URL(), err)
	}
	if r.Response.Code != api.CodeOK {
		return nil, fmt.Errorf("protocol state on node %s: %s (a relchain older than protocol upgrades?)", c.URL(), r.Response.Log)
	}
	var ps protocolStatus
	if err := json.Unmarshal(r.Response.Value, &ps); err != nil {
		return nil, fmt.Errorf("protocol state on node %s: %w", c.URL(), err)
	}
	return &ps, nil
}
