package statetree

import (
	"crypto/sha256"
	"fmt"
	"strings"

	ics23 "github.com/cosmos/ics23/go"
)

// Tables is the tables map: a tree over table name -> table root hash,
// whose root commits to every table. Its key for a name is TableKey(name);
// the value a proof carries is the 32-byte table root (the tree holds its
// SHA-256, as CometBFT's and Cosmos's simple Merkle maps do).
type Tables struct{ t *Tree }

// NewTables returns an empty tables map.
func NewTables() *Tables { return &Tables{t: New()} }

// TableKey is name followed by 0x00: table names hold no NUL, so the keys
// are prefix-free.
func TableKey(name string) ([]byte, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return nil, fmt.Errorf("table %q: %w: the name holds a NUL byte", name, ErrKeyPrefix)
	}
	key := append([]byte(name), 0)
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("table %q: %w", name, err)
	}
	return key, nil
}

// Set records table name's root hash.
func (m *Tables) Set(name string, root [32]byte) error {
	key, err := TableKey(name)
	if err != nil {
		return err
	}
	return m.t.Set(key, sha256.Sum256(root[:]))
}

// Delete removes table name and reports whether it was there.
func (m *Tables) Delete(name string) (bool, error) {
	key, err := TableKey(name)
	if err != nil {
		return false, err
	}
	return m.t.Delete(key)
}

// Commit returns the map's snapshot (see Tree.Commit).
func (m *Tables) Commit() TablesRoot { return TablesRoot{m.t.Commit()} }

// TablesRoot is a committed snapshot of the tables map.
type TablesRoot struct{ Root }

// TableProof proves that table's root hash is TableRoot under a tables
// map root: the first link of a chained proof.
type TableProof struct {
	TableRoot [32]byte
	Proof     *ics23.CommitmentProof // existence of TableKey(name) -> TableRoot
}

// ProveTable proves that table name has root tableRoot (the Hash of the
// table's Root committed with this map).
func (m TablesRoot) ProveTable(name string, tableRoot [32]byte) (TableProof, error) {
	key, err := TableKey(name)
	if err != nil {
		return TableProof{}, err
	}
	p, err := m.ProveExistence(key, tableRoot[:])
	if err != nil {
		return TableProof{}, fmt.Errorf("prove table %q: %w", name, err)
	}
	return TableProof{TableRoot: tableRoot, Proof: p}, nil
}

// VerifyTable checks that p proves table name's root under mapRoot.
func VerifyTable(mapRoot [32]byte, name string, p TableProof) error {
	key, err := TableKey(name)
	if err != nil {
		return err
	}
	if err := VerifyExistence(mapRoot, key, p.TableRoot[:], p.Proof); err != nil {
		return fmt.Errorf("verify table %q: %w", name, err)
	}
	return nil
}

// ChainedProof proves a claim about a table's rows against the tables
// map's root: the table's root in the map, then the claim in the table.
type ChainedProof struct {
	Table TableProof
	Rows  *ics23.CommitmentProof // from the table's Root: ProveExistence, ProveNonExistence or ProveRange
}

// VerifyChainedExistence checks key -> value in table name under mapRoot.
func VerifyChainedExistence(mapRoot [32]byte, name string, key, value []byte, p ChainedProof) error {
	if err := VerifyTable(mapRoot, name, p.Table); err != nil {
		return err
	}
	return VerifyExistence(p.Table.TableRoot, key, value, p.Rows)
}

// VerifyChainedNonExistence checks that key is absent from table name.
func VerifyChainedNonExistence(mapRoot [32]byte, name string, key []byte, p ChainedProof) error {
	if err := VerifyTable(mapRoot, name, p.Table); err != nil {
		return err
	}
	return VerifyNonExistence(p.Table.TableRoot, key, p.Rows)
}

// VerifyChainedRange checks that rows are table name's rows in [lo, hi].
func VerifyChainedRange(mapRoot [32]byte, name string, lo, hi []byte, rows []KV, p ChainedProof) error {
	if err := VerifyTable(mapRoot, name, p.Table); err != nil {
		return err
	}
	return VerifyRange(p.Table.TableRoot, lo, hi, rows, p.Rows)
}
