package sqlite

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// Change capture from SQLite's pre-update hook (issue 19, item 1), the
// only one since issue 34: capture by triggers on every table survives
// only in the tests, as the oracle (triggeroracle_export_test.go).
//
// SQLite calls the writer's pre-update hook before every row it inserts,
// updates or deletes — the statement's own rows and those of triggers and
// foreign-key actions — and the hook builds the records the capture
// triggers would have written into relchain_changes (table, op, image) in
// memory, with the image their quote() expression gives (rowImage). A
// record belongs to the tx whose savepoint is open when its row changes; a
// rollback to the savepoint, a failed statement and a rolled-back block
// drop the records they undid.
//
// The records must come in the order the triggers would have written them.
// A capture trigger is an AFTER trigger: it writes a row's record after the
// row changed, after the foreign-key actions the row fired and after the
// AFTER triggers newer than it (SQLite fires a table's newest trigger
// first). The hook cannot see where those end: nothing tells it that the
// rows changed next belong to the previous row's actions rather than to
// the BEFORE triggers of the next row, the next statement of a trigger
// body, or an older AFTER trigger. So a table that has user triggers, or
// that is the parent of a foreign key with an action (CASCADE, SET NULL,
// SET DEFAULT), keeps its capture triggers, created and re-created exactly
// when the trigger path would have them (reconcileTriggers), and the hook
// takes their inserts into relchain_changes as that table's records, where
// they happen (triggerRecord). Every other table's row has no actions and
// no AFTER trigger but its capture trigger, which would fire right after
// the row changed: the hook writes its record at once. The digest then
// empties relchain_changes. Smallbank and TPC-C have neither user triggers
// nor foreign-key actions, so they fire no trigger at all.
//
// The records are byte for byte the trigger path's (TestHookCaptureMatchesTriggers,
// TestHookCaptureMatchesTriggersRandom) for the same statements. Tx
// outcomes differ only at the work limit (worklimit.go counts SQLite VM
// instructions, the capture triggers' too): a statement the triggers'
// instructions pushed over the limit passes with the hook. So the switch
// was a change of consensus at that margin, made by a network's
// validators together, with the release. REPLACE as a conflict algorithm stays
// refused (replace.go): a capture trigger does not see its deletes.
//
// The hook captures only the writer's own changes: see tamper.go for how
// changes made by another connection are found.

// capTable is how the hook builds a replicated table's row image.
type capTable struct {
	cols []int  // the record's column index of each image column, in declaration order
	real []bool // the image column has REAL affinity
	// triggered holds the ops (I, U, D) whose capture trigger the table
	// has (a table with user triggers): their records come from the
	// trigger's insert into relchain_changes, not from the hook.
	triggered string
}

// capRecord is one change record; its image is arena[from:to].
type capRecord struct {
	tbl      string
	op       byte
	from, to int
	tx       int
}

// hookCapture is the writer's capture state, guarded by wmu
// (the hook runs inside the writer's statements).
type hookCapture struct {
	tables map[string]*capTable // replicated tables as of schema version ver
	ver    int64
	// userTriggers are the names of the client's triggers as of ver (see
	// reconcileTriggers).
	userTriggers map[string]bool
	// triggerRecords: a capture trigger wrote into relchain_changes since
	// the last digest, which then empties it.
	triggerRecords bool
	records        []capRecord
	arena          []byte
	// held are the images of rows of tables with capture triggers, by
	// table, each waiting for its trigger's insert into relchain_changes
	// (triggerRecord): innermost last.
	held   map[string][]heldImages
	txMark captureMark // where the tx's savepoint opened
	stmt   captureMark // where the running statement started
	skip   string      // a table whose rows are not captured (ALTER TABLE's)
	cut    bool        // image cut a text at a NUL (see changedRows.cut)
	err    error       // the first failure inside the hook
	quoter *sqlite3.Conn
	quote  *sqlite3.Stmt // SELECT quote(?1) on quoter, for REAL values

	dataVersion int64 // the writer's PRAGMA data_version after its last check
	verifyNext  bool  // the next Begin compares every table with its sum
}

