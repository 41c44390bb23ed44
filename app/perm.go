package app

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/txn"
)

// Permissions, deterministic and on chain.
//
// The genesis app_state names the admin keys. With no admin the network is
// open: every key may run DDL and write every table (development networks,
// benchmarks). With admins:
//
//   - admins may do everything: DDL, writes to every table, and the system
//     statements that grant and revoke write access (api.SystemGrant,
//     api.SystemRevoke) per key per table, or on every table ("*");
//   - any other key may only send txs if it holds at least one grant, and
//     each statement's target tables (sqlcheck.Analysis.Writes) must all be
//     granted to it; DDL is refused;
//   - reads are not restricted: SELECTs inside txs of a key with a grant,
//     and abci_query reads by anyone (a node serves its own copy).
//
// Writes done by trigger and function bodies are the admin's decision who
// created the trigger or function: only a statement's own targets are
// checked. The grants are system state (key "grant/" + public key, value
// the JSON array of sorted table names), written in the block's
// db-transaction like the replay windows, so they commit atomically with
// the block and survive restarts. CheckTx checks against committed grants;
// FinalizeBlock checks against the grants as changed by the block's earlier
// txs, so both agree on every node.

const (
	grantKeyPrefix  = "grant/"
	replayKeyPrefix = "replay/"
)

// grantSet is the sorted, duplicate-free set of tables a key may write.
type grantSet []string

func (g grantSet) allows(table string) bool {
	if _, ok := slices.BinarySearch(g, api.AllTables); ok {
		return true
	}
	_, ok := slices.BinarySearch(g, table)
	return ok
}

func (g grantSet) with(table string) grantSet {
	i, ok := slices.BinarySearch(g, table)
	if ok {
		return g
	}
	return slices.Insert(slices.Clone(g), i, table)
}

func (g grantSet) without(table string) grantSet {
	if table == api.AllTables {
		// Revoking "*" revokes everything.
		return nil
	}
	i, ok := slices.BinarySearch(g, table)
	if !ok {
		return g
	}
	return slices.Delete(slices.Clone(g), i, i+1)
}

func (g grantSet) encode() []byte {
	b, _ := json.Marshal([]string(g))
	return b
}

func decodeGrantSet(b []byte) (grantSet, error) {
	var g []string
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, err
	}
	if !slices.IsSorted(g) || len(slices.Compact(slices.Clone(g))) != len(g) {
		return nil, fmt.Errorf("grant set %q is not sorted and unique", g)
	}
	return g, nil
}

// perms is the permission state the executor consults: the genesis admins
// and committed grants, and a block's changes on top.
type perms struct {
	admins map[string]bool     // by raw public key
	grants map[string]grantSet // committed, by raw public key
}

func (p *perms) open() bool { return len(p.admins) == 0 }

// grantsOf returns key's grants as changed by the overlays (the innermost,
// a tx's own changes, first; then the block's), or as committed.
func (p *perms) grantsOf(key string, overlays ...map[string]grantSet) grantSet {
	for _, o := range overlays {
		if g, ok := o[key]; ok {
			return g
		}
	}
	return p.grants[key]
}

// isSystem reports whether a statement is a relchain system statement
// (grants, validator membership, protocol upgrades).
func isSystem(sql string) bool {
	return sql == api.SystemGrant || sql == api.SystemRevoke || isValidatorStmt(sql) || isUpgradeStmt(sql)
}

// systemOp is a decoded grant or revoke.
type systemOp struct {
	grant   bool
	grantee []byte
	table   string
}

// parseSystem validates a system statement's arguments.
func parseSystem(st txn.Statement, gate backend.Gate) (systemOp, error) {
	op := systemOp{grant: st.SQL == api.SystemGrant}
	if len(st.Args) != 2 || st.Args[0].Kind != txn.KindBytes || st.Args[1].Kind != txn.KindText {
		return op, fmt.Errorf("%q takes two arguments: the grantee's public key (bytes) and a table name (text) or %q", st.SQL, api.AllTables)
	}
	if len(st.Args[0].Bytes) != ed25519.PublicKeySize {
		return op, fmt.Errorf("%q: the grantee's public key has %d bytes, want %d", st.SQL, len(st.Args[0].Bytes), ed25519.PublicKeySize)
	}
	table, err := normalizeTable(st.Args[1].Text, gate)
	if err != nil {
		return op, fmt.Errorf("%q: %w", st.SQL, err)
	}
	op.grantee, op.table = st.Args[0].Bytes, table
	return op, nil
}

