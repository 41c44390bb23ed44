package sqlite

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// The trigger oracle: change capture by capture triggers on every table,
// as relchain captured before the pre-update hook (issue 19), kept only
// for tests (issue 34) as the oracle the hook is checked against. It is
// not a Backend: it runs blocks on a plain connection, under the same
// gate and connection setup as the writer, with a capture trigger per
// table and op re-created after every schema change as the trigger path
// did (reconcile), and digests relchain_changes in rowid order. The hook
// must give byte-identical change and effect digests and the same tx
// outcomes (capture_test.go, capture_random_test.go).

// TriggerOracle runs blocks with trigger capture on its own database.
type TriggerOracle struct {
	c        *sqlite3.Conn
	rw       *rewriter
	g        gate
	internal bool // the oracle's own statements bypass the gate
}

// OpenTriggerOracle opens (creating) the oracle's database at path.
func OpenTriggerOracle(path string) (*TriggerOracle, error) {
	c, err := sqlite3.OpenFlags(path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return nil, fmt.Errorf("trigger oracle: open %s: %w", path, err)
	}
	o := &TriggerOracle{c: c, rw: newRewriter()}
	if err := o.init(); err != nil {
		o.Close()
		return nil, fmt.Errorf("trigger oracle: %w", err)
	}
	return o, nil
}

func (o *TriggerOracle) init() error {
	if err := initConn(o.c, o.rw, false); err != nil {
		return err
	}
	if err := o.c.Exec(schema); err != nil {
		return err
	}
	var err error
	if o.g.modules, err = loadModules(o.c); err != nil {
		return err
	}
	return o.c.SetAuthorizer(func(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
		if o.internal {
			return sqlite3.AUTH_OK
		}
		return o.g.check(action, name3rd, name4th, schema, inner)
	})
}

// Close closes the oracle's connection.
func (o *TriggerOracle) Close() error {
	err := o.c.Close()
	o.rw.close()
	return err
}

// oracleFault is a failure of the oracle itself, not of a tx.
type oracleFault struct{ err error }

func (f oracleFault) Error() string { return "trigger oracle: " + f.err.Error() }
func (f oracleFault) Unwrap() error { return f.err }

// Block runs txs (each a list of statements) in one block, a savepoint per
// tx rolled back when a statement fails, and returns which txs failed and
// the block's change and effect digests.
func (o *TriggerOracle) Block(txs [][]string) (failed []bool, changes backend.Changes, err error) {
	if err := o.internalExec("BEGIN IMMEDIATE"); err != nil {
		return nil, changes, err
	}
	defer func() {
		if err != nil && !o.c.GetAutocommit() {
			o.c.Exec("ROLLBACK")
		}
	}()
	var starts []int64 // where tx i's records start: rowids above starts[i]
	for _, stmts := range txs {
		start, err := o.lastChange()
		if err != nil {
			return nil, changes, err
		}
		starts = append(starts, start)
		f, err := o.tx(stmts)
		if err != nil {
			return nil, changes, err
		}
		failed = append(failed, f)
	}
	if changes, err = o.digest(starts); err != nil {
		return nil, changes, err
	}
	return failed, changes, o.internalExec("COMMIT")
}

// tx runs one tx's statements in a savepoint; failed says a statement
// failed and the tx was rolled back.
func (o *TriggerOracle) tx(stmts []string) (failed bool, err error) {
	if err := o.internalExec("SAVEPOINT oracle_tx"); err != nil {
		return false, err
	}
	for _, s := range stmts {
		if err := o.exec(s); err != nil {
			var fault oracleFault
			if errors.As(err, &fault) {
				return false, err
			}
			failed = true
			break
		}
	}
	if failed {
		if err := o.internalExec("ROLLBACK TO oracle_tx"); err != nil {
			return false, err
		}
	}
	return failed, o.internalExec("RELEASE oracle_tx")
}

// exec runs one client statement under the gate: an ALTER TABLE first
// drops its table's capture triggers (they name its columns), and a
// statement that changed the schema reconciles the capture triggers.
func (o *TriggerOracle) exec(sql string) error {
	before, err := o.schemaVersion()
	if err != nil {
		return err
	}
	st, err := prepareGated(o.c, &o.g, sql)
	if err != nil {
		return err
	}
	defer st.Close()
	if o.g.altered != "" {
		o.internal = true
		err := ddlConn{c: o.c, internal: &o.internal}.dropCapture(o.g.altered)
		o.internal = false
		if err != nil {
			return oracleFault{err}
		}
	}
	for st.Step() {
	}
	if err := st.Err(); err != nil {
		return err
	}
	after, err := o.schemaVersion()
	if err != nil || after == before {
		return err
	}
	o.internal = true
	defer func() { o.internal = false }()
	if err := reconcileAllTriggers(o.c); err != nil {
		return oracleFault{fmt.Errorf("reconcile capture triggers: %w", err)}
	}
	return nil
}

