package clientcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/cometbft/cometbft/types"
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/client"
)

// statusView is what `relchain status` shows: the node's status and its
// view of the network.
type statusView struct {
	*client.Status
	Peers []string `json:"peers"`
	// LastBlockTime is the newest block's time; LastBlockAge how long ago
	// (as this machine's clock sees it).
	LastBlockTime time.Time `json:"last_block_time"`
	LastBlockAge  string    `json:"last_block_age"`
	Quorum        quorum    `json:"quorum"`
	// Protocol is the chain's protocol version and scheduled upgrade, and
	// the versions the node's binary supports (nil: a node older than
	// protocol upgrades).
	Protocol *protocolStatus `json:"protocol,omitempty"`
	// Network lists, with --net, every node of the network: whether it
	// answers, its height, and whether its home records that it stopped.
	Network []netNode `json:"network,omitempty"`
}

// quorum is the voting power that signed the newest block the node holds
// (a proxy for "online") against the total; blocks need more than 2/3.
type quorum struct {
	Height      int64 `json:"height"`
	SignedPower int64 `json:"signed_power"`
	TotalPower  int64 `json:"total_power"`
	Signed      int   `json:"signed_validators"`
	Validators  int   `json:"validators"`
}

type netNode struct {
	Name    string `json:"name"`
	RPC     string `json:"rpc"`
	Up      bool   `json:"up"`
	Height  int64  `json:"height,omitempty"`
	AppHash string `json:"app_hash,omitempty"`
	Stopped string `json:"stopped,omitempty"`
}

func (e *Env) statusCmd() *cobra.Command {
	var output string
	var t *target
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a node's height, AppHash, peers, quorum, last block age and backend",
		Long: `Status shows a node's chain id, height and AppHash (upper-case hex, as CometBFT
prints it), backend, the chain's protocol version and any scheduled upgrade
(with the versions the node's binary supports), its peers, the voting power that signed the newest block
against the total (a block needs more than 2/3), and how long ago that block
was made. With --net it also lists every node of the network: up or down, its
height, and whether its home records that it stopped (an AppHash divergence
or a change made outside the chain: relchain recover restores it; or an
upgrade to a protocol version its binary cannot run: the message names the
version to install, and the node's next start with such a binary clears it).

` + nodeHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := CheckOutput(output, "text", "json"); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			var netw []netNode
			if t.net != "" {
				netw = e.networkOf(ctx, t.net)
			}
			c, err := t.client(ctx)
			if err != nil {
				if netw != nil {
					printNetwork(netw)
				}
				return err
			}
			v, err := statusOf(ctx, c)
			if err != nil {
				return err
			}
			v.Network = netw
			if output == "json" {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			printStatus(v)
			return nil
		},
	}
	t = e.withTarget(cmd, false)
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}

// statusOf gathers the status view of c's node.
func statusOf(ctx context.Context, c *client.Client) (*statusView, error) {
	st, err := c.Status(ctx)
	if err != nil {
		return nil, err
	}
	v := &statusView{Status: st, Peers: []string{}}
	raw, err := c.RPC().Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("status on node %s: %w", c.URL(), err)
	}
	v.LastBlockTime = raw.SyncInfo.LatestBlockTime
	v.LastBlockAge = time.Since(v.LastBlockTime).Round(100 * time.Millisecond).String()
	ni, err := c.RPC().NetInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("net_info on node %s: %w", c.URL(), err)
	}
	for _, p := range ni.Peers {
		v.Peers = append(v.Peers, fmt.Sprintf("%s %s (%s)", p.NodeInfo.Moniker, p.RemoteIP, p.NodeInfo.ID()))
	}
	if v.Protocol, err = protocolOf(ctx, c); err != nil {
		v.Protocol = nil // a node older than protocol upgrades: shown as unknown
	}
	v.Quorum, err = quorumOf(ctx, c, raw.SyncInfo.LatestBlockHeight)
	return v, err
}

