package clientcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/keyring"
)

func keysCmd() *cobra.Command {
	var home string
	dir := func() keyring.Dir { return keyring.Dir(filepath.Join(home, "keys")) }
	cmd := &cobra.Command{Use: "keys", Short: "Manage client signing keys (HOME/keys)",
		Long: `Client signing keys live in HOME/keys (~/.relchain/keys; $RELCHAIN_HOME or
--home moves it), one file per key. Every command that signs takes --key NAME
(a key here) or --key FILE; admin grant and revoke take a key name, a key
file or a hex public key.`}
	cmd.PersistentFlags().StringVar(&home, "home", DefaultHome(), "relchain home holding keys/")
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
			fmt.Printf("name:       %s\npublic key: %s\nfile:       %s\n", k.Name, k.PublicHex(), dir().Path(k.Name))
			return nil
		},
	}, keysImportCmd(dir), keysExportCmd(dir), &cobra.Command{
		Use: "delete NAME", Short: "Delete a key (without asking: keep an export if you may need it)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := dir().Delete(args[0]); err != nil {
				return err
			}
			fmt.Printf("deleted key %s\n", args[0])
			return nil
		},
	})
	return cmd
}

func keysImportCmd(dir func() keyring.Dir) *cobra.Command {
	return &cobra.Command{
		Use:   "import NAME FILE",
		Short: "Store a private key under NAME: a relchain key file, or hex of an ed25519 private key or seed (FILE - reads stdin)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var b []byte
			var err error
			if args[1] == "-" {
				b, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<16))
			} else {
				b, err = os.ReadFile(args[1])
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", args[1], err)
			}
			priv, err := keyring.ParsePrivate(b)
			if err != nil {
				return fmt.Errorf("%s: %w", args[1], err)
			}
			k, err := dir().Import(args[0], priv)
			if err != nil {
				return err
			}
			fmt.Printf("%s %s\n", k.Name, k.PublicHex())
			return nil
		},
	}
}

func keysExportCmd(dir func() keyring.Dir) *cobra.Command {
	var private bool
	var out string
	cmd := &cobra.Command{
		Use:   "export NAME",
		Short: "Print a key's public key; with --private, its private key file (to --out FILE or stdout)",
		Long: `Export prints NAME's public key (what an admin needs to grant it). The private
key file, which anyone can sign as NAME with, is written only with --private:
to --out FILE (created with mode 0600; an existing file is not overwritten) or
to standard output. keys import NAME FILE reads it back.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := dir().Load(args[0])
			if err != nil {
				return err
			}
			if !private {
				if out != "" {
					return errors.New("--out writes the private key file: add --private to say you mean it")
				}
				fmt.Printf("%s %s\n", k.Name, k.PublicHex())
				return nil
			}
			if out == "" {
				_, err := os.Stdout.Write(keyring.Encode(k))
				return err
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return fmt.Errorf("export key %s: %w", k.Name, err)
			}
			if _, err := f.Write(keyring.Encode(k)); err != nil {
				f.Close()
				return fmt.Errorf("export key %s: %w", k.Name, err)
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("export key %s: %w", k.Name, err)
			}
			fmt.Fprintf(os.Stderr, "wrote the private key of %s to %s\n", k.Name, out)
			return nil
		},
	}
	cmd.Flags().BoolVar(&private, "private", false, "export the private key file (anyone holding it can sign as this key)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "with --private: write the key file here instead of standard output")
	return cmd
}
