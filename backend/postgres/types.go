package postgres

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/relchain/relchain/backend"
)

// typeNames maps the OIDs of PostgreSQL's built-in types in relchain's
// type vocabulary (backend/types.go) to their names: on PostgreSQL the
// vocabulary is the database's own, so this is the identity on the types
// it names, and arrays of them are named PostgreSQL's way ("_int4"). Every
// other type (enums, domains, name, oid, inet, ...) is unknown, so that a
// wire front end sends its text form, which is what Query returns for it
// (convertValue).
var typeNames = map[uint32]string{
	oidTimetz:                  backend.TypeTimetz,
	pgtype.BoolArrayOID:        backend.ArrayPrefix + backend.TypeBool,
	pgtype.ByteaArrayOID:       backend.ArrayPrefix + backend.TypeBytea,
	pgtype.Int2ArrayOID:        backend.ArrayPrefix + backend.TypeInt2,
	pgtype.Int4ArrayOID:        backend.ArrayPrefix + backend.TypeInt4,
	pgtype.Int8ArrayOID:        backend.ArrayPrefix + backend.TypeInt8,
	pgtype.Float4ArrayOID:      backend.ArrayPrefix + backend.TypeFloat4,
	pgtype.Float8ArrayOID:      backend.ArrayPrefix + backend.TypeFloat8,
	pgtype.NumericArrayOID:     backend.ArrayPrefix + backend.TypeNumeric,
	pgtype.TextArrayOID:        backend.ArrayPrefix + backend.TypeText,
	pgtype.VarcharArrayOID:     backend.ArrayPrefix + backend.TypeVarchar,
	pgtype.BPCharArrayOID:      backend.ArrayPrefix + backend.TypeBpchar,
	pgtype.DateArrayOID:        backend.ArrayPrefix + backend.TypeDate,
	pgtype.TimeArrayOID:        backend.ArrayPrefix + backend.TypeTime,
	oidTimetzArray:             backend.ArrayPrefix + backend.TypeTimetz,
	pgtype.TimestampArrayOID:   backend.ArrayPrefix + backend.TypeTimestamp,
	pgtype.TimestamptzArrayOID: backend.ArrayPrefix + backend.TypeTimestamptz,
	pgtype.IntervalArrayOID:    backend.ArrayPrefix + backend.TypeInterval,
	pgtype.JSONArrayOID:        backend.ArrayPrefix + backend.TypeJSON,
	pgtype.JSONBArrayOID:       backend.ArrayPrefix + backend.TypeJSONB,
	pgtype.UUIDArrayOID:        backend.ArrayPrefix + backend.TypeUUID,
	pgtype.NameArrayOID:        backend.ArrayPrefix + backend.TypeName,

	pgtype.BoolOID:        backend.TypeBool,
	pgtype.Int2OID:        backend.TypeInt2,
	pgtype.Int4OID:        backend.TypeInt4,
	pgtype.Int8OID:        backend.TypeInt8,
	pgtype.Float4OID:      backend.TypeFloat4,
	pgtype.Float8OID:      backend.TypeFloat8,
	pgtype.NumericOID:     backend.TypeNumeric,
	pgtype.TextOID:        backend.TypeText,
	pgtype.VarcharOID:     backend.TypeVarchar,
	pgtype.BPCharOID:      backend.TypeBpchar,
	pgtype.ByteaOID:       backend.TypeBytea,
	pgtype.DateOID:        backend.TypeDate,
	pgtype.TimeOID:        backend.TypeTime,
	pgtype.TimestampOID:   backend.TypeTimestamp,
	pgtype.TimestamptzOID: backend.TypeTimestamptz,
	pgtype.IntervalOID:    backend.TypeInterval,
	pgtype.JSONOID:        backend.TypeJSON,
	pgtype.JSONBOID:       backend.TypeJSONB,
	pgtype.UUIDOID:        backend.TypeUUID,
	pgtype.NameOID:        backend.TypeName,
}

// timetz and its array, which pgtype does not name.
const (
	oidTimetz      = 1266
	oidTimetzArray = 1270
)

// typmodOf is a field's type modifier as the vocabulary carries it: nil
// for none (-1).
func typmodOf(m int32) *int32 {
	if m < 0 {
		return nil
	}
	return &m
}

// typeName is oid's name in the vocabulary, or backend.TypeUnknown.
func typeName(oid uint32) string { return typeNames[oid] }
