package netctl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/relchain/relchain/dialect"
)

// DSNTemplates reads the --dsn-template values of relchain testnet,
// localnet and relchain-bench: one DSN for every node on
// a database server, or ENGINE=DSN, one per server engine of a network
// over several engines (backends), which gives each validator on ENGINE
// its engine's template (Options.DSNTemplates).
func DSNTemplates(values, backends []string) (string, []string, error) {
	byEngine := make(map[string]string)
	plain := ""
	for _, v := range values {
		engine, dsn, tagged := strings.Cut(v, "=")
		if !tagged || !slices.Contains(dialect.Servers(), engine) {
			if plain != "" {
				return "", nil, fmt.Errorf("--dsn-template given twice without ENGINE=: give one DSN, or one ENGINE=DSN per server engine (%s)", strings.Join(dialect.Servers(), ", "))
			}
			plain = v
			continue
		}
		if _, dup := byEngine[engine]; dup {
			return "", nil, fmt.Errorf("--dsn-template %s= given twice", engine)
		}
		byEngine[engine] = dsn
	}
	if len(byEngine) == 0 {
		return plain, nil, nil
	}
	if plain != "" {
		return "", nil, fmt.Errorf("--dsn-template: give one DSN, or ENGINE=DSN for each server engine, not both")
	}
	per := make([]string, len(backends))
	for i, b := range backends {
		per[i] = byEngine[b]
	}
	for engine := range byEngine {
		if !slices.Contains(backends, engine) {
			return "", nil, fmt.Errorf("--dsn-template %s=: no validator of --backends runs %s", engine, engine)
		}
	}
	if len(backends) == 0 {
		return "", nil, fmt.Errorf("--dsn-template ENGINE=DSN is for a network over several engines (--backends); give --dsn-template DSN")
	}
	return "", per, nil
}
