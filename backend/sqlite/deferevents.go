package sqlite

import (
	"fmt"
	"slices"

	sqlite3 "github.com/ncruces/go-sqlite3"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// PostgreSQL queues a deferred foreign key's check as a trigger event of
// the row's table (an INSERT into the referencing table, a DELETE from the
// referenced one, an UPDATE of the key) and refuses DROP TABLE, ALTER
// TABLE, TRUNCATE and CREATE INDEX of a table with pending events (55006
// `cannot ALTER TABLE "c" because it has pending trigger events`) until
// the tx ends or SET CONSTRAINTS ALL IMMEDIATE fires them. SQLite keeps a
// count, no events: fkEvents remembers, per tx, the tables whose rows the
// postgres dialect's statements changed while deferred, and pendingDDL
// gives PostgreSQL's answer (DESIGN.md, "Deferred foreign keys").

// fkEvents are the open tx's row changes that may have queued events.
type fkEvents struct {
	inserted map[string]bool     // tables rows were inserted into
	deleted  map[string]bool     // tables rows were deleted from
	updated  map[string][]string // tables rows were updated in: the columns set
}

func (e *fkEvents) empty() bool {
	return len(e.inserted) == 0 && len(e.deleted) == 0 && len(e.updated) == 0
}

// noteEvents records the row changes of a statement that changed rows
// while deferred keys are deferred. The caller holds wmu.
// A failure to read the schema is the node's (an error, never a verdict).
func (b *Backend) noteEvents(sql string, rows *backend.Rows) error {
	if b.fkImmediate || rows == nil || rows.RowsAffected == 0 {
		return nil
	}
	if some, err := b.hasDeferredKeys(); err != nil || !some {
		return err
	}
	ev, ok := b.fkEvCache[sql]
	if !ok {
		ev = rowEventsOf(sql)
		if b.fkEvCache == nil || len(b.fkEvCache) >= maxCachedTranslations {
			b.fkEvCache = make(map[string]rowEvents)
		}
		b.fkEvCache[sql] = ev
	}
	e := &b.fkEv
	mark := func(m *map[string]bool) {
		if *m == nil {
			*m = make(map[string]bool)
		}
		(*m)[ev.table] = true
	}
	switch ev.kind {
	case 'i':
		mark(&e.inserted)
	case 'd':
		mark(&e.deleted)
	}
	if len(ev.set) > 0 {
		if e.updated == nil {
			e.updated = make(map[string][]string)
		}
		for _, c := range ev.set {
			if !slices.Contains(e.updated[ev.table], c) {
				e.updated[ev.table] = append(e.updated[ev.table], c)
			}
		}
	}
	return nil
}

// rowEvents is what a DML statement's text tells of the events its row
// changes queue: its kind ('i' INSERT, 'u' UPDATE, 'd' DELETE, 0 other),
// its table and the columns it sets (UPDATE, INSERT ... ON CONFLICT DO
// UPDATE). A function of the text: Backend.fkEvCache keeps it.
type rowEvents struct {
	kind  byte
	table string
	set   []string
}

func rowEventsOf(sql string) rowEvents {
	if prescan.Check(sql, prescan.PostgreSQL) != nil {
		return rowEvents{} // the gate refused it first
	}
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return rowEvents{}
	}
	names := func(targets []*pg_query.Node) []string {
		var out []string
		for _, t := range targets {
			out = append(out, t.GetResTarget().GetName())
		}
		return out
	}
	switch s := tree.GetStmts()[0].GetStmt(); {
	case s.GetInsertStmt() != nil:
		ins := s.GetInsertStmt()
		return rowEvents{kind: 'i', table: ins.GetRelation().GetRelname(), set: names(ins.GetOnConflictClause().GetTargetList())}
	case s.GetDeleteStmt() != nil:
		return rowEvents{kind: 'd', table: s.GetDeleteStmt().GetRelation().GetRelname()}
	case s.GetUpdateStmt() != nil:
		return rowEvents{kind: 'u', table: s.GetUpdateStmt().GetRelation().GetRelname(), set: names(s.GetUpdateStmt().GetTargetList())}
	}
	return rowEvents{}
}