// digest hashes the block's records as changeDigest does, each into the
// effect digest of the tx whose start lies last below its rowid, and
// empties relchain_changes.
func (o *TriggerOracle) digest(starts []int64) (backend.Changes, error) {
	o.internal = true
	defer func() { o.internal = false }()
	st, _, err := o.c.Prepare("SELECT rowid, tbl, op, img FROM relchain_changes ORDER BY rowid")
	if err != nil {
		return backend.Changes{}, oracleFault{err}
	}
	defer st.Close()
	h := sha256.New()
	effects := make(backend.EffectDigests)
	var buf []byte
	field := func(s []byte) {
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	for st.Step() {
		buf = buf[:0]
		field(st.ColumnRawText(1))
		field(st.ColumnRawText(2))
		field(st.ColumnRawText(3))
		h.Write(buf)
		tx, rowid := backend.NoTx, st.ColumnInt64(0)
		for i, s := range starts {
			if s < rowid {
				tx = i
			}
		}
		effects.Write(tx, buf)
	}
	if err := st.Err(); err != nil {
		return backend.Changes{}, oracleFault{err}
	}
	if err := o.c.Exec("DELETE FROM relchain_changes"); err != nil {
		return backend.Changes{}, oracleFault{err}
	}
	return backend.Changes{Block: h.Sum(nil), Effects: effects.Sums()}, nil
}

func (o *TriggerOracle) internalExec(sql string) error {
	o.internal = true
	defer func() { o.internal = false }()
	if err := o.c.Exec(sql); err != nil {
		return oracleFault{fmt.Errorf("%s: %w", sql, err)}
	}
	return nil
}

func (o *TriggerOracle) lastChange() (int64, error) {
	return o.int64Of("SELECT coalesce(max(rowid), 0) FROM relchain_changes")
}

func (o *TriggerOracle) schemaVersion() (int64, error) {
	return o.int64Of("PRAGMA schema_version")
}

func (o *TriggerOracle) int64Of(sql string) (int64, error) {
	o.internal = true
	defer func() { o.internal = false }()
	st, _, err := o.c.Prepare(sql)
	if err != nil {
		return 0, oracleFault{err}
	}
	defer st.Close()
	var v int64
	if st.Step() {
		v = st.ColumnInt64(0)
	}
	if err := st.Err(); err != nil {
		return 0, oracleFault{err}
	}
	return v, nil
}

// reconcileAllTriggers creates and drops relchain's triggers on c to match
// the schema as the trigger path did: every replicated table's capture
// triggers and every rowid table's guard, stale ones dropped first, both
// in name order.
func reconcileAllTriggers(c *sqlite3.Conn) error {
	tables, err := replicatedTables(c)
	if err != nil {
		return err
	}
	existing, err := captureTriggersOn(c)
	if err != nil {
		return err
	}
	want := make(map[string]string)
	for _, t := range tables {
		for _, op := range []string{"I", "U", "D"} {
			name, sql := triggerSQL(t, op)
			want[name] = sql
		}
		if name, sql := guardSQL(t); name != "" {
			want[name] = sql
		}
	}
	for _, name := range sortedKeys(existing) {
		if want[name] != existing[name] {
			if err := c.Exec("DROP TRIGGER " + quoteIdent(name)); err != nil {
				return err
			}
		}
	}
	for _, name := range sortedKeys(want) {
		if existing[name] != want[name] {
			if err := c.Exec(want[name]); err != nil {
				return err
			}
		}
	}
	return nil
}

// captureTriggersOn returns relchain's triggers on c, name -> sql.
func captureTriggersOn(c *sqlite3.Conn) (map[string]string, error) {
	st, _, err := c.Prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'relchain\_cap\_%' ESCAPE '\'`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	m := make(map[string]string)
	for st.Step() {
		m[st.ColumnText(0)] = st.ColumnText(1)
	}
	return m, st.Err()
}

// MakeTriggerEra gives the closed database at path what a database written
// before the hook had: capture triggers on every replicated table. A
// backend that opens it must drop them (openCapture).
func MakeTriggerEra(path string) error {
	c, err := sqlite3.Open(path)
	if err != nil {
		return fmt.Errorf("make %s trigger-era: %w", path, err)
	}
	defer c.Close()
	if err := c.Exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("make %s trigger-era: %w", path, err)
	}
	if err := reconcileAllTriggers(c); err != nil {
		c.Exec("ROLLBACK")
		return fmt.Errorf("make %s trigger-era: %w", path, err)
	}
	if err := c.Exec("COMMIT"); err != nil {
		return fmt.Errorf("make %s trigger-era: %w", path, err)
	}
	return nil
}
