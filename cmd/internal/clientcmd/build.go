package clientcmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Release is relchain's release, as app.Version names it, for the binaries
// that do not link app (relchain-client); a test keeps the two equal.
const Release = "0.11.0"

// Build is what a binary's version command reports of its own build.
type Build struct {
	Commit     string
	CommitTime string
	Modified   bool
	Go         string
	// Modules maps each linked module's path to its version (its
	// replacement's, if replaced).
	Modules map[string]string
}

// ReadBuild reads the build information the Go toolchain embedded.
// linkerCommit is the commit `make build` passes to the linker (-X
// main.gitCommit=…), for builds without VCS information; a VCS revision
// the toolchain stamped wins.
func ReadBuild(linkerCommit string) Build {
	b := Build{Commit: "unknown (built without VCS information)", Go: runtime.Version(), Modules: map[string]string{}}
	if linkerCommit != "" {
		b.Commit = linkerCommit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.CommitTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		b.Modules[d.Path] = d.Version
	}
	return b
}

// CommitText is a build's commit as version commands print it: the
// revision, "(modified)" for a dirty tree, and the commit's time.
func (b Build) CommitText() string {
	s := b.Commit
	if b.Modified {
		s += " (modified)"
	}
	if b.CommitTime != "" {
		s += " " + b.CommitTime
	}
	return s
}

// VersionCommand is a binary's version command: --output text prints
// info()'s String, --output json its JSON.
func VersionCommand(short string, info func() fmt.Stringer) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use: "version", Short: short, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := CheckOutput(output, "text", "json"); err != nil {
				return err
			}
			v := info()
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			_, err := fmt.Fprint(cmd.OutOrStdout(), v)
			return err
		},
	}
	cmd.Flags().StringVar(&output, "output", "text", "text or json")
	return cmd
}
