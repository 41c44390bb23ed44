package backendtest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck"
)

// HistoryOptions is what RunHistory needs of a backend besides Open.
type HistoryOptions struct {
	// Tables are the backend's history tables as a client's SQL would
	// name them: every read and write of them must be refused.
	Tables []string
	// Restore, when set, checks that a checkpoint's restore holds no
	// history.
	Restore Restore
	// Dump, when set, returns the backend's dump of committed state: it
	// must hold no history.
	Dump func(t *testing.T, b backend.Backend) []byte
	// DropHistory makes t's database, its backend closed, one of a
	// version before the history: its history tables are dropped.
	DropHistory func(t *testing.T)
}

// RunHistory runs the row-history part of the suite (issue 36 items 5
// and 6: backend.HistoryBlock, backend.HistoryReader and the Txs of
// CanonicalDelta) against a backend whose Blocks are CanonicalBlocks.
func RunHistory(t *testing.T, open Open, sp Spelling, o HistoryOptions) {
	sub := subject{open: open, sp: sp}
	tests := []struct {
		name string
		fn   func(*testing.T, subject)
	}{
		{"RoundTripAndOrder", testHistoryRoundTrip},
		{"Limits", testHistoryLimits},
		{"ChangesKeepBlocksWhole", testHistoryChangesWhole},
		{"TableHistory", testTableHistory},
		{"StatesAndRoots", testHistoryStates},
		{"Prune", testHistoryPrune},
		{"AtomicWithTheBlock", testHistoryAtomic},
		{"LeavesStateAlone", testHistoryLeavesState},
		{"TxsOfCanonicalDelta", testHistoryTxs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, sub) })
	}
	t.Run("ClientSQLCannotReachIt", func(t *testing.T) { testHistoryRefused(t, sub, o.Tables) })
	t.Run("NotInDumpsOrCheckpoints", func(t *testing.T) { testHistoryNotCopied(t, sub, o) })
	t.Run("UpgradeFromBeforeHistory", func(t *testing.T) { testHistoryUpgrade(t, sub, o.DropHistory) })
}

func testHistoryUpgrade(t *testing.T, sub subject, drop func(*testing.T)) {
	if drop == nil {
		t.Fatal("HistoryOptions.DropHistory is not set")
	}
	n := mustOpen(t, sub)
	n.setup()
	n.close()
	drop(t)
	n = mustOpen(t, sub)
	if s, e, err := n.reader().HistoryRange(ctx(t)); err != nil || s != 0 || e != 0 {
		t.Fatalf("HistoryRange of a database from before the history = %d, %d, %v; want 0, 0", s, e, err)
	}
	n.appendBlock(2, []backend.RowVersion{hver(t, "t", 1, backend.HistoryUpdate, "x")}, 0)
	if got, err := n.reader().RowHistory(ctx(t), "t", hkey(t, 1), 0, 10); err != nil || len(got) != 1 || got[0].Height != 2 {
		t.Fatalf("RowHistory after the upgrade = %+v, %v; want the version at 2", got, err)
	}
}

// historyMarker is in the images of the suite's versions: no dump or
// checkpoint may hold it.
const historyMarker = "relchain-history-marker"