// quorumOf is the voting power that signed block h (its commit) against
// the validator set's total.
func quorumOf(ctx context.Context, c *client.Client, h int64) (quorum, error) {
	q := quorum{Height: h}
	if h < 1 {
		return q, nil
	}
	perPage := 100
	vals, err := c.RPC().Validators(ctx, &h, nil, &perPage)
	if err != nil {
		return q, fmt.Errorf("validators on node %s: %w", c.URL(), err)
	}
	power := map[string]int64{}
	for _, v := range vals.Validators {
		power[v.Address.String()] = v.VotingPower
		q.TotalPower += v.VotingPower
	}
	q.Validators = vals.Total
	cm, err := c.RPC().Commit(ctx, &h)
	if err != nil {
		return q, fmt.Errorf("commit %d on node %s: %w", h, c.URL(), err)
	}
	for _, s := range cm.Commit.Signatures {
		if s.BlockIDFlag == types.BlockIDFlagCommit {
			q.Signed++
			q.SignedPower += power[s.ValidatorAddress.String()]
		}
	}
	return q, nil
}

// networkOf looks at every node of the network in dir.
func (e *Env) networkOf(ctx context.Context, dir string) []netNode {
	nodes, err := e.Nodes(dir)
	if err != nil {
		return nil
	}
	out := make([]netNode, len(nodes))
	for i, n := range nodes {
		out[i] = netNode{Name: n.Name, RPC: n.RPC}
		out[i].Stopped = e.Stopped(n.Home)
		c, err := newClient(n.RPC, nil)
		if err != nil {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		info, err := c.RPC().ABCIInfo(pctx)
		cancel()
		if err == nil {
			out[i].Up, out[i].Height = true, info.Response.LastBlockHeight
			out[i].AppHash = fmt.Sprintf("%X", info.Response.LastBlockAppHash)
		}
	}
	return out
}

func printStatus(v *statusView) {
	st := v.Status
	fmt.Printf("node:            %s (%s)\nchain id:        %s\nheight:          %d\napp hash:        %s\nlast block:      %s ago (%s)\nbackend:         %s\nblock atomic:    %v\ncatching up:     %v\n",
		st.Node, st.Moniker, st.ChainID, st.Height, st.AppHash, v.LastBlockAge, v.LastBlockTime.UTC().Format(time.RFC3339), st.Backend, st.BlockAtomic, st.CatchingUp)
	q := v.Quorum
	verdict := "a quorum (> 2/3) signed it"
	if 3*q.SignedPower <= 2*q.TotalPower {
		verdict = "NO QUORUM: blocks need more than 2/3 of the voting power"
	}
	fmt.Printf("quorum:          block %d signed by %d of %d validators, power %d of %d: %s\n", q.Height, q.Signed, q.Validators, q.SignedPower, q.TotalPower, verdict)
	printProtocol(v.Protocol)
	fmt.Printf("peers:           %d\n", len(v.Peers))
	for _, p := range v.Peers {
		fmt.Printf("  %s\n", p)
	}
	fmt.Printf("validators:      %d\n", len(st.Validators))
	for _, val := range st.Validators {
		fmt.Printf("  %s\n", val)
	}
	if v.Network != nil {
		printNetwork(v.Network)
	}
}

// printProtocol prints the chain's protocol version, the scheduled
// upgrade and what the node's binary supports.
func printProtocol(ps *protocolStatus) {
	if ps == nil {
		fmt.Println("protocol:        unknown (the node runs a relchain older than protocol upgrades)")
		return
	}
	since := "since genesis"
	if ps.Since > 0 {
		since = fmt.Sprintf("since height %d", ps.Since)
	}
	fmt.Printf("protocol:        version %d (%s); this node's binary supports %v\n", ps.Version, since, ps.Supported)
	if ps.Pending == nil {
		fmt.Println("upgrade:         none scheduled")
		return
	}
	note := ""
	if !slices.Contains(ps.Supported, ps.Pending.Version) {
		note = "; THIS NODE'S BINARY CANNOT RUN IT: install a relchain that supports it before then"
	}
	fmt.Printf("upgrade:         version %d at height %d (in %d blocks)%s\n", ps.Pending.Version, ps.Pending.Height, ps.Pending.Height-ps.Height, note)
}

func printNetwork(nodes []netNode) {
	fmt.Println("network:")
	for _, n := range nodes {
		state := "down"
		if n.Up {
			state = fmt.Sprintf("up, height %d, app hash %s", n.Height, n.AppHash)
		}
		if n.Stopped != "" {
			state += "; STOPPED " + n.Stopped
		}
		fmt.Printf("  %-8s %s  %s\n", n.Name, n.RPC, state)
	}
}