// heldImages are the images (old, new; either may be empty) of one row
// change of a table with capture triggers, in the arena.
type heldImages struct{ old, new capRecord }

// captureMark is a point to drop records back to.
type captureMark struct{ records, arena int }

// mark returns the current point.
func (h *hookCapture) mark() captureMark {
	return captureMark{records: len(h.records), arena: len(h.arena)}
}

// onPreUpdate is the writer's pre-update hook.
func (b *Backend) onPreUpdate(d sqlite3.PreUpdateData) {
	h := &b.hook
	if h.err != nil || d.Schema != "main" || d.Table == h.skip {
		return
	}
	tx := backend.NoTx
	if b.txOpen {
		tx = b.curTx
	}
	t := h.tables[d.Table]
	if t == nil {
		if d.Table == changesTable && d.Op == sqlite3.AUTH_INSERT {
			h.triggerRecord(d, tx)
		}
		return // relchain's, SQLite's or a virtual table
	}
	image := func(op byte, val func(int) (sqlite3.Value, error)) capRecord {
		from := len(h.arena)
		if err := h.image(t, val); err != nil {
			h.arena = h.arena[:from]
			h.err = fmt.Errorf("capture a change of %s: %w", d.Table, err)
			return capRecord{}
		}
		if h.cut {
			h.cut = false
			b.changed.cutAt(d.Table)
		}
		return capRecord{tbl: d.Table, op: op, from: from, to: len(h.arena), tx: tx}
	}
	var old, new capRecord
	switch d.Op {
	case sqlite3.AUTH_INSERT:
		new = image('I', d.New)
	case sqlite3.AUTH_DELETE:
		old = image('D', d.Old)
	case sqlite3.AUTH_UPDATE:
		old, new = image('B', d.Old), image('U', d.New)
	}
	if t.triggered != "" && strings.IndexByte(t.triggered, opOf(d.Op)) >= 0 {
		// Its capture trigger places the record (triggerRecord).
		if h.held == nil {
			h.held = make(map[string][]heldImages)
		}
		h.held[d.Table] = append(h.held[d.Table], heldImages{old: old, new: new})
		return
	}
	for _, r := range []capRecord{old, new} {
		if r.op != 0 {
			h.records = append(h.records, r)
		}
	}
}

// opOf is the capture trigger's op letter of a pre-update hook's op.
func opOf(op sqlite3.AuthorizerActionCode) byte {
	switch op {
	case sqlite3.AUTH_INSERT:
		return 'I'
	case sqlite3.AUTH_UPDATE:
		return 'U'
	}
	return 'D'
}

// triggerRecord places a record where a capture trigger inserts it into
// relchain_changes (tbl, op, img), with the image the hook took when the
// row changed. They are the same but in one case: a BEFORE trigger that
// changed the very row its statement then updates or deletes (SQLite calls
// the outcome undefined) leaves the trigger's OLD as it was before the
// BEFORE trigger ran, so the trigger path removed a row image that was no
// longer in the table from the table's sum; the hook's image is the row
// SQLite actually changed. The trigger's own image is read only when no
// held image matches (never so, as long as every captured row went
// through the hook).
func (h *hookCapture) triggerRecord(d sqlite3.PreUpdateData, tx int) {
	tbl, op, ok := h.triggerKey(d)
	if !ok {
		return
	}
	if stack := h.held[tbl]; len(stack) > 0 {
		top := stack[len(stack)-1]
		img := top.new
		if op == 'B' || op == 'D' {
			img = top.old
		}
		if img.op == op {
			if op != 'B' { // an update's 'U' follows its 'B' in the same INSERT
				h.held[tbl] = stack[:len(stack)-1]
			}
			h.records = append(h.records, img)
			h.triggerRecords = true
			return
		}
	}
	v, err := d.New(2)
	if err != nil {
		h.err = fmt.Errorf("capture a trigger's record: %w", err)
		return
	}
	from := len(h.arena)
	h.arena = append(h.arena, v.RawText()...)
	h.records = append(h.records, capRecord{tbl: tbl, op: op, from: from, to: len(h.arena), tx: tx})
	h.triggerRecords = true
}