// hkey is a canonical key of one int.
func hkey(t *testing.T, id int64) []byte {
	k, err := rowcanon.EncodeKey([]rowcanon.Value{rowcanon.Int(id)})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// himg is an image standing for a row of the suite (the history stores
// images as given).
func himg(table string, id int64, v string) []byte {
	return []byte(fmt.Sprintf("%s|%s|%d|%s", historyMarker, table, id, v))
}

// hver is a version of the suite.
func hver(t *testing.T, table string, id int64, op backend.HistoryOp, v string, txs ...int) backend.RowVersion {
	rv := backend.RowVersion{Table: table, Key: hkey(t, id), Op: op, Txs: txs}
	if op != backend.HistoryDelete {
		rv.Image = himg(table, id, v)
	}
	return rv
}

// hinfo is block h's info in the suite.
func hinfo(h int64, txs int) backend.HistoryBlockInfo {
	info := backend.HistoryBlockInfo{Height: h, TimeUnixNano: 1_700_000_000_000_000_000 + h, AppHash: appHash(h)}
	for i := range txs {
		info.Txs = append(info.Txs, backend.HistoryTx{Index: i, Hash: bytes.Repeat([]byte{byte(h), byte(i)}, 16), Signer: []byte(fmt.Sprintf("signer-%d", i))})
	}
	return info
}

// reader is the backend as a HistoryReader.
func (n *node) reader() backend.HistoryReader {
	n.t.Helper()
	r, ok := n.Backend.(backend.HistoryReader)
	if !ok {
		n.t.Fatalf("%T is not a backend.HistoryReader", n.Backend)
	}
	return r
}

// appendBlock commits an empty block at h that records versions (and
// prunes below pruneBelow).
func (n *node) appendBlock(h int64, versions []backend.RowVersion, pruneBelow int64) {
	n.t.Helper()
	blk := n.begin()
	n.appendTo(blk, h, versions, pruneBelow)
	n.commitOnly(blk, h)
}

// appendTo digests blk and records versions in it as block h.
func (n *node) appendTo(blk backend.Block, h int64, versions []backend.RowVersion, pruneBelow int64) {
	n.t.Helper()
	n.appendInfo(blk, hinfo(h, 2), versions, pruneBelow)
}

// appendInfo digests blk and records info and versions in it.
func (n *node) appendInfo(blk backend.Block, info backend.HistoryBlockInfo, versions []backend.RowVersion, pruneBelow int64) {
	n.t.Helper()
	if _, err := blk.ChangeDigest(ctx(n.t)); err != nil {
		n.t.Fatalf("ChangeDigest: %v", err)
	}
	if _, err := blk.StateDigest(ctx(n.t)); err != nil {
		n.t.Fatalf("StateDigest: %v", err)
	}
	hb, ok := blk.(backend.HistoryBlock)
	if !ok {
		n.t.Fatalf("%T is not a backend.HistoryBlock", blk)
	}
	if err := hb.AppendHistory(ctx(n.t), info, versions, pruneBelow); err != nil {
		n.t.Fatalf("AppendHistory %d: %v", info.Height, err)
	}
}

// historyBlocks are the suite's blocks 1 to 4: block 3 changes no row.
func historyBlocks(t *testing.T) [][]backend.RowVersion {
	return [][]backend.RowVersion{
		{hver(t, "a", 1, backend.HistoryInsert, "x", 0), hver(t, "a", 2, backend.HistoryInsert, "y", 1), hver(t, "b", 1, backend.HistoryInsert, "z", 0, 1)},
		{hver(t, "a", 1, backend.HistoryUpdate, "x2", 1), hver(t, "b", 1, backend.HistoryDelete, "", 0)},
		nil,
		{hver(t, "a", 1, backend.HistoryDelete, ""), hver(t, "b", 1, backend.HistoryInsert, "z2", 0)},
	}
}

// withBefore is v as a reader returns it: with its Height and Before.
func withBefore(v backend.RowVersion, h int64, before []byte, known bool) backend.RowVersion {
	v.Height, v.Before, v.BeforeKnown = h, before, known
	return v
}

// sameVersions fails unless got and want hold the same versions.
func sameVersions(t *testing.T, what string, got, want []backend.RowVersion) {
	t.Helper()
	norm := func(vs []backend.RowVersion) []backend.RowVersion {
		out := slices.Clone(vs)
		for i := range out {
			if len(out[i].Txs) == 0 {
				out[i].Txs = nil
			}
			if len(out[i].Before) == 0 && !out[i].BeforeKnown {
				out[i].Before = nil
			}
		}
		return out
	}
	if !reflect.DeepEqual(norm(got), norm(want)) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func testHistoryRoundTrip(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	r := n.reader()
	if s, e, err := r.HistoryRange(ctx(t)); err != nil || s != 0 || e != 0 {
		t.Fatalf("HistoryRange of no history = %d, %d, %v; want 0, 0", s, e, err)
	}
	bs := historyBlocks(t)
	for i, vs := range bs {
		n.appendBlock(int64(i+1), vs, 0)
	}
	if s, e, err := r.HistoryRange(ctx(t)); err != nil || s != 1 || e != 4 {
		t.Fatalf("HistoryRange = %d, %d, %v; want 1, 4", s, e, err)
	}
	a1 := []backend.RowVersion{
		withBefore(bs[0][0], 1, nil, false),
		withBefore(bs[1][0], 2, bs[0][0].Image, true),
		withBefore(bs[3][0], 4, bs[1][0].Image, true),
	}
	got, err := r.RowHistory(ctx(t), "a", hkey(t, 1), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	sameVersions(t, "RowHistory of a/1", got, a1)
	got, err = r.RowHistory(ctx(t), "a", hkey(t, 1), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	sameVersions(t, "RowHistory of a/1 from 2, limit 1", got, a1[1:2])
	b1 := []backend.RowVersion{withBefore(bs[0][2], 1, nil, false), withBefore(bs[1][1], 2, bs[0][2].Image, true), withBefore(bs[3][1], 4, nil, false)}
	got, err = r.RowHistory(ctx(t), "b", hkey(t, 1), 2, 100)
	if err != nil {
		t.Fatal(err)
	}
	sameVersions(t, "RowHistory of b/1 from 2 (a delete, then an insert)", got, b1[1:])
	if got, err = r.RowHistory(ctx(t), "a", hkey(t, 9), 0, 100); err != nil || len(got) != 0 {
		t.Fatalf("RowHistory of a key never changed = %v, %v", got, err)
	}
	for _, c := range []struct {
		h    int64
		want *backend.RowVersion
	}{{0, nil}, {1, &a1[0]}, {2, &a1[1]}, {3, &a1[1]}, {4, &a1[2]}, {99, &a1[2]}} {
		v, ok, err := r.VersionAt(ctx(t), "a", hkey(t, 1), c.h)
		if err != nil || ok != (c.want != nil) {
			t.Fatalf("VersionAt %d = %v, %v, %v", c.h, v, ok, err)
		}
		if ok {
			sameVersions(t, fmt.Sprintf("VersionAt %d", c.h), []backend.RowVersion{v}, []backend.RowVersion{*c.want})
		}
	}
	cs, err := r.HistoryChanges(ctx(t), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []backend.HistoryBlockChanges{
		{Info: hinfo(1, 2), Versions: []backend.RowVersion{a1[0], withBefore(bs[0][1], 1, nil, false), b1[0]}},
		{Info: hinfo(2, 2), Versions: []backend.RowVersion{a1[1], b1[1]}},
		{Info: hinfo(4, 2), Versions: []backend.RowVersion{a1[2], b1[2]}},
	}
	sameChanges(t, "HistoryChanges from 1", cs, want)
	n.close()
	n = mustOpen(t, sub)
	cs, err = n.reader().HistoryChanges(ctx(t), 2, 100)
	if err != nil {
		t.Fatal(err)
	}
	sameChanges(t, "HistoryChanges from 2 after reopen", cs, want[1:])
}

// testTableHistory: one table's versions in commit order, with the
// infos of their blocks (a gap of heights wider than one read of block
// infos spans), Before filled across a from height, a limit that cuts
// (more), and a table without history.
func testTableHistory(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	r := n.reader()
	bs := historyBlocks(t)
	for i, vs := range bs {
		n.appendBlock(int64(i+1), vs, 0)
	}
	far := hver(t, "a", 2, backend.HistoryUpdate, "y2", 0)
	n.appendBlock(100, []backend.RowVersion{far}, 0)
	a := []backend.RowVersion{
		withBefore(bs[0][0], 1, nil, false), withBefore(bs[0][1], 1, nil, false),
		withBefore(bs[1][0], 2, bs[0][0].Image, true),
		withBefore(bs[3][0], 4, bs[1][0].Image, true),
		withBefore(far, 100, bs[0][1].Image, true),
	}
	want := []backend.HistoryBlockChanges{
		{Info: hinfo(1, 2), Versions: a[0:2]}, {Info: hinfo(2, 2), Versions: a[2:3]},
		{Info: hinfo(4, 2), Versions: a[3:4]}, {Info: hinfo(100, 2), Versions: a[4:5]},
	}
	got, more, err := r.TableHistory(ctx(t), "a", 0, 100)
	if err != nil || more {
		t.Fatalf("TableHistory of a = more %v, %v", more, err)
	}
	sameChanges(t, "TableHistory of a", got, want)
	got, more, err = r.TableHistory(ctx(t), "a", 2, 2)
	if err != nil || !more {
		t.Fatalf("TableHistory of a from 2, limit 2 = more %v, %v; want more", more, err)
	}
	sameChanges(t, "TableHistory of a from 2, limit 2", got, want[1:3])
	if got, more, err = r.TableHistory(ctx(t), "c", 0, 100); err != nil || more || len(got) != 0 {
		t.Fatalf("TableHistory of a table without versions = %v, %v, %v", got, more, err)
	}
	if _, _, err := r.TableHistory(ctx(t), "a", 0, backend.MaxHistoryRows+1); err == nil {
		t.Fatal("TableHistory took a limit above MaxHistoryRows")
	}
}

// testHistoryStates: the state recorded with each block and the newest
// roots kept at or below a height, across a block without a state,
// blocks without roots, a reopen and pruning (which keeps the newest
// roots below the prune height).
func testHistoryStates(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	st := func(h int64) []byte { return []byte(fmt.Sprintf("state-%d", h)) }
	rt := func(h int64) []byte { return bytes.Repeat([]byte{byte(h)}, 40) }
	record := func(h int64, state, roots []byte, pruneBelow int64) {
		info := hinfo(h, 1)
		info.State, info.Roots = state, roots
		blk := n.begin()
		n.appendInfo(blk, info, []backend.RowVersion{hver(t, "a", h, backend.HistoryInsert, "x")}, pruneBelow)
		n.commitOnly(blk, h)
	}
	record(1, st(1), rt(1), 0)
	record(2, st(2), nil, 0)
	record(3, nil, nil, 0)
	record(4, st(4), rt(4), 0)
	record(5, st(5), nil, 0)
	check := func(when string, h int64, wantOK bool, wantRootsAt int64) {
		t.Helper()
		state, roots, rh, ok, err := n.reader().HistoryStateAt(ctx(t), h)
		switch {
		case err != nil:
			t.Fatalf("%s: HistoryStateAt(%d): %v", when, h, err)
		case ok != wantOK:
			t.Fatalf("%s: HistoryStateAt(%d) ok = %v, want %v", when, h, ok, wantOK)
		case ok && (!bytes.Equal(state, st(h)) || rh != wantRootsAt || !bytes.Equal(roots, rt(wantRootsAt))):
			t.Fatalf("%s: HistoryStateAt(%d) = %q, roots of %d %x; want %q, roots of %d", when, h, state, rh, roots, st(h), wantRootsAt)
		}
	}
	for _, when := range []string{"recorded", "after a reopen"} {
		check(when, 1, true, 1)
		check(when, 2, true, 1)
		check(when, 3, false, 0)
		check(when, 4, true, 4)
		check(when, 5, true, 4)
		check(when, 6, false, 0)
		n.close()
		n = mustOpen(t, sub)
	}
	record(6, st(6), nil, 5)
	check("pruned below 5", 4, false, 0)
	check("pruned below 5", 5, true, 4)
	check("pruned below 5", 6, true, 4)
}

// sameChanges fails unless got and want hold the same blocks.
func sameChanges(t *testing.T, what string, got, want []backend.HistoryBlockChanges) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d blocks, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range got {
		if !reflect.DeepEqual(got[i].Info, want[i].Info) {
			t.Fatalf("%s: block %d info %+v, want %+v", what, i, got[i].Info, want[i].Info)
		}
		sameVersions(t, fmt.Sprintf("%s: block %d", what, want[i].Info.Height), got[i].Versions, want[i].Versions)
	}
}

func testHistoryLimits(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	r := n.reader()
	for _, limit := range []int{0, -1, backend.MaxHistoryRows + 1} {
		if _, err := r.RowHistory(ctx(t), "a", hkey(t, 1), 0, limit); err == nil {
			t.Errorf("RowHistory with limit %d succeeded", limit)
		}
		if _, err := r.HistoryChanges(ctx(t), 0, limit); err == nil {
			t.Errorf("HistoryChanges with limit %d succeeded", limit)
		}
	}
	var vs []backend.RowVersion
	for h := int64(1); h <= 5; h++ {
		vs = []backend.RowVersion{hver(t, "a", 1, backend.HistoryUpdate, fmt.Sprint(h))}
		if h == 1 {
			vs[0] = hver(t, "a", 1, backend.HistoryInsert, "1")
		}
		n.appendBlock(h, vs, 0)
	}
	got, err := r.RowHistory(ctx(t), "a", hkey(t, 1), 2, 2)
	if err != nil || len(got) != 2 || got[0].Height != 2 || got[1].Height != 3 {
		t.Fatalf("RowHistory from 2, limit 2 = %+v, %v; want heights 2 and 3", got, err)
	}
	if !got[0].BeforeKnown || !bytes.Equal(got[0].Before, himg("a", 1, "1")) {
		t.Fatalf("RowHistory from 2: Before %q (known %v), want the version at 1", got[0].Before, got[0].BeforeKnown)
	}
	if got, err = r.RowHistory(ctx(t), "a", hkey(t, 1), 0, backend.MaxHistoryRows); err != nil || len(got) != 5 {
		t.Fatalf("RowHistory with the largest limit = %d versions, %v; want 5", len(got), err)
	}
}

func testHistoryChangesWhole(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	r := n.reader()
	n.appendBlock(1, []backend.RowVersion{hver(t, "a", 1, backend.HistoryInsert, "x")}, 0)
	n.appendBlock(2, []backend.RowVersion{hver(t, "a", 2, backend.HistoryInsert, "x"), hver(t, "a", 3, backend.HistoryInsert, "x"), hver(t, "a", 4, backend.HistoryInsert, "x")}, 0)
	n.appendBlock(3, []backend.RowVersion{hver(t, "a", 5, backend.HistoryInsert, "x")}, 0)
	heights := func(from int64, limit int) []int64 {
		t.Helper()
		cs, err := r.HistoryChanges(ctx(t), from, limit)
		if err != nil {
			t.Fatalf("HistoryChanges from %d limit %d: %v", from, limit, err)
		}
		var out []int64
		for _, c := range cs {
			for range c.Versions {
				out = append(out, c.Info.Height)
			}
		}
		return out
	}
	for _, c := range []struct {
		from  int64
		limit int
		want  []int64
	}{
		{1, 1, []int64{1}}, {1, 3, []int64{1}}, {1, 4, []int64{1, 2, 2, 2}}, {1, 5, []int64{1, 2, 2, 2, 3}},
		{2, 1, []int64{2, 2, 2}}, {2, 3, []int64{2, 2, 2}}, {3, 10, []int64{3}}, {4, 10, nil},
	} {
		if got := heights(c.from, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("HistoryChanges from %d limit %d: versions at %v, want %v", c.from, c.limit, got, c.want)
		}
	}
}

func testHistoryPrune(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	r := n.reader()
	n.appendBlock(1, []backend.RowVersion{hver(t, "a", 1, backend.HistoryInsert, "1"), hver(t, "a", 2, backend.HistoryInsert, "1")}, 0)
	n.appendBlock(2, []backend.RowVersion{hver(t, "a", 1, backend.HistoryUpdate, "2")}, 0)
	n.appendBlock(3, []backend.RowVersion{hver(t, "a", 1, backend.HistoryUpdate, "3"), hver(t, "a", 2, backend.HistoryDelete, "")}, 2)
	if s, e, err := r.HistoryRange(ctx(t)); err != nil || s != 2 || e != 3 {
		t.Fatalf("HistoryRange after pruning below 2 = %d, %d, %v; want 2, 3", s, e, err)
	}
	got, err := r.RowHistory(ctx(t), "a", hkey(t, 1), 0, 10)
	if err != nil || len(got) != 2 || got[0].Height != 2 || got[0].BeforeKnown || got[0].Before != nil || !got[1].BeforeKnown {
		t.Fatalf("RowHistory after pruning = %+v, %v; want versions 2 (before unknown) and 3", got, err)
	}
	got, err = r.RowHistory(ctx(t), "a", hkey(t, 2), 0, 10)
	if err != nil || len(got) != 1 || got[0].BeforeKnown {
		t.Fatalf("RowHistory of a key whose insert was pruned = %+v, %v; want one delete, before unknown", got, err)
	}
	if _, ok, err := r.VersionAt(ctx(t), "a", hkey(t, 2), 2); ok || err != nil {
		t.Fatalf("VersionAt a pruned height: ok %v, %v", ok, err)
	}
	n.appendBlock(4, nil, 4)
	if s, e, err := r.HistoryRange(ctx(t)); err != nil || s != 4 || e != 4 {
		t.Fatalf("HistoryRange after pruning below the block = %d, %d, %v; want 4, 4", s, e, err)
	}
	if cs, err := r.HistoryChanges(ctx(t), 0, 10); err != nil || len(cs) != 0 {
		t.Fatalf("HistoryChanges after pruning every version = %+v, %v; want none", cs, err)
	}
}

func testHistoryAtomic(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.appendBlock(1, []backend.RowVersion{hver(t, "a", 1, backend.HistoryInsert, "1")}, 0)
	blk := n.begin()
	n.appendTo(blk, 2, []backend.RowVersion{hver(t, "a", 1, backend.HistoryUpdate, "2")}, 1)
	if s, e, err := n.reader().HistoryRange(ctx(t)); err != nil || s != 1 || e != 1 {
		t.Fatalf("HistoryRange with block 2 open = %d, %d, %v; want 1, 1", s, e, err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if s, e, err := n.reader().HistoryRange(ctx(t)); err != nil || s != 1 || e != 1 {
		t.Fatalf("HistoryRange after block 2 rolled back = %d, %d, %v; want 1, 1", s, e, err)
	}
	n.appendBlock(2, []backend.RowVersion{hver(t, "a", 1, backend.HistoryUpdate, "2b")}, 0)
	n.close()
	n = mustOpen(t, sub)
	got, err := n.reader().RowHistory(ctx(t), "a", hkey(t, 1), 0, 10)
	if err != nil || len(got) != 2 || !bytes.Equal(got[1].Image, himg("a", 1, "2b")) {
		t.Fatalf("RowHistory after reopen = %+v, %v; want block 1's and the committed block 2's", got, err)
	}
}

// stateOf is the backend's stored state digest and canonical tables.
func (n *node) stateOf() ([]byte, []string) {
	n.t.Helper()
	stored, _, err := n.StoredState(ctx(n.t))
	if err != nil {
		n.t.Fatal(err)
	}
	st := stored.Digest()
	cr, ok := n.Backend.(backend.CanonicalReader)
	if !ok {
		n.t.Fatalf("%T is not a backend.CanonicalReader", n.Backend)
	}
	tables, err := cr.CanonicalTables(ctx(n.t))
	if err != nil {
		n.t.Fatal(err)
	}
	return st, tables
}

func testHistoryLeavesState(t *testing.T, sub subject) {
	with := mustOpen(t, sub)
	// The node without history has a database of its own: a subtest's.
	t.Run("AgainstANodeWithout", func(t2 *testing.T) {
		without := mustOpen(t2, sub)
		with.t = t2
		for _, n := range []*node{with, without} {
			n.setup()
		}
		blocks := [][]string{{`INSERT INTO t (id, v) VALUES (3, 'c')`}, {`CREATE TABLE u (id INTEGER PRIMARY KEY)`}, {`INSERT INTO u (id) VALUES (1)`, `UPDATE t SET v = 'd' WHERE id = 1`}}
		for i, stmts := range blocks {
			h := int64(i + 2)
			for _, n := range []*node{with, without} {
				blk := n.begin()
				if err := n.tx(blk, stmts...); err != nil {
					t2.Fatalf("block %d: %v", h, err)
				}
				if n == with {
					n.appendTo(blk, h, []backend.RowVersion{hver(t2, "t", h, backend.HistoryInsert, "c")}, 0)
					n.commitOnly(blk, h)
				} else {
					n.commit(blk, h)
				}
			}
			ds, ts := with.stateOf()
			dw, tw := without.stateOf()
			if !bytes.Equal(ds, dw) || !slices.Equal(ts, tw) {
				t2.Fatalf("block %d: state %x, tables %v with history; %x, %v without", h, ds, ts, dw, tw)
			}
		}
	})
}

func testHistoryRefused(t *testing.T, sub subject, tables []string) {
	if len(tables) == 0 {
		t.Fatal("HistoryOptions.Tables names no table")
	}
	n := mustOpen(t, sub)
	n.appendBlock(1, []backend.RowVersion{hver(t, "a", 1, backend.HistoryInsert, "1")}, 0)
	for _, tbl := range tables {
		if rows, _, err := n.Query(ctx(t), "SELECT * FROM "+tbl, nil); err == nil {
			t.Errorf("a client read of %s succeeded: %v", tbl, rows)
		}
		blk := n.begin()
		for _, sql := range []string{"SELECT * FROM " + tbl, "DELETE FROM " + tbl} {
			if err := blk.Savepoint(ctx(t), sqlcheck.Env{}); err != nil {
				t.Fatal(err)
			}
			if _, err := blk.Exec(ctx(t), sql, nil); err == nil {
				t.Errorf("a block's %q succeeded", sql)
			}
			if err := blk.RollbackTo(ctx(t)); err != nil {
				t.Fatal(err)
			}
		}
		if err := blk.Rollback(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	if s, e, err := n.reader().HistoryRange(ctx(t)); err != nil || s != 1 || e != 1 {
		t.Fatalf("HistoryRange = %d, %d, %v; want 1, 1", s, e, err)
	}
}

func testHistoryNotCopied(t *testing.T, sub subject, o HistoryOptions) {
	if o.Dump == nil && o.Restore == nil {
		t.Fatal("HistoryOptions has neither Dump nor Restore")
	}
	n := mustOpen(t, sub)
	n.setup()
	n.appendBlock(2, []backend.RowVersion{hver(t, "t", 1, backend.HistoryUpdate, "kept")}, 0)
	if o.Dump != nil {
		if d := o.Dump(t, n.Backend); len(d) == 0 || bytes.Contains(d, []byte(historyMarker)) {
			t.Fatalf("the dump is empty or holds the history (%d bytes)", len(d))
		}
	}
	if o.Restore != nil {
		rb, h := o.Restore(t, n.Backend, 2)
		t.Cleanup(func() { _ = rb.Close() })
		r, ok := rb.(backend.HistoryReader)
		if !ok {
			t.Fatalf("%T is not a backend.HistoryReader", rb)
		}
		if s, e, err := r.HistoryRange(ctx(t)); err != nil || s != 0 || e != 0 {
			t.Fatalf("the restored checkpoint (at %d) holds history %d..%d (%v)", h, s, e, err)
		}
	}
}

func testHistoryTxs(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	blk := n.begin()
	for i, stmts := range [][]string{
		{`UPDATE t SET v = 'x' WHERE id = 1`},
		{`UPDATE t SET v = 'y' WHERE id = 1`, `INSERT INTO t (id, v) VALUES (3, 'c')`},
		{`INSERT INTO t (id, v) VALUES (4, 'd')`, `UPDATE t SET v = 'w' WHERE id = 2`, `INSERT INTO t (id, v) VALUES (1, 'dup') -- fails`},
		{`UPDATE t SET v = 'z' WHERE id = 2`},
	} {
		if err := n.txAt(blk, i, stmts...); (err != nil) != expectFail(stmts) {
			t.Fatalf("tx %d: %v", i, err)
		}
	}
	n.exec(blk, `INSERT INTO t (id, v) VALUES (5, 'e')`)
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	cb, ok := blk.(backend.CanonicalBlock)
	if !ok {
		t.Fatalf("%T is not a backend.CanonicalBlock", blk)
	}
	d, err := cb.CanonicalDelta(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.SchemaChanged || len(d.Tables) != 1 || d.Tables[0].Table != "t" || d.Tables[0].Err != nil {
		t.Fatalf("CanonicalDelta = %+v, want table t's rows", d)
	}
	got := map[string][]int{}
	for _, c := range d.Tables[0].Rows {
		got[string(c.Key)] = c.Txs
	}
	for id, want := range map[int64][]int{1: {0, 1}, 2: {3}, 3: {1}, 5: nil} {
		txs, ok := got[string(hkey(t, id))]
		if !ok || !slices.Equal(txs, want) {
			t.Errorf("key %d: txs %v (in the delta: %v), want %v", id, txs, ok, want)
		}
	}
	if txs, ok := got[string(hkey(t, 4))]; ok && len(txs) != 0 {
		t.Errorf("key 4, written by a tx rolled back to its savepoint only: txs %v, want none", txs)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkAppendHistory measures AppendHistory of blocks of 1,000
// versions (each a fresh key's insert of a 100-byte image) on the
// backend open gives, reporting µs per version. Each block also runs
// Begin, the digests and Commit, which the metric leaves out.
func BenchmarkAppendHistory(b *testing.B, open func(b *testing.B) backend.Backend) {
	be := open(b)
	defer be.Close()
	const per = 1000
	image := bytes.Repeat([]byte{'x'}, 100)
	var spent time.Duration
	for i := 0; b.Loop(); i++ {
		c := context.Background()
		blk, err := be.Begin(c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := blk.ChangeDigest(c); err != nil {
			b.Fatal(err)
		}
		if _, err := blk.StateDigest(c); err != nil {
			b.Fatal(err)
		}
		vs := make([]backend.RowVersion, per)
		for j := range vs {
			k, _ := rowcanon.EncodeKey([]rowcanon.Value{rowcanon.Int(int64(i*per + j))})
			vs[j] = backend.RowVersion{Table: "bench", Key: k, Op: backend.HistoryInsert, Image: image, Txs: []int{j % 7}}
		}
		h := int64(i + 1)
		start := time.Now()
		if err := blk.(backend.HistoryBlock).AppendHistory(c, hinfo(h, 7), vs, 0); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(start)
		if err := blk.Commit(c, backend.State{Height: h, AppHash: appHash(h)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(spent.Microseconds())/float64(b.N*per), "µs/version")
}
