package postgres

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/relchain/relchain/backend"
)

// typeNames maps the OIDs of PostgreSQL's built-in types in relchain's
// type vocabulary (backend/types.go) to their names: on PostgreSQL the
// vocabulary is the database's own, so this is the identity on the types
// it names. Every other type (arrays, enums, domains, name, oid, inet,
// ...) is unknown, so that a wire front end sends its text form, which is
// what Query returns for it (convertValue).
var typeNames = map[uint32]string{
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
}

// typeName is oid's name in the vocabulary, or backend.TypeUnknown.
func typeName(oid uint32) string { return typeNames[oid] }
