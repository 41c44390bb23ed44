package pgdialect

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// alteration is an ALTER TABLE that rebuilds its table, as SQLite's
// documentation prescribes for changes it cannot make in place ("Making
// Other Kinds Of Table Schema Changes"): create the new table, copy the
// rows, drop the old one, rename the new one, re-create the indexes.
// Every subcommand changes the model; rebuild writes the statements.
type alteration struct {
	table   string
	elems   []element         // the new CREATE TABLE's elements
	cols    []Column          // the new table's columns
	old     []Column          // the old table's columns
	source  map[string]string // a kept column's value from the old row
	added   map[string]bool   // columns this ALTER adds (their DEFAULT fills them)
	retyped map[string]bool   // columns whose type this ALTER changes
	guards  []string          // checks of the new rows, before the copy
	indexes []string          // the table's CREATE INDEX texts
	drops   []string          // statements after the old table is dropped (sequences)
}

// rebuildSuffix names the new table while both exist (its name is
// checked to be free); ~ cannot appear in a sequence's name.
const rebuildSuffix = "~new"

// alterTable translates ALTER TABLE: one ADD COLUMN in place (SQLite's
// own), anything else by rebuilding the table.
func (t *translator) alterTable(a *pg_query.AlterTableStmt) error {
	if a.GetObjtype() != pg_query.ObjectType_OBJECT_TABLE {
		return refuse("ALTER %s", a.GetObjtype())
	}
	cols, err := t.tableName(a.GetRelation())
	if err != nil && a.GetMissingOk() {
		// PostgreSQL's IF EXISTS does nothing on a missing table.
		return refuse("ALTER TABLE IF EXISTS on a missing table")
	}
	if err != nil {
		return err
	}
	cmds := a.GetCmds()
	if len(cmds) == 1 && cmds[0].GetAlterTableCmd().GetSubtype() == pg_query.AlterTableType_AT_AddColumn && !hasCheck(cmds[0].GetAlterTableCmd().GetDef().GetColumnDef()) {
		return t.addColumn(a)
	}
	al, err := t.loadAlteration(a.GetRelation().GetRelname(), cols)
	if err != nil {
		return err
	}
	types := 0
	for _, n := range cmds {
		if n.GetAlterTableCmd().GetSubtype() == pg_query.AlterTableType_AT_AlterColumnType {
			types++
		}
	}
	if types > 0 && types < len(cmds) {
		return refuse("ALTER COLUMN ... TYPE together with other subcommands in one ALTER TABLE")
	}
	before := al.keyConstraints()
	for _, n := range cmds {
		if err := t.alterCmd(al, n.GetAlterTableCmd()); err != nil {
			return err
		}
	}
	if err := t.alteredKeysFree(a, al, before); err != nil {
		return err
	}
	return t.rebuild(al)
}

// loadAlteration reads the table's schema text into a model.
func (t *translator) loadAlteration(table string, cols []Column) (*alteration, error) {
	s, ok := t.cat.(Schema)
	if !ok {
		return nil, refuse("ALTER TABLE on a catalog that cannot tell a table's schema")
	}
	create, indexes, ok := s.TableSQL(table)
	if !ok {
		return nil, pgError("42P01", "relation %q does not exist", table)
	}
	elems, ok := parseCreate(create)
	if !ok {
		return nil, refuse("ALTER TABLE on a table whose schema the dialect cannot read")
	}
	al := &alteration{table: table, elems: elems, cols: slices.Clone(cols), old: cols, source: map[string]string{}, added: map[string]bool{}, retyped: map[string]bool{}, indexes: indexes}
	for _, c := range cols {
		al.source[c.Name] = quoteIdent(c.Name)
	}
	return al, nil
}

