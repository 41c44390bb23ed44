package conflict

// Table is what conflict analysis needs to know about one relation of the
// committed schema. A Catalog supplies it; the analysis never reads the
// database itself.
type Table struct {
	// Name as sqlcheck.Analysis.Writes spells it: unquoted lower-case
	// unless quoted, the default schema's qualifier dropped.
	Name string
	// PrimaryKey lists the primary key's columns in key order; empty when
	// the table has none (its accesses are then table-wide).
	PrimaryKey []Column
	// Unique lists the columns other than the primary key's that alone
	// are unique: each the one key column of a unique index that is not
	// partial, has no expression, uses its type's default operator class
	// and is checked immediately. Two rows never share a non-NULL value
	// of one, so a row found by such a column and a value is one row, and
	// different values find different rows (pinned). Nil where the
	// catalog does not tell (lookups through it stay table-wide).
	Unique []Column
	// KeyIsOnlyUnique: no other UNIQUE or EXCLUDE constraint, and no
	// unique index, besides the primary key. Writes to a table with
	// another one are table-wide (two rows with different keys can still
	// collide on it).
	KeyIsOnlyUnique bool
	// Opaque: something beyond the statement's own text may run when the
	// table is written or read: a user trigger, a rule, a row-level
	// security policy, a column default, CHECK constraint, generated
	// column or index expression that calls a user routine, inheritance
	// children or partitions (a statement on the parent reaches them).
	// Any statement touching it conflicts with every other tx.
	Opaque bool
	// Related are the tables linked to this one by a foreign key, in
	// either direction, sorted. A write to the table reads or writes them
	// (a check, a cascade): it counts as a table-wide write to each.
	Related []string
	// Sequences its column defaults draw from (serial columns and any
	// DEFAULT nextval('s')), sorted, named as Name is: an INSERT or MERGE
	// into the table, or an UPDATE that sets a column to DEFAULT, writes
	// them.
	Sequences []string
}

// Column is one primary-key column.
type Column struct {
	Name string
	// Kind is how a value pinning this column is compared: KindInt for
	// int2, int4 and int8 columns, KindText for text and varchar with a
	// deterministic collation, KindOther for anything else (no key-level
	// refinement: table-wide).
	Kind Kind
}

// Kind classifies a key column's type for key-level refinement.
type Kind int

// The kinds of key columns.
const (
	KindOther Kind = iota
	KindInt
	KindText
)

// Catalog answers what the analysis asks about relations. Table returns
// false for a name that is no plain table of the committed schema (a view,
// a system catalog, an unknown name): statements touching it conflict
// with every other tx.
//
// Routine reports whether schema public holds a user function or
// procedure of that name (any argument types). PostgreSQL resolves an
// unqualified call among every schema of the search path, so lower(x) may
// call public.lower(varchar) rather than the built-in: such a call
// conflicts with every other tx, as a call of public.name(...) does.
type Catalog interface {
	Table(name string) (Table, bool)
	Routine(name string) bool
}
