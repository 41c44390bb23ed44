package postgres

import (
	"strings"

	"github.com/relchain/relchain/backend"
)

// Gate implements backend.Backend: PostgreSQL's gate (package pggate and
// the parser) judges the text alone, so its verdict does not depend on
// state. A grant's table name is kept as stored (an unquoted name is lower
// case, so "Accounts" names the quoted table "Accounts"), without the
// public schema's qualifier.
func (b *Backend) Gate() backend.Gate { return b.gate }

func (b *Backend) newGate() *backend.TextGate {
	return &backend.TextGate{Verdict: b.analyze, InBlock: b.analyzeInBlock,
		Fold: func(name string) string { return strings.TrimPrefix(name, "public.") },
		Warm: func(sql string) { b.syntax.lookup(sql) }}
}

// Capabilities implements backend.Backend: PostgreSQL rolls DDL back with
// the block.
func (b *Backend) Capabilities() backend.Capabilities {
	return backend.Capabilities{TransactionalDDL: true}
}
