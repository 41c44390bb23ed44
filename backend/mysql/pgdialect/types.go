package pgdialect

import (
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Well-known types.
var (
	tInt4    = Type{Name: "int4", Typmod: -1}
	tInt8    = Type{Name: "int8", Typmod: -1}
	tNumeric = Type{Name: "numeric", Typmod: -1}
	tFloat8  = Type{Name: "float8", Typmod: -1}
	tText    = Type{Name: "text", Typmod: -1}
	tBool    = Type{Name: "bool", Typmod: -1}
	tUnknown = Type{Name: "unknown", Typmod: -1}
)

// typeAliases maps the names PostgreSQL's grammar gives types to pg_type
// names.
var typeAliases = map[string]string{
	"int2": "int2", "smallint": "int2", "int4": "int4", "int": "int4", "integer": "int4",
	"int8": "int8", "bigint": "int8", "numeric": "numeric", "decimal": "numeric",
	"float8": "float8", "text": "text", "varchar": "varchar", "bool": "bool", "boolean": "bool",
	"bytea": "bytea", "date": "date", "timestamp": "timestamp", "timestamptz": "timestamptz",
}

// typeOf resolves a TypeName node (CREATE TABLE's column, a cast).
func typeOf(tn *pg_query.TypeName) (Type, error) {
	if tn == nil || len(tn.GetNames()) == 0 {
		return Type{}, refuse("a missing type")
	}
	if len(tn.GetArrayBounds()) > 0 {
		return Type{}, refuse("arrays")
	}
	names := tn.GetNames()
	name := strNode(names[len(names)-1])
	if len(names) == 2 && strNode(names[0]) != "pg_catalog" {
		return Type{}, refuse("the type %s.%s", strNode(names[0]), name)
	}
	pg, ok := typeAliases[name]
	if !ok {
		return Type{}, refuse("the type %s", name)
	}
	var mods []int32
	for _, m := range tn.GetTypmods() {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return Type{}, refuse("the type modifier of %s", name)
		}
		mods = append(mods, c.GetIval().GetIval())
	}
	return withMods(pg, mods)
}

// withMods applies a type's modifiers.
func withMods(name string, mods []int32) (Type, error) {
	switch {
	case len(mods) == 0:
		return Type{Name: name, Typmod: -1}, nil
	case name == "varchar" && len(mods) == 1:
		if mods[0] < 1 || mods[0] > 10485760 {
			return Type{}, pgError("22023", "length for type varchar must be between 1 and 10485760")
		}
		return Type{Name: name, Typmod: mods[0] + 4}, nil
	case name == "numeric" && len(mods) <= 2:
		p, s := mods[0], int32(0)
		if len(mods) == 2 {
			s = mods[1]
		}
		if p < 1 || p > 65 || s < 0 || s > p || s > 30 {
			return Type{}, refuse("numeric(%d, %d): MariaDB's DECIMAL holds at most 65 digits, 30 after the point, and a scale within 0 to p", p, s)
		}
		return Type{Name: name, Typmod: (p<<16 | s) + 4}, nil
	}
	return Type{}, refuse("the type modifiers of %s", name)
}

// numericPS is numeric(p,s)'s precision and scale (ok false: none).
func numericPS(t Type) (p, s int32, ok bool) {
	if t.Name != "numeric" || t.Typmod < 4 {
		return 0, 0, false
	}
	m := t.Typmod - 4
	return m >> 16, m & 0xffff, true
}

// intRank orders the integer types (0: not an integer).
func intRank(t Type) int {
	switch t.Name {
	case "int2":
		return 1
	case "int4":
		return 2
	case "int8":
		return 3
	}
	return 0
}

// isText: text or varchar.
func isText(t Type) bool { return t.Name == "text" || t.Name == "varchar" }

// isNumber: an integer, numeric or float8.
func isNumber(t Type) bool { return intRank(t) > 0 || t.Name == "numeric" || t.Name == "float8" }