// alterCmd applies one subcommand to the model.
func (t *translator) alterCmd(al *alteration, cmd *pg_query.AlterTableCmd) error {
	// CASCADE drops what depends on the dropped column or constraint: the
	// rebuild refuses a drop anything else depends on (an index, a
	// constraint, another table's foreign key), so where it goes ahead
	// nothing depends on it, and CASCADE drops what RESTRICT would.
	if cmd.GetBehavior() == pg_query.DropBehavior_DROP_CASCADE && cmd.GetSubtype() != pg_query.AlterTableType_AT_DropColumn &&
		cmd.GetSubtype() != pg_query.AlterTableType_AT_DropConstraint {
		return refuse("ALTER TABLE ... CASCADE")
	}
	switch cmd.GetSubtype() {
	case pg_query.AlterTableType_AT_AddColumn:
		return t.rebuildAddColumn(al, cmd)
	case pg_query.AlterTableType_AT_DropColumn:
		return t.dropColumn(al, cmd)
	case pg_query.AlterTableType_AT_ColumnDefault:
		return t.columnDefault(al, cmd)
	case pg_query.AlterTableType_AT_SetNotNull:
		return al.setNotNull(cmd.GetName())
	case pg_query.AlterTableType_AT_DropNotNull:
		return al.dropNotNull(cmd.GetName())
	case pg_query.AlterTableType_AT_AddConstraint:
		return t.addConstraint(al, cmd.GetDef().GetConstraint())
	case pg_query.AlterTableType_AT_DropConstraint:
		return t.dropConstraint(al, cmd.GetName(), cmd.GetMissingOk())
	case pg_query.AlterTableType_AT_AlterColumnType:
		return t.alterColumnType(al, cmd)
	}
	return refuse("ALTER TABLE %s", strings.TrimPrefix(cmd.GetSubtype().String(), "AT_"))
}

// column finds a column's element and its index.
func (al *alteration) column(name string) (int, error) {
	for i, e := range al.elems {
		if e.col == name {
			return i, nil
		}
	}
	return -1, pgError("42703", "column %q of relation %q does not exist", name, al.table)
}

func (al *alteration) colIndex(name string) int {
	return slices.IndexFunc(al.cols, func(c Column) bool { return c.Name == name })
}

// serial reports whether a column element is a serial's.
func serial(e element) bool {
	_, ok := ParseSerial(joinTokens(e.tokens[1:typeEnd(e.tokens)]))
	return ok
}

func (t *translator) rebuildAddColumn(al *alteration, cmd *pg_query.AlterTableCmd) error {
	cd := cmd.GetDef().GetColumnDef()
	if _, ok := serialType(cd.GetTypeName()); ok || identityByDefault(cd) {
		return refuse("serial columns added by ALTER TABLE")
	}
	if al.colIndex(cd.GetColname()) >= 0 && cmd.GetMissingOk() {
		return nil // ADD COLUMN IF NOT EXISTS: PostgreSQL skips it
	}
	if al.colIndex(cd.GetColname()) >= 0 {
		return pgError("42701", "column %q of relation %q already exists", cd.GetColname(), al.table)
	}
	if err := checkAddColumn(cd); err != nil {
		return err
	}
	def, col, err := t.columnDef(cd)
	if err != nil {
		return err
	}
	last := 0 // columns come before table constraints
	for i, e := range al.elems {
		if e.col != "" {
			last = i + 1
		}
	}
	al.elems = slices.Insert(al.elems, last, element{col: col.Name, tokens: tokensOf(def)})
	al.cols = append(al.cols, col)
	al.added[col.Name] = true
	checks := t.checks
	t.checks = nil
	for _, c := range checks {
		if err := t.addConstraint(al, c); err != nil {
			return err
		}
	}
	return nil
}

// hasCheck reports whether a column definition has a CHECK constraint
// (SQLite's ADD COLUMN would not check the existing rows).
func hasCheck(cd *pg_query.ColumnDef) bool {
	for _, c := range cd.GetConstraints() {
		if c.GetConstraint().GetContype() == pg_query.ConstrType_CONSTR_CHECK {
			return true
		}
	}
	return false
}

