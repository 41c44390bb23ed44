package sqlite

import (
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// declaredType maps a column's declared type (sqlite3_column_decltype) to
// relchain's type vocabulary (backend/types.go). SQLite types values, not
// columns, so the declaration is only what the schema's author meant; the
// rules follow SQLite's own affinity rules (https://sqlite.org/datatype3.html
// §3.1, checked in the same order: INT before CHAR before BLOB before
// REAL), refined where a declaration says more than its affinity:
//
//	contains BOOL                          bool
//	contains INT                           int8 (SQLite integers are 64-bit)
//	contains CHAR, CLOB or TEXT            text (SQLite ignores lengths)
//	contains BLOB                          bytea
//	contains REAL, FLOA or DOUB            float8
//	DATETIME, contains TIMESTAMP           timestamp
//	contains DATE                          date
//	contains TIME                          time
//	contains NUMERIC or DECIMAL            numeric
//	contains JSON                          json
//	anything else, or no declaration       unknown ("": a front end sends text)
//
// BOOL is checked first because SQLite gives it NUMERIC affinity and it
// holds 0 and 1. DATE, TIME and TIMESTAMP are honoured as declared,
// although SQLite stores whatever text or number the writer gave: Query
// reports "" instead when a returned value does not have the storage
// class the type needs (see valueTypes).
func declaredType(decl string) string {
	d := strings.ToUpper(decl)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(d, s) {
				return true
			}
		}
		return false
	}
	switch {
	case d == "":
		return backend.TypeUnknown
	case has("BOOL"):
		return backend.TypeBool
	case has("INT"):
		return backend.TypeInt8
	case has("CHAR", "CLOB", "TEXT"):
		return backend.TypeText
	case has("BLOB"):
		return backend.TypeBytea
	case has("REAL", "FLOA", "DOUB"):
		return backend.TypeFloat8
	case d == "DATETIME" || has("TIMESTAMP"):
		return backend.TypeTimestamp
	case has("DATE"):
		return backend.TypeDate
	case has("TIME"):
		return backend.TypeTime
	case has("NUMERIC", "DECIMAL"):
		return backend.TypeNumeric
	case has("JSON"):
		return backend.TypeJSON
	}
	return backend.TypeUnknown
}

// storageType is the type of a value of one SQLite storage class: what a
// column without a declaration (an expression, count(*)) reports in Query.
func storageType(v any) string {
	switch v.(type) {
	case int64:
		return backend.TypeInt8
	case float64:
		return backend.TypeFloat8
	case string:
		return backend.TypeText
	case []byte:
		return backend.TypeBytea
	}
	return backend.TypeUnknown
}

// fits reports whether a value of rows (as run returns them) can travel as
// type t: SQLite lets any column hold any storage class.
func fits(t string, v any) bool {
	switch v.(type) {
	case nil:
		return true
	case int64:
		return t == backend.TypeInt8 || t == backend.TypeBool || t == backend.TypeNumeric || t == backend.TypeFloat8
	case float64:
		return t == backend.TypeFloat8 || t == backend.TypeNumeric
	case string:
		switch t {
		case backend.TypeText, backend.TypeDate, backend.TypeTime, backend.TypeTimestamp, backend.TypeJSON:
			return true
		}
	case []byte:
		return t == backend.TypeBytea
	}
	return false
}

// declaredTypes maps every column's declaration of stmt.
func declaredTypes(stmt *sqlite3.Stmt) []string {
	n := stmt.ColumnCount()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = declaredType(stmt.ColumnDeclType(i))
	}
	return out
}

// valueTypes is Query's Types: each column's declared type when every
// returned value fits it, else, for a column without a declaration, the
// storage class of its first non-NULL value when every value has it, else
// unknown. Describe, which runs nothing, reports declarations only.
func valueTypes(decl []string, rows [][]any) []string {
	out := make([]string, len(decl))
	for i, t := range decl {
		if t == backend.TypeUnknown {
			t = firstStorageType(rows, i)
		}
		for _, row := range rows {
			if !fits(t, row[i]) {
				t = backend.TypeUnknown
				break
			}
		}
		out[i] = t
	}
	return out
}

func firstStorageType(rows [][]any, col int) string {
	for _, row := range rows {
		if row[col] != nil {
			return storageType(row[col])
		}
	}
	return backend.TypeUnknown
}
