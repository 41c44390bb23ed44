package backendtest

import (
	"errors"
	"slices"
	"strings"
)

// Spelling is how one database spells what the suite asks of it: the few
// type names, statements and catalog answers that differ between
// databases. Each backend's own test passes its Spelling to Run, so the
// suite names no database. Placeholders are not here: the suite asks
// package dialect for them.
type Spelling struct {
	// Blob, Double and Fraction are the column types the suite writes as
	// {BLOB}, {DOUBLE} and {FRACTION}: a byte string, a double-precision
	// float, and a non-integer type the gate admits (MySQL's refuses
	// floating-point types: their aggregates depend on row order).
	Blob, Double, Fraction string
	// IdentQuote quotes an identifier (" or `); a quote inside the name
	// is doubled.
	IdentQuote string
	// Refused is a statement the gate refuses (ClassPermission): a
	// node-local value, or session state the backend's own backstop
	// refuses too.
	Refused string
	// HighestParam is a statement whose highest placeholder is the third,
	// in the database's own spelling (Analysis.Params is 3).
	HighestParam string
	// Meta is the name, as a query spells it, of relchain's table that
	// holds the height (columns id and height).
	Meta string
	// SystemNames are names that are system columns or aliases on some
	// database, which this one lets a table declare.
	SystemNames []string
	// Typed is table typed, with one column of each common type.
	Typed Typed
	// Grouped is what Describe reports of SELECT i, tx, count(*) AS c
	// FROM typed WHERE b > $1 AND tx <> $2 GROUP BY i, tx.
	Grouped Described
	// UpdateParams are the parameter types Describe reports for UPDATE
	// typed SET tx = $1 WHERE i = $2; nil leaves them unchecked (their
	// count is checked anyway).
	UpdateParams []string
	// InsertReturning are the column types Describe reports for INSERT
	// INTO typed ... RETURNING i, tx; nil says Describe cannot describe a
	// write with RETURNING (a syntax or not-implemented error).
	InsertReturning []string
	// NoUpdateReturning says UPDATE ... RETURNING is a syntax error
	// (MariaDB has INSERT and DELETE ... RETURNING only); the suite then
	// checks RETURNING on a DELETE.
	NoUpdateReturning bool
}

// Typed is the suite's table typed in one database's spelling.
type Typed struct {
	// Create creates table typed with the columns of typedColumns: in
	// order an integer key, a bigint, a non-integer number, text,
	// varchar(10), boolean, bytes, numeric(10, 2), date and timestamp.
	Create string
	// Types are the type names relchain reports for its columns
	// (backend/types.go and each backend's types.go).
	Types []string
}

// Described is what Describe reports of a statement: the types of its
// parameters and of its columns ("" where the database does not know one
// before a run).
type Described struct {
	Params, Types []string
}

// check reports the fields a Spelling lacks; an empty one would make the
// suite's SQL fail for a reason that is not the backend's.
func (s Spelling) check() error {
	var missing []string
	for name, v := range map[string]string{"Blob": s.Blob, "Double": s.Double, "Fraction": s.Fraction,
		"IdentQuote": s.IdentQuote, "Refused": s.Refused, "HighestParam": s.HighestParam, "Meta": s.Meta,
		"Typed.Create": s.Typed.Create} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(s.Typed.Types) != len(typedColumns) {
		missing = append(missing, "Typed.Types (one per column)")
	}
	if s.Grouped.Params == nil || s.Grouped.Types == nil {
		missing = append(missing, "Grouped")
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return errors.New("backendtest: the Spelling lacks " + strings.Join(missing, ", "))
	}
	return nil
}

// typeName is the database's name for the suite's {key} type.
func (s Spelling) typeName(key string) (string, bool) {
	name := map[string]string{"BLOB": s.Blob, "DOUBLE": s.Double, "FRACTION": s.Fraction}[key]
	return name, name != ""
}

// quote quotes an identifier.
func (s Spelling) quote(name string) string {
	return s.IdentQuote + strings.ReplaceAll(name, s.IdentQuote, s.IdentQuote+s.IdentQuote) + s.IdentQuote
}