// triggerKey reads the table and op of the record a capture trigger
// inserts into relchain_changes.
func (h *hookCapture) triggerKey(d sqlite3.PreUpdateData) (tbl string, op byte, ok bool) {
	t, err := d.New(0)
	if err != nil {
		h.err = fmt.Errorf("capture a trigger's record: %w", err)
		return "", 0, false
	}
	o, err := d.New(1)
	if err != nil {
		h.err = fmt.Errorf("capture a trigger's record: %w", err)
		return "", 0, false
	}
	if raw := o.RawText(); len(raw) == 1 {
		return t.Text(), raw[0], true
	}
	h.err = fmt.Errorf("capture a trigger's record: op %q", o.RawText())
	return "", 0, false
}

// startStatement is called before a client statement runs; skip is a table
// whose rows it does not capture ("" for none).
func (h *hookCapture) startStatement(skip string) {
	h.stmt, h.skip = h.mark(), skip
}

// endStatement drops the statement's records when it failed (SQLite undid
// its changes), and returns a failure of the hook itself (a node-local
// fault, never a tx result).
func (h *hookCapture) endStatement(failed bool) error {
	h.skip = ""
	clear(h.held) // every capture trigger fired within the statement
	if failed {
		h.truncate(h.stmt)
	}
	err := h.err
	h.err = nil
	return err
}

// truncate drops the records written since m.
func (h *hookCapture) truncate(m captureMark) {
	if m.records < len(h.records) {
		h.records = h.records[:m.records]
	}
	if m.arena < len(h.arena) {
		h.arena = h.arena[:m.arena]
	}
}

// reset drops every record.
func (h *hookCapture) reset() {
	h.records, h.arena, h.triggerRecords = h.records[:0], h.arena[:0], false
	clear(h.held)
	h.txMark, h.stmt, h.skip, h.err = captureMark{}, captureMark{}, "", nil
}

// dropGone drops the records the running statement wrote for tables that
// no longer exist (DROP TABLE deletes its rows first when foreign keys are
// on: the capture triggers were not fired for them).
func (h *hookCapture) dropGone() {
	kept := h.records[:h.stmt.records]
	for _, r := range h.records[h.stmt.records:] {
		if h.tables[r.tbl] != nil {
			kept = append(kept, r)
		}
	}
	h.records = kept
}

