package difftest

import (
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// outcome is one statement's result on one engine, in the form relchain's
// results carry it.
type outcome struct {
	Columns []string
	// Types are the columns' PostgreSQL types, "name" or "name/typmod".
	Types    []string
	Rows     [][]any // nil, int64, float64, string, []byte, bool
	Affected int64
	// Code is the SQLSTATE of the statement's error, "" when it succeeded.
	Code    string
	Message string
}

func (o outcome) failed() bool { return o.Code != "" }

// typeName renders a PostgreSQL type and its modifier as compared.
func typeName(name string, typmod int32) string {
	if typmod < 0 {
		return name
	}
	return name + "/" + strconv.Itoa(int(typmod))
}

// render prints one value with its Go kind, so that 1 and '1' differ.
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == 0 && math.Signbit(x) {
			return "-0.0"
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return s
	case string:
		return strconv.Quote(x)
	case []byte:
		return `\x` + hex.EncodeToString(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func renderRow(r []any) string {
	cells := make([]string, len(r))
	for i, v := range r {
		cells[i] = render(v)
	}
	return "(" + strings.Join(cells, ", ") + ")"
}

// String prints an outcome for a failure message.
func (o outcome) String() string {
	if o.failed() {
		return fmt.Sprintf("ERROR %s: %s", o.Code, o.Message)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "columns %v types %v affected %d, %d rows", o.Columns, o.Types, o.Affected, len(o.Rows))
	for i, r := range o.Rows {
		if i == 20 {
			fmt.Fprintf(&b, "\n      ... %d more", len(o.Rows)-i)
			break
		}
		b.WriteString("\n      " + renderRow(r))
	}
	return b.String()
}

// sqlstateClass is the class of a SQLSTATE, its first two characters.
func sqlstateClass(code string) string {
	if len(code) < 2 {
		return code
	}
	return code[:2]
}

// differences lists how lite differs from pg (nil when they agree):
// error class, then columns, types, rows affected and rows, in order when
// ordered and as multisets otherwise.
func differences(pg, lite outcome, ordered bool) []string {
	if pg.failed() || lite.failed() {
		if sqlstateClass(pg.Code) != sqlstateClass(lite.Code) {
			return []string{fmt.Sprintf("error class: postgres %q, sqlite %q", pg.Code, lite.Code)}
		}
		return nil
	}
	var d []string
	if !slices.Equal(pg.Columns, lite.Columns) {
		d = append(d, fmt.Sprintf("column names: postgres %q, sqlite %q", pg.Columns, lite.Columns))
	}
	if !slices.Equal(pg.Types, lite.Types) {
		d = append(d, fmt.Sprintf("column types: postgres %v, sqlite %v", pg.Types, lite.Types))
	}
	if pg.Affected != lite.Affected {
		d = append(d, fmt.Sprintf("rows affected: postgres %d, sqlite %d", pg.Affected, lite.Affected))
	}
	rows := rowDifferences(pg.Rows, lite.Rows, ordered)
	if len(rows) == 1 && ordered && tiesOnly(pg.Rows, lite.Rows, pg.Types) {
		rows = nil // only tied rows in another order; the columns are still compared
	}
	return append(d, rows...)
}

// rowDifferences compares two results' rows.
func rowDifferences(pg, lite [][]any, ordered bool) []string {
	a, b := renderRows(pg), renderRows(lite)
	how := "in order"
	if !ordered {
		slices.Sort(a)
		slices.Sort(b)
		how = "as a multiset"
	}
	if len(a) != len(b) {
		return []string{fmt.Sprintf("row count: postgres %d, sqlite %d", len(a), len(b))}
	}
	for i := range a {
		if a[i] != b[i] {
			return []string{fmt.Sprintf("rows differ %s at row %d: postgres %s, sqlite %s", how, i, a[i], b[i])}
		}
	}
	return nil
}

// tiesOnly reports whether two results whose rows differ in order differ
// only in the order of rows an ORDER BY leaves tied: numerics of one value
// and different display scales (1.0 and 1.00), and the floats -0 and 0,
// sort as equals, and
// PostgreSQL does not order tied rows among themselves. It holds when the
// rows are the same multiset, and the same sequence once each numeric
// column's value is read without its scale (pgdialect/DESIGN.md, "Known
// differences": which of equal numerics comes first is the first SQLite
// meets). Any other difference (a value, a scale not matched by a row of
// the other result, an order of unequal values) still fails.
func tiesOnly(pg, lite [][]any, types []string) bool {
	if rowDifferences(pg, lite, false) != nil {
		return false
	}
	numeric := make([]bool, len(types))
	has := false
	for i, t := range types {
		numeric[i] = t == "numeric" || strings.HasPrefix(t, "numeric/") || t == "float4" || t == "float8"
		has = has || numeric[i]
	}
	if !has {
		return false
	}
	return rowDifferences(numericValues(pg, numeric), numericValues(lite, numeric), true) == nil
}

// numericValues is rows with each numeric column's text (numeric_out:
// no exponent) read without its display scale: 1.500 as 1.5, 0.00 as 0;
// and each float column's -0 as 0.
func numericValues(rows [][]any, numeric []bool) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
		for j, v := range r {
			if f, ok := v.(float64); ok && f == 0 && j < len(numeric) && numeric[j] {
				out[i][j] = 0.0 // -0 and 0 are equal, and tie
				continue
			}
			s, ok := v.(string)
			if !ok || j >= len(numeric) || !numeric[j] || !strings.Contains(s, ".") {
				continue
			}
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
			if s == "-0" {
				s = "0"
			}
			out[i][j] = s
		}
	}
	return out
}

func renderRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = renderRow(r)
	}
	return out
}
