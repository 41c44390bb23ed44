package clientcmd

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/txn"
)

// ResolveKey turns a hex public key, the name of a key in HOME/keys or a
// key file into a public key.
func ResolveKey(home, s string) (ed25519.PublicKey, error) {
	if b, err := hex.DecodeString(s); err == nil && len(b) == ed25519.PublicKeySize {
		return ed25519.PublicKey(b), nil
	}
	dir := keyring.Dir(filepath.Join(home, "keys"))
	if !dir.Has(s) {
		if _, err := os.Stat(s); err == nil {
			k, err := keyring.LoadFile(s)
			return k.Public(), err
		}
	}
	k, err := dir.Load(s)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a hex ed25519 public key (64 hex digits), a key in %s nor a key file: %w", s, dir, err)
	}
	return k.Public(), nil
}

func (e *Env) adminCmd() *cobra.Command {
	var t *target
	var sg signer
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Grant, revoke and show write permissions; change the validator set; schedule protocol upgrades (admin keys named in the genesis)",
		Long: `Permissions are on chain. The genesis app_state names admin keys ("admins");
admins may change the schema and grant or revoke write access, per client key
and table ("*" for every table), with system transactions. A key that holds
no grant may send no transaction; reads through 'relchain query' are open to
anyone who can reach a node. A genesis without admins is an open network.`,
	}
	t = e.withTarget(cmd, true)
	sg.register(cmd.PersistentFlags(), "admin key")
	cmd.PersistentFlags().DurationVar(&timeout, "timeout", 60*time.Second, "give up after this long")

	change := func(use, short string, stmt func(ed25519.PublicKey, string) txn.Statement) *cobra.Command {
		return &cobra.Command{
			Use:   use + " KEY TABLE...",
			Short: short,
			Long:  short + ".\n\nKEY is a hex public key or the name of a key in HOME/keys; TABLE is a table name, or '*' for every table.\nAll changes go in one transaction.",
			Args:  cobra.MinimumNArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				grantee, err := ResolveKey(sg.home, args[0])
				if err != nil {
					return err
				}
				var stmts []txn.Statement
				for _, t := range args[1:] {
					stmts = append(stmts, stmt(grantee, t))
				}
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				c, err := sg.client(ctx, t)
				if err != nil {
					return err
				}
				res, err := submit(ctx, c, client.ModeCommit, "text", c.URL(), stmts...)
				if err != nil {
					return err
				}
				if !res.OK() {
					return fmt.Errorf("%s: %s: %s", use, api.CodeName(res.Code), res.Error)
				}
				fmt.Printf("%s %s on %s: committed at height %d (tx %s)\n", use, hex.EncodeToString(grantee), strings.Join(args[1:], ", "), res.Height, res.Hash)
				return nil
			},
		}
	}
	var output string
	show := &cobra.Command{
		Use:   "show [KEY]",
		Short: "Show the admins and the grants (of every key, or of KEY)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			c, err := t.client(ctx)
			if err != nil {
				return err
			}
			g, err := c.Grants(ctx)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				k, err := ResolveKey(sg.home, args[0])
				if err != nil {
					return err
				}
				h := hex.EncodeToString(k)
				g.Grants = map[string][]string{h: g.Grants[h]}
			}
			if output == "json" {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(g)
			}
			fmt.Printf("height: %d\n", g.Height)
			if g.Open {
				fmt.Println("open network: the genesis names no admin; every key may change the schema and write every table")
				return nil
			}
			fmt.Println("admins:")
			for _, a := range g.Admins {
				fmt.Printf("  %s\n", a)
			}
			keys := make([]string, 0, len(g.Grants))
			for k := range g.Grants {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			fmt.Println("grants (write):")
			for _, k := range keys {
				ts := g.Grants[k]
				if len(ts) == 0 {
					ts = []string{"(none)"}
				}
				fmt.Printf("  %s  %s\n", k, strings.Join(ts, ", "))
			}
			return nil
		},
	}
	show.Flags().StringVar(&output, "output", "text", "text or json")
	cmd.AddCommand(
		change("grant", "Let KEY write the TABLEs", client.GrantWrite),
		change("revoke", "Take KEY's write access to the TABLEs back ('*' revokes every grant)", client.RevokeWrite),
		show,
		validatorCmd(t, &sg, &timeout),
		upgradeCmd(t, &sg, &timeout),
	)
	return cmd
}