// ddlTargets are the tables a DDL statement PostgreSQL checks for pending
// events acts on, with the verb of its message; none for other statements.
func ddlTargets(sql string) (string, []string) {
	if prescan.Check(sql, prescan.PostgreSQL) != nil {
		return "", nil // the gate refused it first
	}
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return "", nil
	}
	switch s := tree.GetStmts()[0].GetStmt(); {
	case s.GetDropStmt() != nil && s.GetDropStmt().GetRemoveType() == pg_query.ObjectType_OBJECT_TABLE:
		var names []string
		for _, o := range s.GetDropStmt().GetObjects() {
			if items := o.GetList().GetItems(); len(items) > 0 {
				names = append(names, items[len(items)-1].GetString_().GetSval())
			}
		}
		return "DROP TABLE", names
	case s.GetAlterTableStmt() != nil:
		return "ALTER TABLE", []string{s.GetAlterTableStmt().GetRelation().GetRelname()}
	case s.GetTruncateStmt() != nil:
		var names []string
		for _, r := range s.GetTruncateStmt().GetRelations() {
			names = append(names, r.GetRangeVar().GetRelname())
		}
		return "TRUNCATE", names
	case s.GetIndexStmt() != nil:
		return "CREATE INDEX", []string{s.GetIndexStmt().GetRelation().GetRelname()}
	}
	return "", nil
}

// deferredKey is one foreign key of a table whose DDL holds a deferred
// key: its table, the referenced table, a column of each.
type deferredKey struct {
	child, parent, from, to string
	id                      int64 // the child's pragma_foreign_key_list id
}

// pendingDDL is PostgreSQL's refusal of DDL on a table with pending
// events (55006), nil when it has none. An UPDATE queues an event only
// when it changed a key's value, which the statement's text does not tell:
// DDL after an UPDATE that set a key column is refused (0A000). The caller
// holds wmu.
func (b *Backend) pendingDDL(sql string) error {
	if b.fkEv.empty() {
		return nil
	}
	verb, tables := ddlTargets(sql)
	if len(tables) == 0 {
		return nil
	}
	keys, err := b.deferredKeys()
	if err != nil {
		return err
	}
	for _, t := range tables {
		var child, parent, keyUpdate bool
		for _, k := range keys {
			if _, named := b.fkNamed[fkKey{table: k.child, id: k.id}.keyID()]; named {
				continue // immediate: its events fired at SET CONSTRAINTS
			}
			set := b.fkEv.updated[t]
			child = child || k.child == t && b.fkEv.inserted[t]
			parent = parent || k.parent == t && b.fkEv.deleted[t]
			keyUpdate = keyUpdate || k.child == t && slices.Contains(set, k.from) || k.parent == t && slices.Contains(set, k.to)
		}
		switch {
		case child || parent:
			return &backend.Error{Class: backend.ClassOfSQLState("55006"), SQLState: "55006",
				Message: fmt.Sprintf("cannot %s %q because it has pending trigger events", verb, t)}
		case keyUpdate:
			return &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
				Message: fmt.Sprintf("%s of %q after an UPDATE of a deferred foreign key's column in the same transaction is not supported (PostgreSQL refuses it when the key's value changed: pending trigger events); run SET CONSTRAINTS ALL IMMEDIATE first", verb, t)}
		}
	}
	return nil
}

// deferredKeys lists the foreign keys of the tables whose DDL holds a
// DEFERRABLE INITIALLY DEFERRED key (a table's other keys with them).
func (b *Backend) deferredKeys() ([]deferredKey, error) {
	b.internal = true
	defer func() { b.internal = false }()
	var out []deferredKey
	q, _, err := b.w.Prepare(`SELECT s.name, f."table", f."from", f."to", f.id FROM sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f
		WHERE s.type = 'table' AND instr(s.sql, 'DEFERRABLE INITIALLY DEFERRED') > 0 ORDER BY s.rowid, f.id, f.seq`)
	err = forRows(q, err, nil, func(st *sqlite3.Stmt) {
		out = append(out, deferredKey{st.ColumnText(0), st.ColumnText(1), st.ColumnText(2), st.ColumnText(3), st.ColumnInt64(4)})
	})
	if err != nil {
		return nil, fmt.Errorf("read the deferred foreign keys: %w", err)
	}
	return out, nil
}

// hasDeferredKeys reports whether a table's DDL holds a DEFERRABLE
// INITIALLY DEFERRED key, read once per schema (dropStatements forgets).
func (b *Backend) hasDeferredKeys() (bool, error) {
	if b.deferredSchema != 0 {
		return b.deferredSchema > 0, nil
	}
	b.internal = true
	defer func() { b.internal = false }()
	found := false
	q, _, err := b.w.Prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND instr(sql, 'DEFERRABLE INITIALLY DEFERRED') > 0 LIMIT 1`)
	if err := forRows(q, err, nil, func(*sqlite3.Stmt) { found = true }); err != nil {
		return false, fmt.Errorf("read the deferred foreign keys: %w", err)
	}
	b.deferredSchema = -1
	if found {
		b.deferredSchema = 1
	}
	return found, nil
}