// normalizeTable checks a table name given to grant/revoke and puts it in
// the form sqlcheck.Analysis reports, the backend's gate's (Gate.TableName:
// SQLite and MySQL fold case, PostgreSQL takes names as stored; the
// default schema's qualifier is dropped).
func normalizeTable(name string, gate backend.Gate) (string, error) {
	if name == api.AllTables {
		return name, nil
	}
	if name == "" || len(name) > 256 || strings.ContainsAny(name, "\x00\n") {
		return "", fmt.Errorf("table name %q is empty, too long or has control characters", name)
	}
	return gate.TableName(name), nil
}

// authorize checks one statement's analysis against the sender's
// permissions; it returns "" if allowed, or why not.
func (p *perms) authorize(sender string, a sqlcheck.Analysis, overlays ...map[string]grantSet) string {
	if p.open() || p.admins[sender] {
		return ""
	}
	if a.DDL {
		return "only an admin key may change the schema (DDL)"
	}
	g := p.grantsOf(sender, overlays...)
	for _, t := range a.Writes {
		if !g.allows(t) {
			return fmt.Sprintf("key %s has no grant to write table %q", shortKey(sender), t)
		}
	}
	return ""
}

// admit checks that the sender may send txs at all, and may run its system
// statements; it returns "" or why not.
func (p *perms) admit(tx *txn.Tx, overlays ...map[string]grantSet) string {
	sender := string(tx.PubKey)
	hasSystem, hasValidator, hasUpgrade := false, false, false
	for _, st := range tx.Statements {
		hasSystem = hasSystem || isSystem(st.SQL)
		hasValidator = hasValidator || isValidatorStmt(st.SQL)
		hasUpgrade = hasUpgrade || isUpgradeStmt(st.SQL)
	}
	switch {
	case hasUpgrade && p.open():
		return "this network's genesis names no admin, so no key may schedule or cancel a protocol upgrade"
	case hasUpgrade && !p.admins[sender]:
		return "only an admin key may schedule or cancel a protocol upgrade"
	case hasValidator && p.open():
		return "this network's genesis names no admin, so no key may change the validator set"
	case hasValidator && !p.admins[sender]:
		return "only an admin key may change the validator set"
	case hasSystem && p.open():
		return "this network's genesis names no admin, so there are no grants to change (every key may write)"
	case hasSystem && !p.admins[sender]:
		return "only an admin key may grant or revoke"
	}
	if p.open() || p.admins[sender] {
		return ""
	}
	if len(p.grantsOf(sender, overlays...)) == 0 {
		return fmt.Sprintf("key %s holds no grant on this network; ask an admin for one", shortKey(sender))
	}
	return ""
}

func shortKey(k string) string {
	h := hex.EncodeToString([]byte(k))
	if len(h) > 16 {
		return h[:16] + "…"
	}
	return h
}

// parseAdmins decodes the genesis admin keys (hex), sorted and unique.
func parseAdmins(hexKeys []string) (map[string]bool, error) {
	out := make(map[string]bool, len(hexKeys))
	for _, h := range hexKeys {
		k, err := hex.DecodeString(h)
		if err != nil || len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("genesis app_state admins: %q is not a hex ed25519 public key (64 hex digits)", h)
		}
		out[string(k)] = true
	}
	return out, nil
}

// grantsView renders the permission state for a /grants query.
func (p *perms) view(height int64, adminHex []string) api.Grants {
	v := api.Grants{Height: height, Open: p.open(), Admins: slices.Clone(adminHex), Grants: make(map[string][]string, len(p.grants))}
	if v.Admins == nil {
		v.Admins = []string{}
	}
	for k, g := range p.grants {
		v.Grants[hex.EncodeToString([]byte(k))] = slices.Clone([]string(g))
	}
	return v
}
