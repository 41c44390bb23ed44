package proof

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// chain is a test node: authenticated tables (statetree, keyed by
// rowcanon.EncodeKey, valued by rowcanon.EncodeRow images), committed block
// by block, and an honest answer to any proof request at any height.
type chain struct {
	trees  map[string]*statetree.Tree
	images map[string]map[string][]byte // table -> key -> image, the head
	blocks []*block
}

// block is one committed height.
type block struct {
	height int64
	base   []byte
	roots  map[string]statetree.Root
	images map[string]map[string][]byte
	tables statetree.TablesRoot
}

func newChain() *chain {
	return &chain{trees: map[string]*statetree.Tree{}, images: map[string]map[string][]byte{}}
}

// addTable makes name authenticated (an empty table until rows are set).
func (c *chain) addTable(name string) {
	c.trees[name], c.images[name] = statetree.New(), map[string][]byte{}
}

func (c *chain) set(t testing.TB, table string, key []byte, image []byte) {
	t.Helper()
	if err := c.trees[table].Set(key, rowcanon.LeafHash(image)); err != nil {
		t.Fatal(err)
	}
	c.images[table][string(key)] = image
}

func (c *chain) del(t testing.TB, table string, key []byte) {
	t.Helper()
	if _, err := c.trees[table].Delete(key); err != nil {
		t.Fatal(err)
	}
	delete(c.images[table], string(key))
}

// commit seals the next block and returns it.
func (c *chain) commit(t testing.TB) *block {
	t.Helper()
	b := &block{height: int64(len(c.blocks) + 1), roots: map[string]statetree.Root{}, images: map[string]map[string][]byte{}}
	m := statetree.NewTables()
	for _, name := range sortedNames(c.trees) {
		b.roots[name] = c.trees[name].Commit()
		b.images[name] = cloneImages(c.images[name])
		if err := m.Set(name, b.roots[name].Hash()); err != nil {
			t.Fatal(err)
		}
	}
	b.tables = m.Commit()
	base := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("test base"), uint64(b.height)))
	b.base = base[:]
	c.blocks = append(c.blocks, b)
	return b
}

func sortedNames[V any](m map[string]V) []string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func cloneImages(m map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// appHash is the block's AppHash (version 4).
func (b *block) appHash() []byte {
	return api.AuthenticatedAppHash(4, b.base, b.tables.Hash())
}

// answer is an honest node's response to req at block b.
func (b *block) answer(t testing.TB, req api.ProofRequest) api.ProofResponse {
	t.Helper()
	root := b.tables.Hash()
	resp := api.ProofResponse{Height: b.height, Version: 4, Base: b.base, TablesRoot: root[:],
		Table: req.Table, Key: req.Key, Lo: req.Lo, Hi: req.Hi, Rows: []api.ProofRow{}}
	tr, ok := b.roots[req.Table]
	if !ok {
		key, err := statetree.TableKey(req.Table)
		must(t, err)
		p, err := b.tables.ProveNonExistence(key, b.tableRoot)
		must(t, err)
		resp.TableAbsence, err = statetree.MarshalCommitment(p)
		must(t, err)
		return resp
	}
	tp, err := b.tables.ProveTable(req.Table, tr.Hash())
	must(t, err)
	images := b.images[req.Table]
	values := func(k []byte) ([]byte, error) { return images[string(k)], nil }
	cp := statetree.ChainedProof{Table: tp}
	switch img, found := images[string(req.Key)]; {
	case req.IsRange():
		cp.Rows, err = tr.ProveRange(req.Lo, req.Hi, values)
		resp.Rows = rowsIn(images, req.Lo, req.Hi)
	case found:
		cp.Rows, err = tr.ProveExistence(req.Key, img)
		resp.Rows = []api.ProofRow{{Key: req.Key, Image: img}}
	default:
		cp.Rows, err = tr.ProveNonExistence(req.Key, values)
	}
	must(t, err)
	resp.Proof, err = cp.Marshal()
	must(t, err)
	return resp
}

// tableRoot is the tables map's ValueFunc: a table key's root hash.
func (b *block) tableRoot(key []byte) ([]byte, error) {
	h := b.roots[string(key[:len(key)-1])].Hash()
	return h[:], nil
}

// rowsIn is the rows with lo <= key <= hi, in key order.
func rowsIn(images map[string][]byte, lo, hi []byte) []api.ProofRow {
	rows := []api.ProofRow{}
	for _, k := range sortedNames(images) {
		if bytes.Compare([]byte(k), lo) >= 0 && bytes.Compare([]byte(k), hi) <= 0 {
			rows = append(rows, api.ProofRow{Key: []byte(k), Image: images[k]})
		}
	}
	return rows
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func key(t testing.TB, vals ...rowcanon.Value) []byte {
	t.Helper()
	k, err := rowcanon.EncodeKey(vals)
	must(t, err)
	return k
}

func text(t testing.TB, s string) rowcanon.Value {
	t.Helper()
	v, err := rowcanon.Text(s)
	must(t, err)
	return v
}

func image(t testing.TB, table string, cols ...rowcanon.Column) []byte {
	t.Helper()
	img, err := rowcanon.EncodeRow(table, cols)
	must(t, err)
	return img
}

// account is row id of "accounts" (int key): id, owner, balance.
func account(t testing.TB, id int64, balance int64) ([]byte, []byte) {
	return key(t, rowcanon.Int(id)), image(t, "accounts",
		rowcanon.Column{Name: "id", Value: rowcanon.Int(id)},
		rowcanon.Column{Name: "owner", Value: text(t, "owner "+string(rune('a'+id%26)))},
		rowcanon.Column{Name: "balance", Value: rowcanon.Int(balance)})
}

// fixture is a chain of two blocks over several tables:
//
//	accounts (int key): ids 0, 2, ..., 38 at block 1; block 2 deletes 10..20
//	                    and changes id 0's balance
//	users    (text key): alice, bob, carol
//	orders   (composite key int, text): (1,a) (1,b) (2,a)
//	empty    (authenticated, no rows)
//	blobs    is not in the tables map (not authenticated)
func fixture(t testing.TB) (*chain, *block, *block) {
	c := newChain()
	for _, name := range []string{"accounts", "users", "orders", "empty"} {
		c.addTable(name)
	}
	for id := int64(0); id < 40; id += 2 {
		k, img := account(t, id, 100*id)
		c.set(t, "accounts", k, img)
	}
	for _, u := range []string{"alice", "bob", "carol"} {
		c.set(t, "users", key(t, text(t, u)), image(t, "users",
			rowcanon.Column{Name: "name", Value: text(t, u)}, rowcanon.Column{Name: "admin", Value: rowcanon.Bool(u == "alice")}))
	}
	for _, o := range []struct {
		n int64
		s string
	}{{1, "a"}, {1, "b"}, {2, "a"}} {
		c.set(t, "orders", key(t, rowcanon.Int(o.n), text(t, o.s)), image(t, "orders",
			rowcanon.Column{Name: "n", Value: rowcanon.Int(o.n)}, rowcanon.Column{Name: "s", Value: text(t, o.s)},
			rowcanon.Column{Name: "qty", Value: rowcanon.Int(o.n * 7)}))
	}
	b1 := c.commit(t)
	for id := int64(10); id <= 20; id += 2 {
		k, _ := account(t, id, 0)
		c.del(t, "accounts", k)
	}
	k, img := account(t, 0, 555)
	c.set(t, "accounts", k, img)
	return c, b1, c.commit(t)
}

// above is a range bound above every key.
var above = bytes.Repeat([]byte{0xff}, api.MaxProofKeyLen)
