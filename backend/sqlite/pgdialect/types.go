package pgdialect

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// typeAliases maps the names PostgreSQL's grammar gives the supported
// types (after pg_catalog. qualification) to their pg_type names.
var typeAliases = map[string]string{
	"int2": "int2", "smallint": "int2", "int4": "int4", "int": "int4", "integer": "int4",
	"int8": "int8", "bigint": "int8", "float4": "float4", "real": "float4", "float8": "float8",
	"double precision": "float8", "text": "text", "varchar": "varchar", "bool": "bool", "boolean": "bool",
	"bytea": "bytea", "date": "date", "timestamp": "timestamp", "timestamptz": "timestamptz", "json": "json",
	"numeric": "numeric", "decimal": "numeric", "bpchar": "bpchar", "jsonb": "jsonb", "uuid": "uuid",
}

// declared is how CREATE TABLE spells each type for SQLite: the pg_type
// name, and a second word where SQLite's affinity rules would otherwise
// change a stored value: json '1' would become the integer 1 under
// NUMERIC affinity, and REAL affinity writes a whole float as an integer
// in the record, which turns -0 into 0 (SQLite reads it back as +0.0).
// Affinity: int* INTEGER; the "... blob" spellings BLOB (values stored as
// the translation computed them: float4/float8 values are always REAL,
// which the differential suite checks after every case); text, varchar
// and the "... text" spellings TEXT; bool and bytea NUMERIC (0/1 integers
// and blobs are stored as they are).
var declared = map[string]string{
	"int2": "int2", "int4": "int4", "int8": "int8", "float4": "float4 blob", "float8": "float8 blob",
	"text": "text", "varchar": "varchar", "bool": "bool", "bytea": "bytea",
	"date": "date text", "timestamp": "timestamp text", "timestamptz": "timestamptz text", "json": "json text",
	"numeric": "numeric text", "bpchar": "bpchar", "jsonb": "jsonb text", "uuid": "uuid text",
}

// DeclaredType is the SQLite declared type CREATE TABLE writes for t.
func DeclaredType(t Type) string {
	if isArray(t) {
		return "_" + DeclaredType(elemOf(t)) // _text, _varchar(20), _int4: see arrays.go
	}
	d := declared[t.Name]
	switch {
	case t.Typmod < 4:
	case t.Name == "varchar", t.Name == "bpchar":
		d += "(" + strconv.Itoa(int(t.Typmod-4)) + ")"
	case t.Name == "numeric":
		p, s := pgconv.NumericPrecisionScale(t.Typmod)
		d += "(" + strconv.Itoa(int(p)) + "," + strconv.Itoa(int(s)) + ")"
	}
	return d
}

// Collation is the COLLATE clause CREATE TABLE gives a column of type t:
// SQLite's built-in RTRIM (trailing spaces ignored) for char(n), whose
// comparisons ignore trailing blanks, and for numeric, whose stored form
// keeps the display scale in trailing spaces (pgconv.EncodeNumeric).
func Collation(t Type) string {
	if t.Name == "numeric" || t.Name == "bpchar" {
		return " COLLATE RTRIM"
	}
	return ""
}

