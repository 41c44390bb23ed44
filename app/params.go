package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/protocol"
)

// Params are the network-wide execution settings. They come from the
// genesis file's app_state so that every validator uses the same values:
// anything that changes how a block executes belongs here, never in a
// node's own configuration.
type Params struct {
	// BlockAtomic reproduces the paper's behaviour: when any bc-transaction
	// of a block fails, the whole block's writes are rolled back. Off by
	// default: a failing bc-transaction is rolled back alone.
	BlockAtomic bool `json:"block_atomic"`
	// MaxTxBytes bounds an encoded envelope.
	MaxTxBytes int `json:"max_tx_bytes"`
	// MaxStatements bounds the statements of one bc-transaction.
	MaxStatements int `json:"max_statements"`
	// Backend is the SQL dialect every validator must run ("sqlite",
	// "postgres", "mysql"). Results and digests are only comparable within one.
	Backend string `json:"backend"`
	// Admins are the hex ed25519 public keys that may run DDL and grant
	// write access (see perm.go). None: an open network where every key may
	// do everything.
	Admins []string `json:"admins,omitempty"`
	// DBProfile overrides values of the backend's server profile
	// (backend.Profile: the database server settings relchain cannot pin
	// per session, such as PostgreSQL's max_stack_depth or MariaDB's
	// innodb_page_size), which every validator's server must match. Absent
	// or empty: the backend's fixed default profile. A name the backend's
	// profile does not have is refused when the node starts.
	DBProfile map[string]string `json:"db_profile,omitempty"`
	// SQLDialect is the SQL the network speaks (docs/dialects.md): ""
	// (absent) is the storage's native dialect, exactly as before the
	// field existed; "postgres" is PostgreSQL's SQL, native on PostgreSQL
	// and translated on SQLite. Fixed at genesis: results and digests
	// depend on it.
	SQLDialect string `json:"sql_dialect,omitempty"`
	// SQLDialectVersion is the version of the translation rules a
	// translated dialect runs (PostgreSQL's SQL on SQLite:
	// pgdialect.Version); 0 for a native one. A node whose binary
	// implements another version refuses to start.
	SQLDialectVersion int `json:"sql_dialect_version,omitempty"`
	// ProtocolVersion is the protocol version of the chain's first block
	// (package protocol): 0 (absent) is version 1, as every chain began
	// before the field existed. relchain init, testnet and localnet
	// record protocol.DefaultGenesis unless told otherwise; version 5
	// (canonical) needs PostgreSQL's SQL (checkCanonical).
	ProtocolVersion uint64 `json:"protocol_version,omitempty"`
}

// GenesisProtocol is the protocol version the chain's first block runs.
func (p Params) GenesisProtocol() uint64 {
	if p.ProtocolVersion == 0 {
		return protocol.Genesis
	}
	return p.ProtocolVersion
}

// Equal reports whether two parameter sets are the same.
func (p Params) Equal(q Params) bool {
	return p.BlockAtomic == q.BlockAtomic && p.MaxTxBytes == q.MaxTxBytes && p.MaxStatements == q.MaxStatements &&
		p.Backend == q.Backend && slices.Equal(p.Admins, q.Admins) && maps.Equal(p.DBProfile, q.DBProfile) &&
		p.SQLDialect == q.SQLDialect && p.SQLDialectVersion == q.SQLDialectVersion && p.GenesisProtocol() == q.GenesisProtocol()
}

// DefaultParams are used for fields the genesis app_state leaves out.
func DefaultParams() Params {
	return Params{MaxTxBytes: 1 << 20, MaxStatements: 256, Backend: "sqlite"}
}

