package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/relchain/relchain/ops"
)

func backupCmd() *cobra.Command {
	var home, output string
	var jsonOut, portable bool
	cmd := &cobra.Command{
		Use:   "backup",
		Short: "Write a verified backup of a node's database (the node may be running)",
		Long: `Backup takes a checkpoint of the node's database now — one consistent
snapshot of the committed state, the same file the scheduled checkpoints,
recover and state sync use (SQLite: VACUUM INTO; PostgreSQL: pg_dump of an
exported snapshot) — while the node may go on committing blocks. It restores
the checkpoint aside and verifies that its rows reproduce the AppHash it
records, then writes one file: a tar with manifest.json (chain ID, backend,
height, AppHash, the checkpoint's size and SHA-256) and the checkpoint.
The file appears under its name only when complete. Restore it with
relchain restore. --portable (a PostgreSQL or MariaDB validator of a network
over several engines) writes the checkpoint as a SQLite database speaking
PostgreSQL's SQL, verified to give the same AppHash, which a node of any
engine of the network restores.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == "" {
				return fmt.Errorf("--output FILE is required")
			}
			m, err := ops.Backup(context.Background(), home, output, ops.BackupOptions{Progress: progress, Portable: portable})
			if err != nil {
				return err
			}
			if jsonOut {
				b, _ := json.MarshalIndent(m, "", "  ")
				fmt.Println(string(b))
				return nil
			}
			fmt.Printf("backed up height %d of chain %s (AppHash %X, %s, %d bytes) to %s\n",
				m.Height, m.ChainID, mustHex(m.AppHash), m.Backend, m.Size, output)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory (the node may be running)")
	cmd.Flags().StringVar(&output, "output", "", "the backup file to write")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the manifest as JSON")
	cmd.Flags().BoolVar(&portable, "portable", false, "a validator of a network over several engines: write the checkpoint as SQLite speaking PostgreSQL's SQL, which a node of any of its engines restores")
	return cmd
}

func checkpointCmd() *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:   "checkpoint",
		Short: "Take a checkpoint of a node's database now (the node may be running)",
		Long: `Checkpoint takes one checkpoint of the node's database now, into its
checkpoint directory (HOME/data/checkpoints), as the scheduled ones
([checkpoint] every) are taken: one consistent snapshot of the committed
state, while the node goes on committing blocks. Older checkpoints are pruned
as [checkpoint] keep says. recover and state sync use it like any other.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stop := spin("checkpoint")
			cp, err := ops.TakeCheckpoint(context.Background(), home)
			stop()
			if err != nil {
				return err
			}
			fmt.Printf("checkpoint at height %d: %s\n", cp.Height, cp.Path)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory (the node may be running)")
	return cmd
}

func mustHex(s string) []byte {
	var b []byte
	_, _ = fmt.Sscanf(s, "%x", &b)
	return b
}

// stderrIsTerminal says whether progress may be drawn: only on a terminal.
func stderrIsTerminal() bool { return term.IsTerminal(int(os.Stderr.Fd())) }

// progress draws a bar of bytes on stderr when it is a terminal.
func progress(what string, total int64) (io.Writer, func()) {
	if !stderrIsTerminal() {
		return io.Discard, func() {}
	}
	if total <= 0 {
		total = -1
	}
	bar := progressbar.NewOptions64(total, progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(what), progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
	return bar, func() { _ = bar.Finish() }
}

// spin shows a spinner on stderr, when it is a terminal, until stop is
// called: for long work whose size is unknown (verify, recover).
func spin(what string) (stop func()) {
	if !stderrIsTerminal() {
		return func() {}
	}
	bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription(what),
		progressbar.OptionSpinnerType(14), progressbar.OptionClearOnFinish())
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = bar.Add(1)
			}
		}
	}()
	return func() {
		close(done)
		_ = bar.Finish()
	}
}