// checkAddColumn refuses what ADD COLUMN cannot do here: a key, NOT NULL
// without a DEFAULT (existing rows).
func checkAddColumn(cd *pg_query.ColumnDef) error {
	notNull := cd.GetIsNotNull()
	for _, c := range cd.GetConstraints() {
		switch c.GetConstraint().GetContype() {
		case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE:
			return refuse("ADD COLUMN with PRIMARY KEY or UNIQUE")
		case pg_query.ConstrType_CONSTR_NOTNULL:
			notNull = true
		}
	}
	if notNull && !containsDefault(cd) {
		return refuse("ADD COLUMN ... NOT NULL without a DEFAULT")
	}
	return nil
}

func (t *translator) dropColumn(al *alteration, cmd *pg_query.AlterTableCmd) error {
	i, err := al.column(cmd.GetName())
	if err != nil {
		if cmd.GetMissingOk() {
			return nil
		}
		return err
	}
	name := cmd.GetName()
	if len(al.cols) == 1 {
		return refuse("dropping the last column of a table")
	}
	for j, e := range al.elems {
		if j != i && mentions(e.tokens, name) {
			return refuse("DROP COLUMN of a column a table constraint names")
		}
	}
	kept := al.indexes[:0:0]
	for _, ix := range al.indexes {
		switch cols, plain := indexColumns(ix); {
		case plain && slices.Contains(cols, quoteIdent(name)):
			// PostgreSQL drops an index on the column with it (Django's
			// RemoveField of a foreign key: the key's index).
			continue
		case mentions(tokensOf(ix), name):
			return refuse("DROP COLUMN of a column an expression or partial index uses")
		}
		kept = append(kept, ix)
	}
	al.indexes = kept
	e := al.elems[i]
	if (find(e.tokens, "PRIMARY", "KEY") >= 0 || find(e.tokens, "UNIQUE") >= 0) && len(t.referencedBy(al.table)) > 0 {
		return refuse("DROP COLUMN of a key column of a table other tables reference")
	}
	if serial(e) {
		seq, _ := ParseSerial(joinTokens(e.tokens[1:typeEnd(e.tokens)]))
		al.drops = append(al.drops, "DROP TABLE "+quoteIdent(seq))
	}
	al.elems = slices.Delete(al.elems, i, i+1)
	al.cols = slices.Delete(al.cols, al.colIndex(name), al.colIndex(name)+1)
	delete(al.source, name)
	return nil
}

// indexColumns reads a CREATE INDEX text the translator wrote: the quoted
// names of its key columns, and whether it is a plain index, each key a
// column (with ASC, DESC or COLLATE) and no WHERE.
func indexColumns(ix string) (cols []string, plain bool) {
	ts := tokensOf(ix)
	on := find(ts, "ON")
	if on < 0 || on+3 != len(ts) || !strings.HasPrefix(ts[on+2].text, "(") {
		return nil, false
	}
	list := ts[on+2].text
	for _, key := range strings.Split(list[1:len(list)-1], ",") {
		f := strings.Fields(key)
		if len(f) == 0 || !strings.HasPrefix(f[0], `"`) || strings.Count(f[0], `"`) != 2 || !strings.HasSuffix(f[0], `"`) {
			return nil, false
		}
		for _, w := range f[1:] {
			if w != "ASC" && w != "DESC" && w != "COLLATE" && !strings.HasPrefix(w, `"`) && w != "BINARY" && w != "NOCASE" && w != "RTRIM" {
				return nil, false
			}
		}
		cols = append(cols, f[0])
	}
	return cols, true
}

func (t *translator) columnDefault(al *alteration, cmd *pg_query.AlterTableCmd) error {
	i, err := al.column(cmd.GetName())
	if err != nil {
		return err
	}
	if serial(al.elems[i]) {
		return refuse("SET DEFAULT and DROP DEFAULT on a serial column")
	}
	ts := withoutDefault(al.elems[i].tokens)
	if cmd.GetDef() != nil {
		d, err := t.defaultValue(cmd.GetDef(), al.cols[al.colIndex(cmd.GetName())])
		if err != nil {
			return err
		}
		at := typeEnd(ts)
		ts = slices.Insert(ts, at, token{text: "DEFAULT", space: true}, token{text: d, space: true})
	}
	al.elems[i].tokens = ts
	return nil
}

