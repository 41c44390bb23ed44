package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/txn"
)

// parseArg turns a command-line argument into a typed argument. A prefix
// forces the type (int:, float:, text:, bytes: with hex, bool:, null);
// otherwise integers, decimals, true/false and NULL are recognised and
// anything else is text.
func parseArg(s string) (txn.Arg, error) {
	if kind, v, ok := strings.Cut(s, ":"); ok {
		switch kind {
		case "int":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: not a 64-bit integer", s)
			}
			return txn.Int(n), nil
		case "float":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: not a number", s)
			}
			return txn.Float(f), nil
		case "text":
			return txn.Text(v), nil
		case "bytes":
			b, err := hex.DecodeString(v)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: bytes must be hex", s)
			}
			return txn.Bytes(b), nil
		case "bool":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: not true or false", s)
			}
			return txn.Bool(b), nil
		}
	}
	if strings.EqualFold(s, "null") {
		return txn.Null(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return txn.Int(n), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXnN") {
		return txn.Float(f), nil
	}
	if s == "true" || s == "false" {
		return txn.Bool(s == "true"), nil
	}
	return txn.Text(s), nil
}

func parseArgs(ss []string) ([]txn.Arg, error) {
	var out []txn.Arg
	for _, s := range ss {
		a, err := parseArg(s)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// checkOutput refuses an --output value that is not one of allowed.
func checkOutput(output string, allowed ...string) error {
	for _, a := range allowed {
		if output == a {
			return nil
		}
	}
	return fmt.Errorf("unknown --output %q: use %s", output, strings.Join(allowed, " or "))
}

// signingClient is a client of nodeURL that signs with the key of --key,
// or the home's default key.
func signingClient(home, keyFile, nodeURL string) (*client.Client, error) {
	key, err := loadKey(home, keyFile)
	if err != nil {
		return nil, err
	}
	return newClient(nodeURL, key.Private)
}

func loadKey(home, keyFile string) (keyring.Key, error) {
	if keyFile != "" {
		return keyring.LoadFile(keyFile)
	}
	return keyring.Dir(filepath.Join(home, "keys")).LoadOrCreateDefault()
}

const argHelp = `Arguments fill the statement's placeholders ($1.. on PostgreSQL, ?1.. or ? on
SQLite) in order. Integers, decimals, true/false and NULL are recognised; a
prefix forces a type: int:, float:, text:, bytes:<hex>, bool:.`

func execCmd() *cobra.Command {
	var nodeURL, mode, keyFile, output, home string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "exec SQL [ARG...]",
		Short: "Sign and submit one SQL statement as a bc-transaction",
		Long:  "Sign and submit one SQL statement as a bc-transaction.\n\n" + argHelp,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := client.ParseMode(mode)
			if err != nil {
				return err
			}
			if err := checkOutput(output, "text", "json"); err != nil {
				return err
			}
			targs, err := parseArgs(args[1:])
			if err != nil {
				return err
			}
			c, err := signingClient(home, keyFile, nodeURL)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			res, err := submit(ctx, c, m, output, nodeURL, txn.Statement{SQL: args[0], Args: targs})
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				_ = enc.Encode(res)
			} else {
				printResult(res, m)
			}
			if !res.OK() {
				return fmt.Errorf("transaction %s: %s", api.CodeName(res.Code), res.Error)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&nodeURL, "node", client.DefaultNode, "RPC address of a node")
	cmd.Flags().StringVar(&mode, "mode", "commit", "commit (wait for the block), sync (wait for CheckTx) or async (return at once)")
	cmd.Flags().StringVar(&keyFile, "key", "", "key file to sign with (default: HOME/keys/default.json, created on first use)")
	cmd.Flags().StringVar(&home, "home", defaultHome(), "relchain home holding keys/")
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 60*time.Second, "give up after this long")
	return cmd
}

