package mysql

import (
	"database/sql"

	"github.com/relchain/relchain/backend"
)

// typeNames maps the driver's column type names (go-sql-driver's
// DatabaseTypeName, from the server's column definitions) to relchain's
// type vocabulary (backend/types.go), so that the name matches the value
// Query returns for the column (convert):
//
//	TINYINT, SMALLINT, YEAR            int2 (BOOLEAN is TINYINT(1), and the
//	                                   driver does not expose the display
//	                                   width: booleans are int2, values 0/1)
//	UNSIGNED TINYINT                   int2
//	UNSIGNED SMALLINT, MEDIUMINT, INT  int4
//	UNSIGNED INT, BIGINT               int8
//	UNSIGNED BIGINT                    numeric (above int64 it is text)
//	DECIMAL                            numeric
//	FLOAT, DOUBLE                      float4, float8
//	CHAR, VARCHAR                      bpchar, varchar
//	TINYTEXT ... LONGTEXT              text (MariaDB's JSON is LONGTEXT)
//	ENUM, SET                          text
//	BINARY, VARBINARY, *BLOB, BIT      bytea
//	DATE, TIME                         date, time (a MySQL TIME may be
//	                                   negative or above 24 hours)
//	DATETIME, TIMESTAMP                timestamp (the session's time zone
//	                                   is pinned to +00:00)
//	JSON                               json
//	GEOMETRY, VECTOR, NULL, others     unknown
var typeNames = map[string]string{
	"TINYINT": backend.TypeInt2, "UNSIGNED TINYINT": backend.TypeInt2,
	"SMALLINT": backend.TypeInt2, "YEAR": backend.TypeInt2,
	"UNSIGNED SMALLINT": backend.TypeInt4, "MEDIUMINT": backend.TypeInt4,
	"UNSIGNED MEDIUMINT": backend.TypeInt4, "INT": backend.TypeInt4,
	"UNSIGNED INT": backend.TypeInt8, "BIGINT": backend.TypeInt8,
	"UNSIGNED BIGINT": backend.TypeNumeric, "DECIMAL": backend.TypeNumeric,
	"FLOAT": backend.TypeFloat4, "DOUBLE": backend.TypeFloat8,
	"CHAR": backend.TypeBpchar, "VARCHAR": backend.TypeVarchar,
	"TINYTEXT": backend.TypeText, "TEXT": backend.TypeText,
	"MEDIUMTEXT": backend.TypeText, "LONGTEXT": backend.TypeText,
	"ENUM": backend.TypeText, "SET": backend.TypeText,
	"BINARY": backend.TypeBytea, "VARBINARY": backend.TypeBytea,
	"TINYBLOB": backend.TypeBytea, "BLOB": backend.TypeBytea,
	"MEDIUMBLOB": backend.TypeBytea, "LONGBLOB": backend.TypeBytea,
	"BIT":  backend.TypeBytea,
	"DATE": backend.TypeDate, "TIME": backend.TypeTime,
	"DATETIME": backend.TypeTimestamp, "TIMESTAMP": backend.TypeTimestamp,
	"JSON": backend.TypeJSON,
}

// columnTypes maps a result's column types (typeNames).
func columnTypes(cts []*sql.ColumnType) []string {
	if len(cts) == 0 {
		return nil
	}
	out := make([]string, len(cts))
	for i, ct := range cts {
		out[i] = typeNames[ct.DatabaseTypeName()]
	}
	return out
}