// ParseDeclaredType reads back a declared type DeclaredType wrote; false
// for any other (a table the dialect did not create).
func ParseDeclaredType(decl string) (Type, bool) {
	d := strings.ToLower(strings.TrimSpace(decl))
	if strings.HasPrefix(d, "_") {
		return parseArrayDeclared(d)
	}
	if _, ok := ParseSerial(d); ok {
		d = strings.Fields(d)[0] // int2/int4/int8 serial <sequence>
		if d != "int2" && d != "int4" && d != "int8" {
			return Type{}, false
		}
	}
	for _, name := range []string{"varchar", "bpchar"} {
		if strings.HasPrefix(d, name+"(") && strings.HasSuffix(d, ")") {
			n, err := strconv.Atoi(d[len(name)+1 : len(d)-1])
			if err != nil || n < 1 {
				return Type{}, false
			}
			return Type{Name: name, Typmod: int32(n + 4)}, true
		}
	}
	if strings.HasPrefix(d, "numeric text(") && strings.HasSuffix(d, ")") {
		ps := strings.Split(d[len("numeric text("):len(d)-1], ",")
		if len(ps) != 2 {
			return Type{}, false
		}
		p, err1 := strconv.Atoi(ps[0])
		s, err2 := strconv.Atoi(ps[1])
		if err1 != nil || err2 != nil || p < 1 || p > 1000 || s < 0 || s > p {
			return Type{}, false
		}
		return Type{Name: "numeric", Typmod: pgconv.NumericTypmod(int32(p), int32(s))}, true
	}
	for name, spelled := range declared {
		if spelled == d {
			return Type{Name: name, Typmod: -1}, true
		}
	}
	if d == "float4" || d == "float8" {
		// The spelling of builds before "… blob" (REAL affinity: such a
		// table reads -0 back as 0, as it always did).
		return Type{Name: d, Typmod: -1}, true
	}
	return Type{}, false
}

