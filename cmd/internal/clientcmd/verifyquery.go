package clientcmd

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/rowcanon"
)

// verifyFlags are query's flags of verified reads (docs/verified-reads.md).
type verifyFlags struct {
	on          bool
	genesis     string
	trustHeight int64
	trustHash   string
	nodes       []string
	maxLag      int64
	atHeight    int64
	keyRead     func(sql string) (client.KeyRead, bool)
}

func (v *verifyFlags) register(cmd *cobra.Command, keyRead func(string) (client.KeyRead, bool)) {
	v.keyRead = keyRead
	fs := cmd.Flags()
	fs.BoolVar(&v.on, "verify", false, "trust no single node: prove a read by primary key against a header the light client verified, answer anything else by f+1 nodes' agreement (docs/verified-reads.md)")
	fs.StringVar(&v.genesis, "trust-genesis", "", "with --verify: the genesis file you trust (its chain ID and validators)")
	fs.Int64Var(&v.trustHeight, "trust-height", 0, "with --verify: the height of a header you trust (with --trust-hash)")
	fs.StringVar(&v.trustHash, "trust-hash", "", "with --verify: the hash (hex) of the header at --trust-height")
	fs.StringSliceVar(&v.nodes, "nodes", nil, "with --verify: other nodes' RPC addresses: the light client's witnesses, and the nodes asked for f+1 agreement")
	fs.Int64Var(&v.maxLag, "max-lag", client.DefaultMaxLag, "with --verify: refuse a proven answer more than this many blocks behind the newest verified header")
	fs.Int64Var(&v.atHeight, "at-height", 0, "with --verify: prove the rows as block H left them, against its AppHash (a read by primary key only; the node's row history must hold H)")
}

// root is the trust root the flags name.
func (v *verifyFlags) root(ctx context.Context, c *client.Client) (lightverify.Root, error) {
	switch {
	case v.genesis != "" && (v.trustHeight != 0 || v.trustHash != ""):
		return lightverify.Root{}, errors.New("--verify: give either --trust-genesis or --trust-height and --trust-hash, not both")
	case v.genesis != "":
		return lightverify.FromGenesis(v.genesis)
	case v.trustHeight <= 0 || v.trustHash == "":
		return lightverify.Root{}, errors.New("--verify needs a trust root: --trust-genesis FILE, or --trust-height N and --trust-hash HEX")
	}
	hash, err := hex.DecodeString(v.trustHash)
	if err != nil {
		return lightverify.Root{}, fmt.Errorf("--trust-hash %q: %w", v.trustHash, err)
	}
	// The chain ID is the node's word; a wrong one fails the trusted
	// header's hash.
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return lightverify.Root{}, err
	}
	return lightverify.FromHeader(chainID, v.trustHeight, hash), nil
}

// runVerified answers sql with the guarantee it can have: a proof for a
// read by primary key, f+1 agreement otherwise; never one node's word.
func runVerified(ctx context.Context, f *queryFlags, c *client.Client, sql string, args []any) error {
	vf := &f.verify
	if f.minHeight != 0 {
		return errors.New("--verify reads the latest block (or --at-height's): --min-height does not apply")
	}
	if vf.atHeight < 0 {
		return fmt.Errorf("--at-height %d: a height is positive", vf.atHeight)
	}
	root, err := vf.root(ctx, c)
	if err != nil {
		return err
	}
	v, err := lightverify.New(ctx, root, c.URL(), vf.nodes)
	if err != nil {
		return fmt.Errorf("--verify: %w", err)
	}
	if vf.keyRead != nil {
		if kr, ok := vf.keyRead(sql); ok {
			res, err := c.VerifiedKeyRead(ctx, v, client.VerifyOptions{MaxLag: vf.maxLag, Height: vf.atHeight}, kr, args)
			if err == nil {
				return printVerified(f.output, res)
			}
			if !errors.Is(err, client.ErrNotKeyRead) {
				return fmt.Errorf("verification failed: %w", err)
			}
			// Say why a read that looks like one by key gets no proof (a
			// column that is not the key, or the node could not name the
			// table's key): the answer below is still verified.
			fmt.Fprintf(os.Stderr, "note: no proof for this read (%v): answered by f+1 agreement\n", err)
		}
	}
	if vf.atHeight != 0 {
		return fmt.Errorf("--at-height %d: only a read by primary key (every key column =, or a one-column key's range) is proven at a past height; this statement would need f+1 agreement, which reads the latest state", vf.atHeight)
	}
	return runAgreed(ctx, f, v, c, sql, args)
}

// runAgreed answers sql by f+1 agreement of the node and --nodes.
func runAgreed(ctx context.Context, f *queryFlags, v *lightverify.Verifier, c *client.Client, sql string, args []any) error {
	n, err := v.Validators(ctx)
	if err != nil {
		return fmt.Errorf("--verify: %w", err)
	}
	clients := []*client.Client{c}
	for _, url := range f.verify.nodes {
		wc, err := newClient(url, nil)
		if err != nil {
			return err
		}
		clients = append(clients, wc)
	}
	res, err := client.AgreedQuery(ctx, clients, client.FaultTolerance(n)+1, sql, args...)
	if err != nil {
		return fmt.Errorf("verification failed: %w", err)
	}
	if f.output == "json" {
		return encodeJSONOut(struct {
			*client.AgreedRows
			Why string `json:"guarantee_why"`
		}{res, res.Why()})
	}
	printTable(res.Columns, res.Rows)
	fmt.Printf("(%d rows at height %d)\nguarantee: %s\n", len(res.Rows), res.Height, res.Why())
	return nil
}

// printVerified prints a proven answer and its guarantee line.
func printVerified(output string, res *client.VerifiedRows) error {
	rows := make([][]any, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = make([]any, len(r))
		for j, val := range r {
			rows[i][j] = cellOf(val)
		}
	}
	if output == "json" {
		return encodeJSONOut(map[string]any{"height": res.Height, "columns": res.Columns, "rows": rows,
			"guarantee": res.Guarantee, "guarantee_why": res.Why, "node": res.Node})
	}
	printTable(res.Columns, rows)
	fmt.Printf("(%d rows at height %d)\nguarantee: %s: %s\n", len(rows), res.Height, res.Guarantee, res.Why)
	return nil
}

// cellOf is a verified value as query prints it.
func cellOf(v rowcanon.Value) any {
	switch v.Kind() {
	case rowcanon.KindNull:
		return nil
	case rowcanon.KindText, rowcanon.KindJSON:
		return v.AsString()
	case rowcanon.KindInt:
		return v.AsInt()
	case rowcanon.KindBool:
		return v.AsBool()
	}
	return strings.Trim(v.String(), `"`)
}

func encodeJSONOut(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