// image appends the row image (rowImage's text) of t's row to the arena.
func (h *hookCapture) image(t *capTable, val func(int) (sqlite3.Value, error)) error {
	for i, c := range t.cols {
		if i > 0 {
			h.arena = append(h.arena, ',')
		}
		v, err := val(c)
		if err != nil {
			return err
		}
		switch v.Type() {
		case sqlite3.NULL:
			h.arena = append(h.arena, "NULL"...)
		case sqlite3.INTEGER:
			if t.real[i] {
				// SQLite stores a whole REAL as an integer in the record;
				// the trigger's NEW/OLD gives it back as a REAL.
				err = h.appendReal(float64(v.Int64()))
			} else {
				h.arena = strconv.AppendInt(h.arena, v.Int64(), 10)
			}
		case sqlite3.FLOAT:
			err = h.appendReal(v.Float())
		case sqlite3.TEXT:
			var cut bool
			h.arena, cut = appendQuotedText(h.arena, v.RawText())
			h.cut = h.cut || cut
		case sqlite3.BLOB:
			h.arena = appendQuotedBlob(h.arena, v.RawBlob())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// appendQuotedText is quote() of a text: SQLite's %Q, which stops at the
// first NUL (cut reports one).
func appendQuotedText(dst, s []byte) (out []byte, cut bool) {
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s, cut = s[:i], true
	}
	dst = append(dst, '\'')
	for {
		i := bytes.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, '\'')
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '\''), cut
}

// appendQuotedBlob is quote() of a BLOB: X and its upper-case hex digits
// in single quotes.
func appendQuotedBlob(dst, p []byte) []byte {
	dst = append(dst, "X'"...)
	n := len(dst)
	dst = hex.AppendEncode(dst, p)
	for i := n; i < len(dst); i++ {
		if c := dst[i]; c >= 'a' && c <= 'f' {
			dst[i] = c - 'a' + 'A'
		}
	}
	return append(dst, '\'')
}

// appendReal is quote() of a REAL, computed by SQLite itself on a private
// connection: its text (15 significant digits when they round-trip, else
// 20) is SQLite's own float formatting, which Go's differs from.
func (h *hookCapture) appendReal(r float64) error {
	if h.quote == nil {
		c, err := sqlite3.Open(":memory:")
		if err != nil {
			return fmt.Errorf("open the quote helper: %w", err)
		}
		st, _, err := c.Prepare("SELECT quote(?1)")
		if err != nil {
			c.Close()
			return fmt.Errorf("open the quote helper: %w", err)
		}
		h.quoter, h.quote = c, st
	}
	st := h.quote
	err := st.BindFloat(1, r)
	if err == nil && st.Step() {
		h.arena = append(h.arena, st.ColumnRawText(0)...)
	}
	if err == nil {
		err = st.Err()
	}
	if rerr := st.Reset(); err == nil {
		err = rerr
	}
	return err
}

// close closes the quote helper.
func (h *hookCapture) close() error {
	if h.quoter == nil {
		return nil
	}
	err := errors.Join(h.quote.Close(), h.quoter.Close())
	h.quoter, h.quote = nil, nil
	return err
}

// loadCapTables reads how to image every replicated table from the
// writer's schema (version ver). The caller sets the internal flag.
func (b *Backend) loadCapTables(ver int64) error {
	infos, err := b.replicatedTables()
	if err != nil {
		return fmt.Errorf("load tables for change capture: %w", err)
	}
	st, _, err := b.w.Prepare("SELECT name, type, hidden FROM pragma_table_xinfo(?) ORDER BY cid")
	if err != nil {
		return fmt.Errorf("load tables for change capture: %w", err)
	}
	defer st.Close()
	existing, err := b.captureTriggers()
	if err != nil {
		return fmt.Errorf("load tables for change capture: %w", err)
	}
	user, err := b.userTriggers()
	if err != nil {
		return fmt.Errorf("load tables for change capture: %w", err)
	}
	b.hook.userTriggers = make(map[string]bool)
	for _, ts := range user {
		for _, t := range ts {
			b.hook.userTriggers[t.name] = true
		}
	}
	tables := make(map[string]*capTable, len(infos))
	for _, info := range infos {
		t := &capTable{}
		for _, op := range []string{"I", "U", "D"} {
			if name, _ := triggerSQL(info, op); existing[name] != "" {
				t.triggered += op
			}
		}
		if err := st.BindText(1, info.name); err != nil {
			return err
		}
		for i := 0; st.Step(); i++ {
			if st.ColumnInt(2) != 0 {
				continue // generated: not in table_info, not in the image
			}
			t.cols = append(t.cols, i)
			t.real = append(t.real, affinityIsReal(st.ColumnText(1)))
		}
		if err := errors.Join(st.Err(), st.Reset()); err != nil {
			return fmt.Errorf("load columns of %s: %w", info.name, err)
		}
		if len(t.cols) != len(info.cols) {
			return fmt.Errorf("load columns of %s: %d columns, table_info has %d", info.name, len(t.cols), len(info.cols))
		}
		tables[info.name] = t
	}
	b.hook.tables, b.hook.ver = tables, ver
	return nil
}

// affinityIsReal applies SQLite's column affinity rules (in their order)
// to a declared type: REAL affinity is REAL, FLOA or DOUB with neither
// INT, CHAR, CLOB, TEXT nor BLOB before them in the rules.
func affinityIsReal(decl string) bool {
	u := strings.ToUpper(decl)
	switch {
	case strings.Contains(u, "INT"):
		return false
	case strings.Contains(u, "CHAR"), strings.Contains(u, "CLOB"), strings.Contains(u, "TEXT"):
		return false
	case strings.Contains(u, "BLOB"):
		return false
	}
	return strings.Contains(u, "REAL") || strings.Contains(u, "FLOA") || strings.Contains(u, "DOUB")
}

// openCapture readies the writer's capture at Open: it drops the capture
// triggers of tables that need none (all of them in a database written
// before the hook, issue 19; the rowid guards stay), loads the tables'
// columns, reads data_version and registers the hook; the first Begin
// then compares every table with its sum (tamper.go).
func (b *Backend) openCapture() error {
	b.internal = true
	defer func() { b.internal = false }()
	if err := b.inWriteTx("drop capture triggers", b.reconcileTriggers); err != nil {
		return err
	}
	v, err := b.schemaVersion()
	if err != nil {
		return err
	}
	if err := b.loadCapTables(v); err != nil {
		return err
	}
	if b.hook.dataVersion, err = b.dataVersion(); err != nil {
		return err
	}
	b.hook.verifyNext = true
	b.w.PreUpdateHook(b.onPreUpdate)
	return nil
}

// inWriteTx runs fn in a write transaction of the writer.
func (b *Backend) inWriteTx(what string, fn func() error) error {
	if err := b.w.Exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := fn(); err != nil {
		b.w.Exec("ROLLBACK")
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := b.w.Exec("COMMIT"); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// hookDigest writes the records the hook kept into the block's change
// digest h and their txs' effect digests, then drops them. A record's
// bytes are its table, op and image, each a big-endian uint64 length and
// the bytes.
// opBytes holds every byte value at its own index: opBytes[c:c+1] is the
// one-byte slice of c, shared, without an allocation per record.
var opBytes = func() (b [256]byte) {
	for i := range 256 {
		b[i] = byte(i)
	}
	return b
}()

func (b *Backend) hookDigest(h hash.Hash, effects backend.EffectDigests) {
	var buf []byte
	field := func(s []byte) {
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	// The state digest's part (an LtHash element per image, the costly
	// part) is a sum: it runs on the other cores while this goroutine
	// hashes the records in capture order (backend.RecordParallel).
	recs, arena := b.hook.records, b.hook.arena
	wait := b.delta.RecordParallel(len(recs), 0, func(i int) (table, op, image []byte) {
		r := &recs[i]
		return []byte(r.tbl), opBytes[r.op : int(r.op)+1], arena[r.from:r.to]
	})
	var op [1]byte
	for _, r := range recs {
		tbl, img := []byte(r.tbl), arena[r.from:r.to]
		op[0] = r.op
		buf = buf[:0]
		field(tbl)
		field(op[:])
		field(img)
		h.Write(buf)
		effects.Write(r.tx, buf)
	}
	wait()
	if b.opts.pg {
		b.changed.add(b.hook.records, b.hook.arena)
		// A rollback to the open savepoint would leave them in changed.
		b.changed.reread = b.changed.reread || (b.txOpen && len(b.hook.records) > 0)
	}
	b.hook.reset()
}

// beginCapture readies capture for a block, inside its BEGIN IMMEDIATE on
// schema version v: the tables' columns if the schema changed
// (out of band, or a rolled-back block's DDL) and the out-of-band checks
// (tamper.go).
func (b *Backend) beginCapture(v int64) error {
	b.hook.reset()
	b.internal = true
	defer func() { b.internal = false }()
	if v != b.hook.ver {
		if err := b.loadCapTables(v); err != nil {
			return err
		}
	}
	return b.checkDataVersion()
}
