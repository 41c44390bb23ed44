package mysql

import (
	"strings"

	"github.com/relchain/relchain/backend"
)

// Gate implements backend.Backend: MySQL's gate (package mysqlgate, the
// backend's backstop and the server's parser, cached by text) judges the
// text alone, so its verdict does not depend on state. A grant's table name
// is folded to lower case (the backend requires lower_case_table_names=1).
func (b *Backend) Gate() backend.Gate { return b.gate }

func (b *Backend) newGate() *backend.TextGate {
	if b.opts.pg {
		return &backend.TextGate{Verdict: b.pgVerdict, Fold: func(name string) string { return strings.TrimPrefix(name, "public.") }}
	}
	return &backend.TextGate{Verdict: b.analyze, Fold: strings.ToLower}
}

// Capabilities implements backend.Backend: MySQL and MariaDB commit DDL
// implicitly, so it cannot roll back with the block (see backend.Block).
func (b *Backend) Capabilities() backend.Capabilities {
	return backend.Capabilities{TransactionalDDL: false, SQLDialect: b.sqlDialect()}
}
