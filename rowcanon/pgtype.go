package rowcanon

// KindOfPGType is the canonical kind of every value of the PostgreSQL
// type named name (pg_type.typname, as the postgres dialect spells it),
// for the types with a canonical form; known is false for any other
// (jsonb, arrays, enums …: rowcanon's DESIGN.md §7-8). The backends
// that read canonical rows and the client that encodes keys share it.
func KindOfPGType(name string) (kind Kind, known bool) {
	switch name {
	case "bool":
		return KindBool, true
	case "int2", "int4", "int8":
		return KindInt, true
	case "numeric":
		return KindNumeric, true
	case "float4", "float8":
		return KindFloat, true
	case "text", "varchar", "bpchar":
		return KindText, true
	case "bytea":
		return KindBytes, true
	case "date":
		return KindDate, true
	case "timestamp", "timestamptz":
		return KindTimestamp, true
	case "uuid":
		return KindUUID, true
	case "json":
		return KindJSON, true
	}
	return KindNull, false
}
