package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/protocol"
)

// gitCommit is the commit `make build` passes to the linker
// (-X main.gitCommit=…), for builds without VCS information.
var gitCommit string

// modCometBFT is the module whose RPC client the commands use.
const modCometBFT = "github.com/cometbft/cometbft"

// clientVersion is what `relchain-client version` reports: relchain
// version's fields, less the databases it does not link.
type clientVersion struct {
	Relchain   string `json:"relchain"`
	Commit     string `json:"commit"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	Go         string `json:"go"`
	CometBFT   string `json:"cometbft"`
	// Protocol lists the protocol versions of this release
	// (docs/upgrades.md).
	Protocol []uint64 `json:"protocol_versions"`
}

// versionInfo reads the build information the Go toolchain embedded.
func versionInfo() clientVersion {
	b := clientcmd.ReadBuild(gitCommit)
	v := clientVersion{Relchain: clientcmd.Release, Commit: b.Commit, CommitTime: b.CommitTime, Modified: b.Modified,
		Go: b.Go, CometBFT: "unknown", Protocol: protocol.Versions()}
	if m := b.Modules[modCometBFT]; m != "" {
		v.CometBFT = m
	}
	return v
}

func (v clientVersion) String() string {
	commit := clientcmd.Build{Commit: v.Commit, CommitTime: v.CommitTime, Modified: v.Modified}.CommitText()
	return fmt.Sprintf("relchain-client %s\nprotocol: versions %v\ncommit:   %s\ngo:       %s\ncometbft: %s\n",
		v.Relchain, v.Protocol, commit, v.Go, v.CometBFT)
}

func versionCmd() *cobra.Command {
	return clientcmd.VersionCommand("Print relchain-client's release, the protocol versions of that release, its commit and CometBFT's version",
		func() fmt.Stringer { return versionInfo() })
}