// mariaType is the MariaDB column type storing t; key: the column is in
// a PRIMARY KEY (tableKeys has refused text and bytea there).
func mariaType(t Type, key bool) (string, error) {
	switch t.Name {
	case "int2":
		return "SMALLINT", nil
	case "int4":
		return "INT", nil
	case "int8":
		return "BIGINT", nil
	case "float8":
		return "DOUBLE", nil
	case "bool":
		return "BOOLEAN", nil
	case "date":
		return "DATE", nil
	case "timestamp", "timestamptz":
		return "DATETIME(6)", nil
	case "numeric":
		p, s, ok := numericPS(t)
		if !ok {
			return "", refuse("numeric columns without a precision (MariaDB's DECIMAL has a fixed scale)")
		}
		return "DECIMAL(" + strconv.Itoa(int(p)) + "," + strconv.Itoa(int(s)) + ")", nil
	case "text":
		return "LONGTEXT COLLATE " + textCollation, nil
	case "varchar":
		if t.Typmod < 0 {
			return mariaType(tText, key)
		}
		n := t.Typmod - 4
		if n > 16383 || (key && n > 768) {
			return "", refuse("varchar(%d) (MariaDB's VARCHAR holds at most 16383 characters, 768 in a key)", n)
		}
		return "VARCHAR(" + strconv.Itoa(int(n)) + ") COLLATE " + textCollation, nil
	case "bytea":
		return "LONGBLOB", nil
	}
	return "", refuse("columns of type %s", t.Name)
}

// typeString is the canonical PostgreSQL spelling of t, kept in a column's
// COMMENT and read back by parseTypeString.
func typeString(t Type) string {
	switch {
	case t.Name == "varchar" && t.Typmod >= 4:
		return "varchar(" + strconv.Itoa(int(t.Typmod-4)) + ")"
	case t.Name == "numeric" && t.Typmod >= 4:
		p, s, _ := numericPS(t)
		return "numeric(" + strconv.Itoa(int(p)) + "," + strconv.Itoa(int(s)) + ")"
	}
	return t.Name
}

var typeStringRE = regexp.MustCompile(`^([a-z0-9]+)(?:\((\d+)(?:,(\d+))?\))?$`)

// parseTypeString reads typeString's output back.
func parseTypeString(s string) (Type, bool) {
	m := typeStringRE.FindStringSubmatch(s)
	if m == nil {
		return Type{}, false
	}
	var mods []int32
	for _, x := range m[2:] {
		if x != "" {
			n, err := strconv.Atoi(x)
			if err != nil {
				return Type{}, false
			}
			mods = append(mods, int32(n))
		}
	}
	t, err := withMods(m[1], mods)
	return t, err == nil
}

// scaleOf is the display scale of values of type t when every value has
// the same one (integers 0, numeric(p,s) s), and -1 otherwise.
func scaleOf(t Type) int {
	if intRank(t) > 0 {
		return 0
	}
	if _, s, ok := numericPS(t); ok {
		return int(s)
	}
	return -1
}

// castSQL is MariaDB's CAST target for type t in an expression.
func castSQL(t Type) string {
	switch t.Name {
	case "int2", "int4", "int8":
		return "SIGNED"
	case "numeric":
		if p, s, ok := numericPS(t); ok {
			return "DECIMAL(" + strconv.Itoa(int(p)) + "," + strconv.Itoa(int(s)) + ")"
		}
		return "DECIMAL(65,0)"
	case "float8":
		return "DOUBLE"
	case "date":
		return "DATE"
	case "timestamp", "timestamptz":
		return "DATETIME(6)"
	case "bytea":
		return "BINARY"
	}
	return "CHAR CHARACTER SET utf8mb4"
}

