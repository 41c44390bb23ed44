package pgdialect

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/pgnames"
)

// Serial columns. relchain's PostgreSQL backend keeps sequences
// transactional (backend/postgres DESIGN.md, "Sequences"): nextval is
// undone with the statement's savepoint, and an explicit id does not move
// the sequence. The dialect keeps the same state in a table of its own
// per sequence, t_id_seq (last_value, is_called), created with the table
// and dropped with it; an INSERT that leaves a serial column out first
// advances the state by its number of rows, then numbers the rows from
// it. SQLite's AUTOINCREMENT is not used: an explicit id moves it, and a
// row skipped by ON CONFLICT DO NOTHING does not consume a value.

// Serials is an optional interface of a Catalog: the sequence of a serial
// column (as the column's declared type records it).
type Serials interface {
	Serial(table, column string) (sequence string, ok bool)
}

// serialTypes are the serial pseudo-types and the integer type of each.
var serialTypes = map[string]Type{
	"serial": tInt4, "serial4": tInt4, "bigserial": tInt8, "serial8": tInt8,
	"smallserial": {Name: "int2", Typmod: -1}, "serial2": {Name: "int2", Typmod: -1},
}

// simpleName is a name a declared type can carry as one word.
var simpleName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// hexName is a sequence name a declared type carries hex-encoded: x and
// the name's bytes in lower-case hex. No plain name is one (a sequence's
// name ends in _seq), so the plain encoding stays as it always was.
var hexName = regexp.MustCompile(`^x([0-9a-f]{2})+$`)

// serialType reports a serial column definition and its integer type.
func serialType(tn *pg_query.TypeName) (Type, bool) {
	names := tn.GetNames()
	if len(names) == 2 && strNode(names[0]) == "pg_catalog" {
		names = names[1:]
	}
	if len(names) != 1 || len(tn.GetArrayBounds()) > 0 || len(tn.GetTypmods()) > 0 {
		return Type{}, false
	}
	typ, ok := serialTypes[strNode(names[0])]
	return typ, ok
}

// SerialDeclaredType is the declared type of a serial column: its integer
// type (INTEGER affinity), the word serial and its sequence's name, as is
// when it is a plain lower-case identifier, else hex-encoded (hexName).
func SerialDeclaredType(t Type, sequence string) string {
	word := sequence
	if !simpleName.MatchString(sequence) || hexName.MatchString(sequence) {
		word = "x" + hex.EncodeToString([]byte(sequence))
	}
	return DeclaredType(t) + " serial " + word
}

