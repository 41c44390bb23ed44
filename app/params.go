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
	// Empty when Backends names several.
	Backend string `json:"backend"`
	// Backends are the engines the validators of a network over several
	// engines run, sorted (issue 37): at least two, every one speaking
	// the network's SQL dialect, which must be PostgreSQL's, from a
	// canonical protocol version (5) on, whose AppHash is the same on
	// every engine. Each node runs the one its relchain.toml names.
	// Absent: Backend alone.
	Backends []string `json:"backends,omitempty"`
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
	// SQLDialectVersions replaces SQLDialectVersion on a network over
	// several engines of which two or more translate the dialect (SQLite
	// and MariaDB): each translating engine's version, by engine name.
	SQLDialectVersions map[string]int `json:"sql_dialect_versions,omitempty"`
	// ProtocolVersion is the protocol version of the chain's first block
	// (package protocol): 0 (absent) is version 1, as every chain began
	// before the field existed. relchain init, testnet and localnet
	// record protocol.DefaultGenesis unless told otherwise; version 5
	// (canonical) needs PostgreSQL's SQL (checkCanonical).
	ProtocolVersion uint64 `json:"protocol_version,omitempty"`
}

// Engines are the backends the network's validators may run: Backends,
// or Backend alone.
func (p Params) Engines() []string {
	if len(p.Backends) > 0 {
		return p.Backends
	}
	return []string{p.Backend}
}

// TranslatorVersion is the version of engine's translation of the
// network's SQL dialect (sql_dialect_version, or its entry of
// sql_dialect_versions); 0 when engine does not translate it.
func (p Params) TranslatorVersion(engine string) int {
	d, err := dialect.Lookup(engine)
	if err != nil || !d.Translated(p.SQLDialect) {
		return 0
	}
	if p.SQLDialectVersions != nil {
		return p.SQLDialectVersions[engine]
	}
	return p.SQLDialectVersion
}

// Mixed reports a network over several engines (Backends).
func (p Params) Mixed() bool { return len(p.Backends) > 0 }

