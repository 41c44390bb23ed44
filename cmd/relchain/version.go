package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/protocol"
)

// buildVersion is what `relchain version` reports.
type buildVersion struct {
	Relchain   string            `json:"relchain"`
	Commit     string            `json:"commit"`
	CommitTime string            `json:"commit_time,omitempty"`
	Modified   bool              `json:"modified,omitempty"`
	Go         string            `json:"go"`
	CometBFT   string            `json:"cometbft"`
	SQLite     string            `json:"sqlite"`
	Parsers    map[string]string `json:"parsers"`
	// Protocol lists the protocol versions this binary can run
	// (docs/upgrades.md).
	Protocol []uint64 `json:"protocol_versions"`
}

// Modules whose versions `relchain version` names.
const (
	modCometBFT   = "github.com/cometbft/cometbft"
	modSQLiteWasm = "github.com/ncruces/go-sqlite3-wasm/v6"
	modSQLite     = "github.com/ncruces/go-sqlite3"
	modPGQuery    = "github.com/pganalyze/pg_query_go/v6"
	modVitess     = "github.com/dolthub/vitess"
)

// gitCommit is the commit `make build` passes to the linker
// (-X main.gitCommit=…), for builds without VCS information.
var gitCommit string

// versionInfo reads the build information the Go toolchain embedded.
func versionInfo() buildVersion {
	b := clientcmd.ReadBuild(gitCommit)
	v := buildVersion{Relchain: appVersion(), Commit: b.Commit, CommitTime: b.CommitTime, Modified: b.Modified, Go: b.Go,
		CometBFT: "unknown", SQLite: "unknown", Parsers: map[string]string{}, Protocol: protocol.Versions()}
	mods := b.Modules
	if m := mods[modCometBFT]; m != "" {
		v.CometBFT = m
	}
	if m := mods[modSQLiteWasm]; m != "" {
		v.SQLite = sqliteVersion(m) + " (" + modSQLite + " " + mods[modSQLite] + ")"
	}
	v.Parsers["postgresql (pg_query_go)"] = mods[modPGQuery]
	v.Parsers["mysql (vitess)"] = mods[modVitess]
	return v
}

// sqliteVersion decodes the SQLite release go-sqlite3-wasm's module
// version encodes in its minor and patch numbers: v6.3.35304 is SQLite
// 3.53.4 (libversion_number 3053004).
func sqliteVersion(mod string) string {
	parts := strings.Split(strings.TrimPrefix(mod, "v"), ".")
	if len(parts) == 3 {
		if n, err := strconv.Atoi(parts[2]); err == nil && n >= 30000 && n < 40000 {
			return fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100)
		}
	}
	return "unknown (wasm module " + mod + ")"
}

func (v buildVersion) String() string {
	commit := clientcmd.Build{Commit: v.Commit, CommitTime: v.CommitTime, Modified: v.Modified}.CommitText()
	return fmt.Sprintf("relchain %s\nprotocol: versions %v\ncommit:   %s\ngo:       %s\ncometbft: %s\nsqlite:   %s\nparsers:  postgresql pg_query_go %s, mysql vitess %s\n",
		v.Relchain, v.Protocol, commit, v.Go, v.CometBFT, v.SQLite, v.Parsers["postgresql (pg_query_go)"], v.Parsers["mysql (vitess)"])
}

func versionCmd() *cobra.Command {
	return clientcmd.VersionCommand("Print relchain's version, the protocol versions it can run, its commit and the versions of CometBFT, SQLite and the SQL parsers",
		func() fmt.Stringer { return versionInfo() })
}
