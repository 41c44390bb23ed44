package clientcmd

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// resolveValidatorKey turns a validator's consensus public key given as 64
// hex digits, as base64 (the form in priv_validator_key.json and in
// CometBFT's /validators), or as the path of a priv_validator_key.json or
// of a node home into the key.
func resolveValidatorKey(s string) (ed25519.PublicKey, error) {
	if b, err := hex.DecodeString(s); err == nil && len(b) == ed25519.PublicKeySize {
		return ed25519.PublicKey(b), nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == ed25519.PublicKeySize {
		return ed25519.PublicKey(b), nil
	}
	path := s
	if fi, err := os.Stat(s); err == nil && fi.IsDir() {
		path = filepath.Join(s, "config", "priv_validator_key.json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%q is neither an ed25519 public key (64 hex digits or base64) nor a readable priv_validator_key.json or node home: %w", s, err)
	}
	var f struct {
		PubKey struct {
			Type  string `json:"type"`
			Value []byte `json:"value"`
		} `json:"pub_key"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("read validator key %s: %w", path, err)
	}
	if f.PubKey.Type != "tendermint/PubKeyEd25519" || len(f.PubKey.Value) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("read validator key %s: pub_key is not an ed25519 key (type %q)", path, f.PubKey.Type)
	}
	return ed25519.PublicKey(f.PubKey.Value), nil
}

// parsePower reads a voting power: a positive integer.
func parsePower(s string) (int64, error) {
	p, err := strconv.ParseInt(s, 10, 64)
	if err != nil || p <= 0 {
		return 0, fmt.Errorf("power %q is not a positive integer", s)
	}
	return p, nil
}

// validatorCmd is `relchain admin validator`: membership changes through
// the chain (admin keys only).
func validatorCmd(t *target, sg *signer, timeout *time.Duration) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validator",
		Short: "Add a validator, change its voting power, remove it (admin keys only)",
		Long: `The validator set is on chain. An admin's system transaction adds a validator
(its CometBFT consensus ed25519 public key and voting power), changes its power or
removes it; the change takes effect two blocks after the one that commits it.

KEY is the validator's consensus public key: 64 hex digits, base64 (as in
priv_validator_key.json and CometBFT's /validators), the path of a
priv_validator_key.json, or a node home holding config/priv_validator_key.json.

A change that would lower the number of validator faults the set tolerates (the
largest k such that the k most powerful validators hold less than one third of the
power) is refused unless --force is given. Removing the last validator is always
refused.`,
	}
	var force bool
	run := func(use string, nargs int, stmt func(ed25519.PublicKey, []string) (txn.Statement, error)) *cobra.Command {
		c := &cobra.Command{
			Use:  use,
			Args: cobra.ExactArgs(nargs),
			RunE: func(cmd *cobra.Command, args []string) error {
				key, err := resolveValidatorKey(args[0])
				if err != nil {
					return err
				}
				st, err := stmt(key, args[1:])
				if err != nil {
					return err
				}
				return submitValidatorChange(t, sg, *timeout, cmd.Name(), key, st)
			},
		}
		c.Flags().BoolVar(&force, "force", false, "apply even if the set would tolerate fewer faults than before")
		return c
	}
	add := run("add KEY POWER", 2, func(k ed25519.PublicKey, a []string) (txn.Statement, error) {
		p, err := parsePower(a[0])
		return client.AddValidator(k, p, force), err
	})
	add.Short = "Add the validator KEY with voting power POWER"
	power := run("power KEY POWER", 2, func(k ed25519.PublicKey, a []string) (txn.Statement, error) {
		p, err := parsePower(a[0])
		return client.SetValidatorPower(k, p, force), err
	})
	power.Short = "Change validator KEY's voting power to POWER"
	remove := run("remove KEY", 1, func(k ed25519.PublicKey, _ []string) (txn.Statement, error) {
		return client.RemoveValidator(k, force), nil
	})
	remove.Short = "Remove validator KEY from the set"
	cmd.AddCommand(add, power, remove, showValidatorsCmd(t, timeout))
	return cmd
}

// showValidatorsCmd prints CometBFT's current validator set (the node's
// /validators): address, consensus public key and voting power.
func showValidatorsCmd(t *target, timeout *time.Duration) *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Show the current validator set (address, consensus key in hex, voting power)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(context.Background(), *timeout)
			defer cancel()
			c, err := t.client(ctx)
			if err != nil {
				return err
			}
			perPage := 100
			for page := 1; ; page++ {
				vs, err := c.RPC().Validators(ctx, nil, &page, &perPage)
				if err != nil {
					return fmt.Errorf("validators: %w", err)
				}
				if page == 1 {
					fmt.Printf("height: %d\n", vs.BlockHeight)
				}
				for _, v := range vs.Validators {
					fmt.Printf("  %s  %s  power=%d\n", v.Address, strings.ToUpper(hex.EncodeToString(v.PubKey.Bytes())), v.VotingPower)
				}
				if page*perPage >= vs.Total {
					return nil
				}
			}
		},
	}
}

// submitValidatorChange signs st with the admin key and waits for its
// block.
func submitValidatorChange(t *target, sg *signer, timeout time.Duration, what string, key ed25519.PublicKey, st txn.Statement) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, _, err := submitAdmin(ctx, t, sg, "validator "+what, st)
	if err != nil {
		return err
	}
	fmt.Printf("validator %s %s: committed at height %d (tx %s); CometBFT applies it at height %d\n",
		what, strings.ToUpper(hex.EncodeToString(key)), res.Height, res.Hash, res.Height+2)
	return nil
}

// submitAdmin signs st with the admin key (sg), sends it to t's node and
// waits for its block; a refused or failed statement is an error named by
// what. It returns the result and the client it used.
func submitAdmin(ctx context.Context, t *target, sg *signer, what string, st txn.Statement) (*client.Result, *client.Client, error) {
	c, err := sg.client(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	res, err := submit(ctx, c, client.ModeCommit, "text", c.URL(), st)
	if err != nil {
		return nil, nil, err
	}
	if !res.OK() {
		return nil, nil, fmt.Errorf("%s: %s: %s", what, api.CodeName(res.Code), res.Error)
	}
	return res, c, nil
}