// typeFromName resolves a TypeName of a cast or column definition.
func typeFromName(tn *pg_query.TypeName) (Type, error) {
	var parts []string
	for _, n := range tn.GetNames() {
		parts = append(parts, strNode(n))
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	full := strings.Join(parts, ".")
	if tn.GetSetof() || tn.GetPctType() {
		return Type{}, refuse("the type %s (SETOF, %%TYPE)", full)
	}
	name, ok := typeAliases[full]
	if !ok {
		return Type{}, refuse("the type %s", full)
	}
	t, err := typeWithMods(name, tn.GetTypmods())
	if err != nil || len(tn.GetArrayBounds()) == 0 {
		return t, err
	}
	return arrayType(t, len(tn.GetArrayBounds()))
}

// typeWithMods applies a type's modifiers: varchar(n), char(n),
// numeric(p[,s]); float(p) and timestamp(p) precisions are refused.
func typeWithMods(name string, mods []*pg_query.Node) (Type, error) {
	t := Type{Name: name, Typmod: -1}
	if len(mods) == 0 {
		return t, nil
	}
	if name == "numeric" {
		return numericMods(mods)
	}
	if (name != "varchar" && name != "bpchar") || len(mods) != 1 {
		return Type{}, refuse("type modifiers on %s", name)
	}
	n, ok := mods[0].GetAConst().GetVal().(*pg_query.A_Const_Ival)
	if !ok || n.Ival.GetIval() < 1 || n.Ival.GetIval() > 10485760 {
		return Type{}, pgError("22023", "length for type %s must be between 1 and 10485760", name)
	}
	t.Typmod = n.Ival.GetIval() + 4
	return t, nil
}

// numericMods is numeric(p) or numeric(p, s): p from 1 to 1000 (22023
// otherwise, as PostgreSQL); a scale outside 0..p, which PostgreSQL 15
// accepts, is refused.
func numericMods(mods []*pg_query.Node) (Type, error) {
	var ps []int32
	for _, m := range mods {
		n, ok := m.GetAConst().GetVal().(*pg_query.A_Const_Ival)
		if !ok {
			return Type{}, pgError("22P02", "type modifiers must be simple constants or identifiers")
		}
		ps = append(ps, n.Ival.GetIval())
	}
	if len(ps) > 2 {
		return Type{}, pgError("22023", "invalid NUMERIC type modifier")
	}
	if ps[0] < 1 || ps[0] > 1000 {
		return Type{}, pgError("22023", "NUMERIC precision %d must be between 1 and 1000", ps[0])
	}
	if len(ps) == 1 {
		ps = append(ps, 0)
	}
	if ps[1] < 0 || ps[1] > ps[0] {
		return Type{}, refuse("numeric scales outside 0 to the precision (numeric(%d,%d))", ps[0], ps[1])
	}
	return Type{Name: "numeric", Typmod: pgconv.NumericTypmod(ps[0], ps[1])}, nil
}

func isInt(t Type) bool   { return t.Name == "int2" || t.Name == "int4" || t.Name == "int8" }
func isFloat(t Type) bool { return t.Name == "float4" || t.Name == "float8" }
func isNum(t Type) bool   { return isInt(t) || isFloat(t) || t.Name == "numeric" }
func isText(t Type) bool  { return t.Name == "text" || t.Name == "varchar" }

var (
	tUnknown = Type{Name: "unknown", Typmod: -1}
	tBool    = Type{Name: "bool", Typmod: -1}
	tInt4    = Type{Name: "int4", Typmod: -1}
	tInt8    = Type{Name: "int8", Typmod: -1}
	tFloat8  = Type{Name: "float8", Typmod: -1}
	tText    = Type{Name: "text", Typmod: -1}
	tNumeric = Type{Name: "numeric", Typmod: -1}
)

// intBits is an integer type's width.
func intBits(t Type) int {
	return map[string]int{"int2": 16, "int4": 32, "int8": 64}[t.Name]
}

// widerNum is the type PostgreSQL's arithmetic and set operations
// resolve two numeric types to.
func widerNum(a, b Type) Type {
	switch {
	case isInt(a) && isInt(b):
		if intBits(a) >= intBits(b) {
			return Type{Name: a.Name, Typmod: -1}
		}
		return Type{Name: b.Name, Typmod: -1}
	case a.Name == "float4" && b.Name == "float4":
		return Type{Name: "float4", Typmod: -1}
	case isFloat(a) || isFloat(b):
		return tFloat8
	case a == b:
		return a // numeric(p,s) with itself keeps its typmod
	case a.Name == "numeric" || b.Name == "numeric":
		return tNumeric
	}
	return tFloat8
}

// Refusals lists the constructs the postgres dialect on SQLite refuses
// that PostgreSQL accepts, for the documentation's generated list.
func Refusals() []string {
	return []string{
		"types interval, time, identity columns and any other type not in the supported list",
		"jsonb's order and grouping (<, ORDER BY, GROUP BY, DISTINCT, UNION/INTERSECT/EXCEPT without ALL, UNIQUE, PRIMARY KEY, indexes and foreign keys on jsonb), jsonb operators other than -> ->> #> #>> @> <@ ? ?| ?& = <>, json/jsonb functions other than json(b)_typeof, json(b)_array_length, json(b)_build_object, json(b)_build_array, to_json(b) (and these over float, timestamp, bytea or array arguments), casts from jsonb to numbers and bool",
		"multi-dimensional arrays, array slices, array bounds in input ('[1:2]={...}'), arrays of types other than text, varchar, int2/int4/int8, bool, date, timestamp and timestamptz (numeric[], float8[] ...), array order (<, ORDER BY, min/max, greatest/least), unnest in the select list or over another FROM item's column (LATERAL), ANY/ALL other than = ANY and <> ALL, casts and || between arrays of different element types (int4[] to int8[], text[] || varchar[])",
		"serial columns added by ALTER TABLE, INSERT ... SELECT that leaves a serial column to its sequence, currval/lastval, nextval/setval other than as the only output column of a SELECT (SELECT setval('s', max(id)) FROM t is supported), CREATE/ALTER/DROP SEQUENCE",
		"numeric NaN and Infinity, numeric(p, s) with a scale outside 0 to p, numeric values in LIMIT/OFFSET",
		"float(p), timestamp(p) and other type modifiers except varchar(n), char(n) and numeric(p, s)",
		"NaN, infinite or BC dates, dates outside the years 1 to 9999, and date/time input other than ISO 8601",
		"the text form of float4/float8 values (casts to text, concatenation)",
		"sum and avg of float4/float8, and every aggregate other than count, sum, avg, min, max, bool_and, bool_or, every, string_agg (constant delimiter)",
		"set operations mixing char(n) with other types; IN (subquery) and NULLIF across integer, float and numeric; trunc of a float",
		"grouping that must pick one of several equal values of different display scales: two GROUP BY columns of type numeric without a scale or bpchar without a length shown outside aggregates, a GROUP BY expression of such a type shown outside aggregates, such a GROUP BY column of an enclosing query inside an aggregate of a subquery; a set operation nested in another that changes its column's type to one stored otherwise (numeric beside float8, an integer beside numeric); DISTINCT ON and order-sensitive window functions over a FROM item with two columns of the same name",
		"the operator - between an untyped literal or NULL and text (PostgreSQL reads it as jsonb - text)",
		"WITHIN GROUP; window functions other than row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead, first_value, last_value, nth_value and the supported aggregates (string_agg and array_agg OVER); their integer arguments (ntile, lag/lead offsets, nth_value) and frame offsets other than constants; first_value, last_value and nth_value over a RANGE or GROUPS frame whose bound they read is an offset (first_value from an offset, last_value to one, nth_value not from UNBOUNDED PRECEDING), or with EXCLUDE; EXCLUDE GROUP/TIES on the ROWS frame of an order-sensitive window function; RANGE with an offset over types other than integers and floats; order-sensitive window functions in a query grouped by positions, output names or grouping sets",
		"WITH RECURSIVE whose recursive term has a set operation, WITH, ORDER BY, LIMIT, DISTINCT, GROUP BY, HAVING, VALUES or window functions, or its recursive reference in an outer join; a WITH RECURSIVE query referring to a later one; SEARCH and CYCLE; data-modifying WITH, WITH on INSERT/UPDATE/DELETE, DISTINCT ON in grouped queries, INTERSECT ALL, EXCEPT ALL, JOIN USING ... AS alias",
		"UPDATE ... FROM other than one VALUES list, column names on that list (AS v(a, b)), RETURNING in UPDATE ... FROM, UPDATE with WITH, MERGE, ON CONFLICT DO UPDATE on a SELECT, and on several VALUES rows when an arbiter key value is not a parameter or a constant, an arbiter column takes its default, SET assigns an arbiter column, or DO UPDATE has a WHERE",
		"ON CONFLICT ON CONSTRAINT, ON CONFLICT (...) WHERE (the index predicate)",
		"set operations across date, timestamp and timestamptz; timestamp arithmetic and intervals (date ± integer and date - date are supported)",
		"LIKE ... ESCAPE, SIMILAR TO and regular expressions",
		"DROP TABLE ... CASCADE when another table references one of the dropped tables",
		"ALTER TABLE forms other than ADD/DROP COLUMN, ADD/DROP CONSTRAINT, ALTER COLUMN SET/DROP NOT NULL, SET/DROP DEFAULT and TYPE; ALTER COLUMN TYPE of a serial column, of a column a CHECK uses, of a column a FOREIGN KEY uses or references to a type stored differently (int4 to text), of a column whose DEFAULT does not convert to the new type, or beside other subcommands; DROP COLUMN of a column a table constraint names or an expression or partial index uses (a plain index on it is dropped with it, as on PostgreSQL); rebuilding a table whose referencing tables reference each other in a cycle, or whose rows reference each other through a foreign key ON DELETE RESTRICT",
		"deferrable constraints other than foreign keys; SET CONSTRAINTS ... DEFERRED of a DEFERRABLE INITIALLY IMMEDIATE foreign key (ALL, while one exists, or by name) or of one key after SET CONSTRAINTS ALL IMMEDIATE; exclusion constraints, NULLS NOT DISTINCT, partial and expression indexes, CHECK ... NOT VALID",
		"a CREATE TABLE or ALTER TABLE whose PRIMARY KEY's or UNIQUE constraint's default index name (t_pkey, t_a_key), or serial column's sequence name (t_id_seq), another relation holds (PostgreSQL would choose t_pkey1: name the constraint); CREATE TABLE or CREATE INDEX IF NOT EXISTS over a name another kind of relation holds",
		"subqueries in RETURNING; TRUNCATE ONLY and TRUNCATE ... CASCADE over other tables; CREATE TABLE AS; views, triggers, functions and sequences",
		"any function, operator or statement not in the supported list",
	}
}