// ddlCommitsSomewhere reports a network one of whose engines commits DDL
// implicitly (dialect.Dialect.DDLCommitsImplicitly): its DDL rule
// (Executor.ddlAlone) binds every validator, whatever engine it runs, or
// a block would fail a tx on that engine alone.
func (p Params) ddlCommitsSomewhere() bool {
	for _, b := range p.Engines() {
		if d, err := dialect.Lookup(b); err == nil && d.DDLCommitsImplicitly {
			return true
		}
	}
	return false
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
		p.Backend == q.Backend && slices.Equal(p.Backends, q.Backends) && slices.Equal(p.Admins, q.Admins) && maps.Equal(p.DBProfile, q.DBProfile) &&
		p.SQLDialect == q.SQLDialect && p.SQLDialectVersion == q.SQLDialectVersion && maps.Equal(p.SQLDialectVersions, q.SQLDialectVersions) && p.GenesisProtocol() == q.GenesisProtocol()
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
		Backends    []string          `json:"backends"`
		Admins      []string          `json:"admins"`
		DBProfile   map[string]string `json:"db_profile"`
		SQLDialect  *string           `json:"sql_dialect"`
		SQLVersion  *int              `json:"sql_dialect_version"`
		SQLVersions map[string]int    `json:"sql_dialect_versions"`
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
	if err := p.setEngines(raw.Backend, raw.Backends); err != nil {
		return p, err
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
	p.setSQLDialect(raw.SQLDialect, raw.SQLVersion, raw.SQLVersions)
	if raw.Protocol != nil {
		// Whether this binary runs it is the node's startup check
		// (NewExecutor: checkProtocol).
		if *raw.Protocol < protocol.V1 {
			return p, fmt.Errorf("genesis app_state: protocol_version must be at least %d, got %d", protocol.V1, *raw.Protocol)
		}
		p.ProtocolVersion = *raw.Protocol
	}
	if err := p.checkEngines(); err != nil {
		return p, err
	}
	if err := p.checkSQLDialect(); err != nil {
		return p, err
	}
	return p, p.checkCanonical(p.GenesisProtocol())
}

// setSQLDialect sets the SQL dialect and its translators' versions from
// the app_state's sql_dialect, sql_dialect_version and
// sql_dialect_versions (nil: absent).
func (p *Params) setSQLDialect(sql *string, version *int, versions map[string]int) {
	setIf(&p.SQLDialect, sql)
	setIf(&p.SQLDialectVersion, version)
	if versions != nil {
		p.SQLDialectVersions = versions
	}
}

// setIf sets *dst to *v when v is given.
func setIf[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

// setEngines sets Backend and Backends from the app_state's backend and
// backends (nil: absent).
func (p *Params) setEngines(backend *string, backends []string) error {
	if backend != nil {
		p.Backend = *backend
	}
	if backends == nil {
		return nil
	}
	if backend != nil && *backend != "" {
		return fmt.Errorf("genesis app_state: give either backend (one engine) or backends (several), not both")
	}
	p.Backend = ""
	p.Backends = slices.Compact(slices.Sorted(slices.Values(backends)))
	return nil
}

// checkEngines refuses a network over several engines (Backends) that
// cannot agree: fewer than two, one relchain does not know, one whose
// server profile the genesis overrides (db_profile names one engine's
// settings), or a protocol version whose AppHash holds an engine's own
// digests (before 5).
func (p Params) checkEngines() error {
	if !p.Mixed() {
		return nil
	}
	if len(p.Backends) < 2 {
		return fmt.Errorf("genesis app_state: backends lists one engine (%v): a network over one engine names it in backend", p.Backends)
	}
	for _, b := range p.Backends {
		if _, err := dialect.Lookup(b); err != nil {
			return fmt.Errorf("genesis app_state: backends: %w", err)
		}
	}
	if len(p.DBProfile) > 0 {
		return fmt.Errorf("genesis app_state: db_profile overrides one engine's server settings; a network over several engines (%v) cannot set it", p.Backends)
	}
	if !protocol.Canonical(p.GenesisProtocol()) {
		return fmt.Errorf("genesis app_state: a network over several engines (%v) needs protocol_version %d or later, whose AppHash is the same on every engine; this genesis names %d",
			p.Backends, protocol.V5, p.GenesisProtocol())
	}
	return nil
}

// checkCanonical refuses protocol version v (a genesis's or an upgrade's)
// when it is a canonical version (protocol.Canonical) and the network
// does not speak PostgreSQL's SQL: canonical state is defined over the
// postgres dialect (issue 37).
func (p Params) checkCanonical(v uint64) error {
	if !protocol.Canonical(v) {
		return nil
	}
	for _, b := range p.Engines() {
		d, err := dialect.Lookup(b)
		if err != nil {
			return fmt.Errorf("genesis app_state: %w", err)
		}
		if !d.PostgresSQL(p.SQLDialect) {
			return fmt.Errorf("protocol version %d makes the AppHash engine independent and needs a network speaking PostgreSQL's SQL (sql_dialect \"postgres\"); this network speaks %s's own (backend %q): stay on version %d",
				v, d.SQLDialect(p.SQLDialect), b, protocol.V4)
		}
	}
	return nil
}

// checkSQLDialect refuses a SQL dialect the storage cannot speak, and
// translator versions that do not name exactly the translating engines:
// sql_dialect_version when one engine translates the dialect,
// sql_dialect_versions (one positive version per translating engine) when
// several do, neither when none does. Whether this binary implements a
// version is the node's startup check (backend/registry,
// Spec.SQLDialectVersion).
func (p Params) checkSQLDialect() error {
	var translating []string
	for _, b := range p.Engines() {
		d, err := dialect.Lookup(b)
		if err != nil {
			return fmt.Errorf("genesis app_state: %w", err)
		}
		if !d.Speaks(p.SQLDialect) {
			return fmt.Errorf("genesis app_state: sql_dialect %q is not available on backend %q (it speaks %s); see docs/dialects.md",
				p.SQLDialect, b, d.Spoken())
		}
		if d.Translated(p.SQLDialect) {
			translating = append(translating, b)
		}
	}
	switch {
	case len(translating) == 0 && (p.SQLDialectVersion != 0 || p.SQLDialectVersions != nil):
		return fmt.Errorf("genesis app_state: a translator version is given, but no backend of this network (%v) translates sql_dialect %q: nothing is translated, leave sql_dialect_version(s) out", p.Engines(), p.SQLDialect)
	case len(translating) == 1 && p.SQLDialectVersions != nil:
		return fmt.Errorf("genesis app_state: only %s translates sql_dialect %q on this network: give its version as sql_dialect_version, not sql_dialect_versions", translating[0], p.SQLDialect)
	case len(translating) == 1 && p.SQLDialectVersion <= 0:
		return fmt.Errorf("genesis app_state: sql_dialect %q on backend %q is translated and needs sql_dialect_version (the translator's version, a positive number)", p.SQLDialect, translating[0])
	case len(translating) > 1:
		return p.checkSQLDialectVersions(translating)
	}
	return nil
}

// checkSQLDialectVersions checks sql_dialect_versions of a network on
// which the engines translating lists translate the dialect.
func (p Params) checkSQLDialectVersions(translating []string) error {
	if p.SQLDialectVersion != 0 {
		return fmt.Errorf("genesis app_state: %v translate sql_dialect %q on this network, each by its own translator: give sql_dialect_versions (one version per engine), not sql_dialect_version", translating, p.SQLDialect)
	}
	for _, b := range translating {
		if p.SQLDialectVersions[b] <= 0 {
			return fmt.Errorf("genesis app_state: sql_dialect_versions needs a positive version for each engine translating sql_dialect %q (%v); %s has none", p.SQLDialect, translating, b)
		}
	}
	if len(p.SQLDialectVersions) != len(translating) {
		return fmt.Errorf("genesis app_state: sql_dialect_versions names an engine that does not translate sql_dialect %q on this network (only %v do)", p.SQLDialect, translating)
	}
	return nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