// ParseParams reads the genesis app_state. Empty input gives the defaults;
// unknown fields are an error so that a typo cannot silently change
// execution on some nodes only.
func ParseParams(appState []byte) (Params, error) {
	p := DefaultParams()
	if len(appState) == 0 || string(appState) == "null" {
		return p, nil
	}
	var raw struct {
		BlockAtomic *bool             `json:"block_atomic"`
		MaxTxBytes  *int              `json:"max_tx_bytes"`
		MaxStmts    *int              `json:"max_statements"`
		Backend     *string           `json:"backend"`
		Admins      []string          `json:"admins"`
		DBProfile   map[string]string `json:"db_profile"`
		SQLDialect  *string           `json:"sql_dialect"`
		SQLVersion  *int              `json:"sql_dialect_version"`
		Protocol    *uint64           `json:"protocol_version"`
	}
	dec := json.NewDecoder(bytes.NewReader(appState))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return p, fmt.Errorf("genesis app_state: %w", err)
	}
	if raw.BlockAtomic != nil {
		p.BlockAtomic = *raw.BlockAtomic
	}
	if raw.MaxTxBytes != nil {
		if *raw.MaxTxBytes <= 0 {
			return p, fmt.Errorf("genesis app_state: max_tx_bytes must be positive, got %d", *raw.MaxTxBytes)
		}
		p.MaxTxBytes = *raw.MaxTxBytes
	}
	if raw.MaxStmts != nil {
		if *raw.MaxStmts <= 0 {
			return p, fmt.Errorf("genesis app_state: max_statements must be positive, got %d", *raw.MaxStmts)
		}
		p.MaxStatements = *raw.MaxStmts
	}
	if raw.Backend != nil {
		p.Backend = *raw.Backend
	}
	if len(raw.Admins) > 0 {
		admins := make([]string, len(raw.Admins))
		for i, a := range raw.Admins {
			admins[i] = strings.ToLower(a)
		}
		if _, err := parseAdmins(admins); err != nil {
			return p, err
		}
		slices.Sort(admins)
		p.Admins = slices.Compact(admins)
	}
	for k := range raw.DBProfile {
		if k == "" {
			return p, fmt.Errorf("genesis app_state: db_profile names an empty setting")
		}
	}
	if len(raw.DBProfile) > 0 {
		p.DBProfile = raw.DBProfile
	}
	if raw.SQLDialect != nil {
		p.SQLDialect = *raw.SQLDialect
	}
	if raw.SQLVersion != nil {
		p.SQLDialectVersion = *raw.SQLVersion
	}
	if raw.Protocol != nil {
		// Whether this binary runs it is the node's startup check
		// (NewExecutor: checkProtocol).
		if *raw.Protocol < protocol.V1 {
			return p, fmt.Errorf("genesis app_state: protocol_version must be at least %d, got %d", protocol.V1, *raw.Protocol)
		}
		p.ProtocolVersion = *raw.Protocol
	}
	if err := p.checkSQLDialect(); err != nil {
		return p, err
	}
	return p, p.checkCanonical(p.GenesisProtocol())
}

// checkCanonical refuses protocol version v (a genesis's or an upgrade's)
// when it is a canonical version (protocol.Canonical) and the network
// does not speak PostgreSQL's SQL: canonical state is defined over the
// postgres dialect (issue 37).
func (p Params) checkCanonical(v uint64) error {
	if !protocol.Canonical(v) {
		return nil
	}
	d, err := dialect.Lookup(p.Backend)
	if err != nil {
		return fmt.Errorf("genesis app_state: %w", err)
	}
	if !d.PostgresSQL(p.SQLDialect) {
		return fmt.Errorf("protocol version %d makes the AppHash engine independent and needs a network speaking PostgreSQL's SQL (sql_dialect \"postgres\"); this network speaks %s's own (backend %q): stay on version %d",
			v, d.SQLDialect(p.SQLDialect), p.Backend, protocol.V4)
	}
	return nil
}

// checkSQLDialect refuses a SQL dialect the storage cannot speak, and a
// translator version where nothing is translated (or none where something
// is). Whether this binary implements that version is the node's startup
// check (backend/registry, Spec.SQLDialectVersion).
func (p Params) checkSQLDialect() error {
	d, err := dialect.Lookup(p.Backend)
	if err != nil {
		return fmt.Errorf("genesis app_state: %w", err)
	}
	if !d.Speaks(p.SQLDialect) {
		return fmt.Errorf("genesis app_state: sql_dialect %q is not available on backend %q (it speaks %s); see docs/dialects.md",
			p.SQLDialect, p.Backend, d.Spoken())
	}
	switch {
	case d.Translated(p.SQLDialect) && p.SQLDialectVersion <= 0:
		return fmt.Errorf("genesis app_state: sql_dialect %q on backend %q is translated and needs sql_dialect_version (the translator's version, a positive number)", p.SQLDialect, p.Backend)
	case !d.Translated(p.SQLDialect) && p.SQLDialectVersion != 0:
		return fmt.Errorf("genesis app_state: sql_dialect_version %d given, but sql_dialect %q is backend %q's own: nothing is translated, leave it out", p.SQLDialectVersion, d.SQLDialect(p.SQLDialect), p.Backend)
	}
	return nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