// ParseSerial reads a serial column's sequence from its declared type.
func ParseSerial(decl string) (string, bool) {
	f := strings.Fields(strings.ToLower(decl))
	if len(f) != 3 || f[1] != "serial" || !simpleName.MatchString(f[2]) {
		return "", false
	}
	if !hexName.MatchString(f[2]) {
		return f[2], true
	}
	b, err := hex.DecodeString(f[2][1:])
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// serialColumn is a serial column of a table being created or written.
type serialColumn struct {
	col Column
	seq string
}

// sequenceFor names a serial column's sequence as PostgreSQL does:
// table_column_seq, clipped to 63 bytes (makeObjectName).
func sequenceFor(table, column string) string {
	return ObjectName(table, column, "seq")
}

// ObjectName is PostgreSQL's makeObjectName (pgnames.ObjectName), the
// default name of a sequence, constraint or index.
func ObjectName(name1, name2, label string) string { return pgnames.ObjectName(name1, name2, label) }

// sequenceTable is the statements that create a sequence's state: its
// columns' declared types keep it out of the Catalog (it is no table of
// the client's).
func sequenceTable(seq string) []string {
	return []string{
		"CREATE TABLE " + quoteIdent(seq) + ` ("last_value" int8 sequence NOT NULL, "is_called" bool sequence NOT NULL)`,
		"INSERT INTO " + quoteIdent(seq) + ` ("last_value", "is_called") VALUES (1, 0)`,
	}
}

// serialsOf are the serial columns of a table.
func (t *translator) serialsOf(tg target) []serialColumn {
	s, ok := t.cat.(Serials)
	if !ok {
		return nil
	}
	var out []serialColumn
	for _, c := range tg.cols {
		if seq, ok := s.Serial(tg.name, c.Name); ok {
			out = append(out, serialColumn{col: c, seq: seq})
		}
	}
	return out
}

// omittedSerials are the serial columns an INSERT's column list leaves out.
func omittedSerials(serials []serialColumn, cols []Column) []serialColumn {
	var out []serialColumn
	for _, s := range serials {
		if _, listed := findColumn(cols, s.col.Name); !listed {
			out = append(out, s)
		}
	}
	return out
}

// serialValues are the column names and values of row i of n for the
// serial columns being filled.
func (t *translator) serialValues(i, n int) (names, vals []string) {
	for _, s := range t.fill {
		names = append(names, quoteIdent(s.col.Name))
		vals = append(vals, fmt.Sprintf(`((SELECT "last_value" FROM %s) - %d)`, quoteIdent(s.seq), n-1-i))
	}
	return names, vals
}

// advanceSequences are the statements that take n values of each filled
// sequence (pg_seq_next: PostgreSQL's 2200H past the type's maximum).
func (t *translator) advanceSequences(n int) []string {
	var out []string
	for _, s := range t.fill {
		max := int64(1)<<(intBits(s.col.Type)-1) - 1
		out = append(out, fmt.Sprintf(`UPDATE %s SET "last_value" = pg_seq_next("last_value", "is_called", %d, %d, %s), "is_called" = 1`,
			quoteIdent(s.seq), n, max, quoteString(s.seq)))
	}
	return out
}

// serialColumnDef translates a serial column: its integer type, NOT
// NULL, and its sequence created with the table (ALTER TABLE ADD COLUMN
// of a serial is refused, as pggate refuses it).
func (t *translator) serialColumnDef(cd *pg_query.ColumnDef, typ Type) (string, Column, error) {
	if t.newTable == "" {
		return "", Column{}, refuse("ADD COLUMN of a serial type")
	}
	seq := sequenceFor(t.newTable, cd.GetColname())
	if _, exists := t.cat.Columns(seq); exists {
		return "", Column{}, refuse("a serial column whose sequence name %s is taken", seq)
	}
	col := Column{Name: cd.GetColname(), Type: typ, NotNull: true}
	sql := quoteIdent(col.Name) + " " + SerialDeclaredType(typ, seq)
	for _, n := range cd.GetConstraints() {
		c := n.GetConstraint()
		if c.GetContype() == pg_query.ConstrType_CONSTR_IDENTITY {
			continue
		}
		if c.GetContype() == pg_query.ConstrType_CONSTR_DEFAULT {
			return "", Column{}, pgError("42601", "multiple default values specified for column %q of table %q", col.Name, t.newTable)
		}
		s, _, err := t.columnConstraint(c, col)
		if err != nil {
			return "", Column{}, err
		}
		sql += s
	}
	t.creating = append(t.creating, serialColumn{col: col, seq: seq})
	return sql + " NOT NULL", col, nil
}

// dropSequences drops the sequences of a table's serial columns with it
// (PostgreSQL's OWNED BY).
func (t *translator) dropSequences(table string) []string {
	cols, ok := t.cat.Columns(table)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range t.serialsOf(target{name: table, cols: cols}) {
		out = append(out, "DROP TABLE "+quoteIdent(s.seq))
	}
	return out
}

// identityByDefault reports GENERATED BY DEFAULT AS IDENTITY without
// sequence options.
func identityByDefault(cd *pg_query.ColumnDef) bool {
	for _, n := range cd.GetConstraints() {
		c := n.GetConstraint()
		if c.GetContype() == pg_query.ConstrType_CONSTR_IDENTITY {
			return c.GetGeneratedWhen() == "d" && len(c.GetOptions()) == 0
		}
	}
	return false
}
