package backend

import "context"

// Column and parameter types travel as PostgreSQL type names, whatever the
// database: a PostgreSQL wire-protocol front end turns them into type OIDs
// (RowDescription, ParameterDescription), and any other client reads them
// as the lingua franca of SQL types. Each backend maps its own types onto
// this vocabulary in one documented place (sqlite/types.go,
// postgres/types.go, mysql/types.go); a type outside it is TypeUnknown,
// for which a front end sends text.
const (
	TypeUnknown     = ""
	TypeBool        = "bool"
	TypeInt2        = "int2"
	TypeInt4        = "int4"
	TypeInt8        = "int8"
	TypeFloat4      = "float4"
	TypeFloat8      = "float8"
	TypeNumeric     = "numeric"
	TypeText        = "text"
	TypeVarchar     = "varchar"
	TypeBpchar      = "bpchar"
	TypeBytea       = "bytea"
	TypeDate        = "date"
	TypeTime        = "time"
	TypeTimestamp   = "timestamp"
	TypeTimestamptz = "timestamptz"
	TypeInterval    = "interval"
	TypeJSON        = "json"
	TypeJSONB       = "jsonb"
	TypeUUID        = "uuid"
	TypeTimetz      = "timetz"
	// TypeName is PostgreSQL's name, the type of the catalogs' names
	// (arrays of it are the catalogs' column lists).
	TypeName = "name"
)

// ArrayPrefix makes an array type's name from its element's, as
// PostgreSQL names them ("_int4" is int4[]). A backend that knows its
// arrays' element types (PostgreSQL) reports arrays of the types above so.
const ArrayPrefix = "_"

// Description is what a statement takes and returns, learnt without
// executing it (see Describer).
type Description struct {
	// Height is the committed height of the schema the statement was
	// described on.
	Height int64
	// Params has one type per placeholder, in order ($1.. on PostgreSQL,
	// ? on SQLite and MySQL); TypeUnknown where the database cannot tell.
	Params []string
	// Columns are the result's columns, in order; empty when the
	// statement returns no rows (an INSERT without RETURNING, DDL).
	Columns []ColumnType
}

// ColumnType is one result column's name and type (the vocabulary above).
// Typmod is PostgreSQL's type modifier where the database reports one
// (numeric(p,s): (p<<16|s)+4, varchar(n) and char(n): n+4, timestamp(p),
// time(p), interval(p): p); nil when there is none.
type ColumnType struct {
	Name   string
	Type   string
	Typmod *int32
}

// Describer is implemented by every backend: it is a separate interface
// only so that the contract reads on its own.
type Describer interface {
	// Describe returns the types of sql's parameters and result columns on
	// committed state, for reads and for writes, without executing a write
	// or changing anything, and holds no lock once it returns. The text is
	// hostile: it passes the same gate and bounds (timeouts, read work
	// limits) as Query, and a statement the database cannot compile
	// returns an *Error with the database's message, never a panic.
	// Relchain's own tables are no more describable than Query can read
	// them.
	Describe(ctx context.Context, sql string) (*Description, error)
}