func printResult(r *client.Result, m client.Mode) {
	fmt.Printf("tx:     %s\n", r.Hash)
	if m == client.ModeAsync {
		fmt.Println("status: submitted (async: the outcome is not known yet)")
		return
	}
	fmt.Printf("code:   %d (%s)\n", r.Code, api.CodeName(r.Code))
	if r.Error != "" {
		fmt.Printf("error:  %s\n", r.Error)
	}
	if r.Height > 0 {
		fmt.Printf("height: %d\n", r.Height)
	}
	for i, s := range r.Results {
		if len(r.Results) > 1 {
			fmt.Printf("statement %d:\n", i+1)
		}
		fmt.Printf("rows affected: %d\n", s.RowsAffected)
		if len(s.Columns) > 0 {
			printTable(s.Columns, s.Rows)
		}
	}
}

func printTable(cols []string, rows [][]any) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(cols, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = fmt.Sprint(v)
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	w.Flush()
}

func queryCmd() *cobra.Command {
	var nodeURL, output string
	var minHeight int64
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "query SQL [ARG...]",
		Short: "Run a read-only SQL statement on a node's committed state",
		Long:  "Run a read-only SQL statement on a node's committed state (no consensus).\n\n" + argHelp,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, "table", "json"); err != nil {
				return err
			}
			targs, err := parseArgs(args[1:])
			if err != nil {
				return err
			}
			vals := make([]any, len(targs))
			for i, a := range targs {
				if a.Kind == txn.KindBytes {
					return fmt.Errorf("argument %d: bytes arguments are not supported by query yet", i+1)
				}
				vals[i] = a.Value()
			}
			c, err := newClient(nodeURL, nil)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			res, err := c.Query(ctx, minHeight, args[0], vals...)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			printTable(res.Columns, res.Rows)
			fmt.Printf("(%d rows at height %d)\n", len(res.Rows), res.Height)
			return nil
		},
	}
	cmd.Flags().StringVar(&nodeURL, "node", client.DefaultNode, "RPC address of a node")
	cmd.Flags().Int64Var(&minHeight, "min-height", 0, "wait until the node has committed this height (read your writes)")
	cmd.Flags().StringVar(&output, "output", "table", "table or json")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "give up after this long")
	return cmd
}

func statusCmd() *cobra.Command {
	var nodeURL, output string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a node's height, AppHash, chain id, validators and backend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := newClient(nodeURL, nil)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st, err := c.Status(ctx)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			fmt.Printf("node:         %s (%s)\nchain id:     %s\nheight:       %d\napp hash:     %s\nbackend:      %s\nblock atomic: %v\ncatching up:  %v\nvalidators:   %d\n",
				st.Node, st.Moniker, st.ChainID, st.Height, st.AppHash, st.Backend, st.BlockAtomic, st.CatchingUp, len(st.Validators))
			for _, v := range st.Validators {
				fmt.Printf("  %s\n", v)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&nodeURL, "node", client.DefaultNode, "RPC address of a node")
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}

func keysCmd() *cobra.Command {
	var home string
	dir := func() keyring.Dir { return keyring.Dir(filepath.Join(home, "keys")) }
	cmd := &cobra.Command{Use: "keys", Short: "Manage client signing keys (HOME/keys)"}
	cmd.PersistentFlags().StringVar(&home, "home", defaultHome(), "relchain home holding keys/")
	cmd.AddCommand(&cobra.Command{
		Use: "add NAME", Short: "Create a new ed25519 key", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := dir().Add(args[0])
			if err != nil {
				return err
			}
			fmt.Printf("%s %s\n", k.Name, k.PublicHex())
			return nil
		},
	}, &cobra.Command{
		Use: "list", Short: "List keys", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keys, err := dir().List()
			if err != nil {
				return err
			}
			if len(keys) == 0 {
				fmt.Fprintf(os.Stderr, "no keys in %s; create one with `relchain keys add NAME`\n", dir())
			}
			for _, k := range keys {
				fmt.Printf("%s %s\n", k.Name, k.PublicHex())
			}
			return nil
		},
	}, &cobra.Command{
		Use: "show NAME", Short: "Show a key's public key", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := dir().Load(args[0])
			if err != nil {
				return err
			}
			fmt.Printf("name:       %s\npublic key: %s\nfile:       %s\n", k.Name, k.PublicHex(), filepath.Join(string(dir()), k.Name+".json"))
			return nil
		},
	})
	return cmd
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use: "version", Short: "Print the version", Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) { fmt.Println("relchain", appVersion()) },
	}
}