var (
	intRE     = regexp.MustCompile(`^\s*[+-]?\d+\s*$`)
	numericRE = regexp.MustCompile(`^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$`)
	dateRE    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// intRange is the range of an integer type.
func intRange(name string) (int64, int64) {
	switch name {
	case "int2":
		return -32768, 32767
	case "int4":
		return -2147483648, 2147483647
	}
	return -9223372036854775808, 9223372036854775807
}

// literalAs is the MariaDB text of the string literal s read as type t,
// as PostgreSQL's input function reads it (its errors too); stored: in an
// expression MariaDB stores (textLiteral).
func literalAs(s string, t Type, stored bool) (string, Type, error) {
	bad := func() (string, Type, error) {
		return "", t, pgError("22P02", "invalid input syntax for type %s: %q", t.Name, s)
	}
	switch t.Name {
	case "int2", "int4", "int8":
		if !intRE.MatchString(s) {
			return bad()
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		lo, hi := intRange(t.Name)
		if err != nil || n < lo || n > hi {
			return "", t, pgError("22003", "value %q is out of range for type %s", s, t.Name)
		}
		return strconv.FormatInt(n, 10), t, nil
	case "numeric":
		return numericLiteral(s, t)
	case "float8":
		if special(s) {
			return "", t, refuse("float8 NaN and Infinity")
		}
		if !numericRE.MatchString(s) {
			return bad()
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return "", t, pgError("22003", "%q is out of range for type double precision", s)
		}
		if f == 0 && strings.HasPrefix(strings.TrimSpace(s), "-") {
			return "", t, refuse("float8 negative zero (MariaDB returns 0)")
		}
		return strconv.FormatFloat(f, 'e', -1, 64), t, nil
	case "bool":
		return boolLiteral(s, t)
	case "text", "varchar":
		return textLiteral(s, stored), t, nil
	case "date":
		if !dateRE.MatchString(s) {
			return "", t, refuse("date input other than YYYY-MM-DD")
		}
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return "", t, pgError("22008", "date/time field value out of range: %q", s)
		}
		if s < "1000-01-01" {
			return "", t, refuse("the date %q (MariaDB's dates are the years 1000 to 9999)", s)
		}
		return "DATE'" + s + "'", t, nil
	case "timestamp", "timestamptz":
		return timestampLiteral(s, t)
	case "bytea":
		if !strings.HasPrefix(s, `\x`) {
			return "", t, refuse("bytea input other than hex (\\x...)")
		}
		h := s[2:]
		if len(h)%2 != 0 || strings.Trim(h, "0123456789abcdefABCDEF") != "" {
			return bad()
		}
		return "X'" + h + "'", t, nil
	}
	return "", t, refuse("literals of type %s", t.Name)
}

// numericLiteral reads a numeric literal (no NaN, no Infinity).
func numericLiteral(s string, t Type) (string, Type, error) {
	if !numericRE.MatchString(s) {
		if special(s) {
			return "", t, refuse("numeric NaN and Infinity")
		}
		return "", t, pgError("22P02", "invalid input syntax for type numeric: %q", s)
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return "", t, pgError("22P02", "invalid input syntax for type numeric: %q", s)
	}
	scale := literalScale(s)
	txt := r.FloatString(scale)
	if len(strings.TrimLeft(txt, "-")) > 66 || scale > 30 {
		return "", t, refuse("numeric values of more than 65 digits or 30 after the point")
	}
	if _, _, ok := numericPS(t); ok {
		return "CAST(" + txt + " AS " + castSQL(t) + ")", t, nil
	}
	return txt, t, nil
}

// special: NaN or an infinity, as PostgreSQL's input spells them.
func special(s string) bool {
	v := strings.TrimLeft(strings.ToLower(strings.TrimSpace(s)), "+-")
	return v == "nan" || v == "infinity" || v == "inf"
}

// literalScale is the display scale of a numeric literal's text, as
// PostgreSQL's numeric_in computes it (1.50 is 2, 1.5e1 is 0, 15e-1 1).
func literalScale(s string) int {
	s = strings.TrimSpace(s)
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s[i+1:])
	}
	return max(scale-exp, 0)
}

// boolLiteral reads bool input as PostgreSQL's boolin does.
func boolLiteral(s string, t Type) (string, Type, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
		return "TRUE", t, nil
	case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
		return "FALSE", t, nil
	}
	return "", t, pgError("22P02", "invalid input syntax for type boolean: %q", s)
}

// timestampLiteral reads ISO 8601 timestamp input; a timestamptz with an
// offset is converted to UTC (the session's time zone is +00:00).
func timestampLiteral(s string, t Type) (string, Type, error) {
	layouts := []string{"2006-01-02 15:04:05.999999", "2006-01-02T15:04:05.999999", "2006-01-02"}
	if t.Name == "timestamptz" {
		layouts = append([]string{"2006-01-02 15:04:05.999999Z07", "2006-01-02 15:04:05.999999Z07:00", "2006-01-02T15:04:05.999999Z07:00"}, layouts...)
	}
	for _, l := range layouts {
		v, err := time.Parse(l, strings.TrimSpace(s))
		if err != nil {
			continue
		}
		v = v.UTC()
		if v.Year() < 1000 || v.Year() > 9999 {
			return "", t, refuse("timestamps outside the years 1000 to 9999")
		}
		return "TIMESTAMP'" + v.Format("2006-01-02 15:04:05.999999") + "'", t, nil
	}
	return "", t, refuse("timestamp input other than ISO 8601 (%q)", s)
}