func (al *alteration) setNotNull(name string) error {
	i, err := al.column(name)
	if err != nil {
		return err
	}
	if find(al.elems[i].tokens, "NOT", "NULL") < 0 {
		al.elems[i].tokens = append(al.elems[i].tokens, token{text: "NOT", space: true}, token{text: "NULL", space: true})
		al.guards = append(al.guards, al.guard("23502", pgMessage("column %q of relation %q contains null values", name, al.table), quoteIdent(name)+" IS NULL"))
	}
	al.cols[al.colIndex(name)].NotNull = true
	return nil
}

func (al *alteration) dropNotNull(name string) error {
	i, err := al.column(name)
	if err != nil {
		return err
	}
	if al.inPrimaryKey(name) {
		return pgError("42P16", "column %q is in a primary key", name)
	}
	al.elems[i].tokens = withoutNotNull(al.elems[i].tokens)
	al.cols[al.colIndex(name)].NotNull = false
	return nil
}

// inPrimaryKey reports whether a column is (part of) the primary key.
func (al *alteration) inPrimaryKey(name string) bool {
	for _, e := range al.elems {
		at := find(e.tokens, "PRIMARY", "KEY")
		switch {
		case at < 0:
		case e.col == name:
			return true
		case e.col == "" && at+2 < len(e.tokens) && mentions(e.tokens[at+2:at+3], name):
			return true
		}
	}
	return false
}

// referencedBy are the other tables whose foreign keys reference table.
func (t *translator) referencedBy(table string) []string {
	if r, ok := t.cat.(References); ok {
		return r.ReferencedBy(table)
	}
	return nil
}

// pgMessage formats a PostgreSQL message.
func pgMessage(format string, args ...any) string {
	return pgError("", format, args...).(*Error).Message
}

// rebuild writes the statements of an alteration: the checks of the new
// rows, the new table, the copy (in the old table's order), the tables
// that reference it rebuilt beside it (rebuildrefs.go), the old tables
// dropped, the new ones renamed, the indexes re-created.
func (t *translator) rebuild(al *alteration) error {
	tmp := al.table + rebuildSuffix
	if _, exists := t.cat.Columns(tmp); exists {
		return refuse("ALTER TABLE %s while a table %s exists", al.table, tmp)
	}
	var defs, names, values []string
	for _, e := range al.elems {
		defs = append(defs, joinTokens(selfReferences(e.tokens, al.table, tmp)))
		if e.col != "" && !al.added[e.col] {
			names, values = append(names, quoteIdent(e.col)), append(values, al.source[e.col])
		}
	}
	steps, err := t.rebuildSteps(al,
		"CREATE TABLE "+quoteIdent(tmp)+" ("+strings.Join(defs, ", ")+")",
		"INSERT INTO "+quoteIdent(tmp)+" ("+strings.Join(names, ", ")+") SELECT "+strings.Join(values, ", ")+" FROM "+quoteIdent(al.table))
	if err != nil {
		return err
	}
	out := append(slices.Clone(al.guards), steps...)
	t.out.Statements = out
	t.out.DDL = true
	return nil
}

// selfReferences points a foreign key of the table to itself at the new
// table (SQLite's RENAME then points it back at the final name).
func selfReferences(ts []token, table, tmp string) []token {
	out := slices.Clone(ts)
	for i := 0; i+1 < len(out); i++ {
		if word(out[i], "REFERENCES") {
			if n, ok := unquote(out[i+1].text); ok && n == table {
				out[i+1].text = quoteIdent(tmp)
			}
		}
	}
	return out
}
