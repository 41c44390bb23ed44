package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend"
)

// SET CONSTRAINTS with constraint names (Django's AddField of a foreign
// key writes `SET CONSTRAINTS "name" IMMEDIATE` after the ADD COLUMN). A
// named DEFERRABLE INITIALLY DEFERRED key made IMMEDIATE is checked at once
// and at the end of every later statement of the tx by a scan of its
// table (pragma_foreign_key_check, on the work limit) while SQLite's count
// is above zero: the count alone cannot tell one key from another. Making
// a key DEFERRED alone is refused where SQLite checks it per statement (an
// INITIALLY IMMEDIATE key, or any key under ALL IMMEDIATE).

// fkKey is one foreign key of the schema as SET CONSTRAINTS names it.
type fkKey struct {
	table      string
	id         int64 // pragma_foreign_key_list's id
	name       string
	deferrable bool
	deferred   bool // INITIALLY DEFERRED: SQLite counts its violations
}

// foreignKeys lists the schema's foreign keys with their names (as the
// emulated catalog gives them) and deferrability (from the DDL text the
// translator wrote). The caller holds wmu.
func (b *Backend) foreignKeys() ([]fkKey, map[string]bool, error) {
	b.internal = true
	defer func() { b.internal = false }()
	s, err := schemaOf(b.w)
	if err != nil {
		return nil, nil, err
	}
	tables, err := userTables(b.w)
	if err != nil {
		return nil, nil, err
	}
	ddl := map[string]string{}
	for _, t := range tables {
		ddl[t.name] = t.sql
	}
	var keys []fkKey
	others := map[string]bool{} // names of the other constraints
	for _, t := range s.Tables {
		flags := fkDeferrability(ddl[t.Name])
		n := len(t.ForeignKeys)
		for i, fk := range t.ForeignKeys {
			k := fkKey{table: t.Name, id: int64(n - 1 - i), name: fk.Name}
			if i < len(flags) {
				k.deferrable, k.deferred = flags[i][0], flags[i][1]
			}
			keys = append(keys, k)
		}
		others[t.PrimaryKeyName] = true
		for _, u := range t.Uniques {
			others[u.Name] = true
		}
		for _, c := range t.Checks {
			others[c.Name] = true
		}
	}
	return keys, others, nil
}

// fkDeferrability reads, in declaration order, each REFERENCES clause of
// a CREATE TABLE text the translator wrote: whether DEFERRABLE and
// INITIALLY DEFERRED follow it (before the next REFERENCES).
func fkDeferrability(sql string) [][2]bool {
	var body *ddlToken
	for _, t := range ddlTokens(sql) {
		if t.kind == tokGroup {
			body = &t
			break
		}
	}
	if body == nil {
		return nil
	}
	var out [][2]bool
	for _, el := range splitTop(body.text[1 : len(body.text)-1]) {
		toks := ddlTokens(el)
		for i, t := range toks {
			if t.kind != tokWord {
				continue
			}
			switch w := strings.ToUpper(t.text); {
			case w == "REFERENCES":
				out = append(out, [2]bool{})
			case len(out) == 0:
			case w == "DEFERRABLE" && (i == 0 || !strings.EqualFold(toks[i-1].text, "NOT")):
				out[len(out)-1][0] = true
			case w == "DEFERRED" && i > 0 && strings.EqualFold(toks[i-1].text, "INITIALLY"):
				out[len(out)-1][1] = true
			}
		}
	}
	return out
}

// keyID identifies a key in Backend.fkNamed.
func (k fkKey) keyID() string { return fmt.Sprintf("%s\x00%d", k.table, k.id) }

// namedKeys resolves SET CONSTRAINTS' names as PostgreSQL does: every
// deferrable foreign key of that name (names are unique per table only);
// 42704 for a name no constraint has; 42809 for DEFERRED of a constraint
// that is not deferrable (IMMEDIATE leaves it as it is).
func (b *Backend) namedKeys(names []string, deferred bool) ([]fkKey, error) {
	keys, others, err := b.foreignKeys()
	if err != nil {
		return nil, err
	}
	var out []fkKey
	for _, n := range names {
		found := false
		for _, k := range keys {
			if k.name != n {
				continue
			}
			found = true
			switch {
			case k.deferrable:
				out = append(out, k)
			case deferred:
				return nil, notDeferrable(n)
			}
		}
		switch {
		case !found && others[n] && deferred:
			return nil, notDeferrable(n)
		case !found && !others[n]:
			return nil, &backend.Error{Class: backend.ClassOfSQLState("42704"), SQLState: "42704", Message: fmt.Sprintf("constraint %q does not exist", n)}
		}
	}
	return out, nil
}

func notDeferrable(name string) error {
	return &backend.Error{Class: backend.ClassOfSQLState("42809"), SQLState: "42809", Message: fmt.Sprintf("constraint %q is not deferrable", name)}
}

// setNamed runs SET CONSTRAINTS names IMMEDIATE / DEFERRED; the caller
// holds wmu.
func (b *Backend) setNamed(ctx context.Context, names []string, deferred bool) error {
	keys, err := b.namedKeys(names, deferred)
	if err != nil {
		return err
	}
	for _, k := range keys {
		switch {
		case deferred && (!k.deferred || b.fkImmediate):
			return &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000",
				Message: fmt.Sprintf("SET CONSTRAINTS %q DEFERRED is not supported where SQLite checks that key per statement (DEFERRABLE INITIALLY IMMEDIATE, or after SET CONSTRAINTS ALL IMMEDIATE)", k.name)}
		case deferred:
			delete(b.fkNamed, k.keyID())
		case k.deferred && !b.fkImmediate:
			if b.fkNamed == nil {
				b.fkNamed = make(map[string]fkKey)
			}
			b.fkNamed[k.keyID()] = k
		}
	}
	if deferred {
		return nil
	}
	return b.checkNamed(ctx)
}

// checkNamed fails (23503) while a key made IMMEDIATE by name is violated:
// at SET CONSTRAINTS and at the end of each later statement. SQLite's
// count says whether any deferred key is violated; only then are the
// named keys' tables scanned, on the work limit. The caller holds wmu.
func (b *Backend) checkNamed(ctx context.Context) error {
	if len(b.fkNamed) == 0 {
		return nil
	}
	pending, err := b.deferredPending()
	if err != nil || !pending {
		return err
	}
	b.internal = true
	defer func() { b.internal = false }()
	st, _, err := b.w.Prepare(`SELECT 1 FROM pragma_foreign_key_check(?1) WHERE fkid = ?2 LIMIT 1`)
	if err != nil {
		return fmt.Errorf("check foreign keys: %w", err)
	}
	defer st.Close()
	f := newFuel(ctx, b.workLimit)
	for _, id := range sortedKeys(namedIDs(b.fkNamed)) {
		k := b.fkNamed[id]
		rows, err := b.runOnFuel(st, []any{k.table, k.id}, f)
		st.Reset()
		if err != nil {
			return err // the work limit is the statement's failure; others the node's
		}
		if len(rows.Rows) > 0 {
			return &backend.Error{Class: backend.ClassConstraint, SQLState: "23503",
				Message: fmt.Sprintf("insert or update on table %q violates foreign key constraint %q", k.table, k.name)}
		}
	}
	return nil
}

// namedIDs is m's keys as sortedKeys takes them.
func namedIDs(m map[string]fkKey) map[string]string {
	out := make(map[string]string, len(m))
	for id := range m {
		out[id] = ""
	}
	return out
}
