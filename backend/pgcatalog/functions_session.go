package pgcatalog

import (
	"fmt"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// versionText is version()'s text: drivers parse "PostgreSQL 15.0".
const versionText = "PostgreSQL " + serverVersion + " (relchain) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"

// backendPID is pg_backend_pid()'s fixed answer.
const backendPID = 4242

// sessionFuncs are the session's and server's functions: the current
// schema, user, database and settings, the privilege tests, the sizes.
func sessionFuncs(m *model) []scalar {
	user := constant(m.s.User)
	out := []scalar{
		{"current_schema", 0, constant("public")},
		{"current_schemas", 1, strict(func(a []sqlite3.Value) (any, error) {
			if a[0].Bool() {
				return `["pg_catalog","public"]`, nil
			}
			return `["public"]`, nil
		})},
		{"current_database", 0, constant(m.s.Database)},
		{"current_user", 0, user}, {"session_user", 0, user}, {"user", 0, user}, {"current_role", 0, user},
		{"version", 0, constant(versionText)},
		{"current_setting", -1, strict(m.currentSetting)},
		{"pg_encoding_to_char", 1, strict(encodingName)},
		{"pg_char_to_encoding", 1, strict(encodingNumber)},
		{"pg_backend_pid", 0, constant(backendPID)},
		{"pg_is_in_recovery", 0, constant(false)},
		{"pg_size_pretty", 1, strict(func(a []sqlite3.Value) (any, error) { return sizePretty(a[0].Int64()), nil })},
		{"pg_relation_is_publishable", 1, strict(func(a []sqlite3.Value) (any, error) {
			r := m.relByOid[a[0].Int64()]
			return r != nil && r.kind == "r", nil
		})},
		{"pg_postmaster_start_time", 0, constant("2000-01-01 00:00:00+00")},
		{"inet_server_addr", 0, constant(nil)}, {"inet_server_port", 0, constant(nil)},
		{"txid_current", 0, constant(1)},
		{"pg_has_role", -1, strict(constant(true))},
	}
	for _, n := range []string{"pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size",
		"pg_database_size"} {
		out = append(out, scalar{n, -1, strict(constant(0))})
	}
	for _, n := range []string{"table", "schema", "database", "column", "sequence", "function"} {
		out = append(out, scalar{"has_" + n + "_privilege", -1, strict(constant(true))})
	}
	return out
}

// currentSetting is current_setting(name[, missing_ok]).
func (m *model) currentSetting(a []sqlite3.Value) (any, error) {
	name := a[0].Text()
	for _, s := range settings(m.s) {
		if strings.EqualFold(s.name, name) {
			return s.value, nil
		}
	}
	if len(a) > 1 && a[1].Bool() {
		return nil, nil
	}
	return nil, pgError("42704", "unrecognized configuration parameter %q", name)
}

// encodingName is pg_encoding_to_char.
func encodingName(a []sqlite3.Value) (any, error) {
	switch a[0].Int64() {
	case 0:
		return "SQL_ASCII", nil
	case encodingUTF8:
		return "UTF8", nil
	}
	return "", nil
}

// encodingNumber is pg_char_to_encoding.
func encodingNumber(a []sqlite3.Value) (any, error) {
	switch strings.ToUpper(a[0].Text()) {
	case "SQL_ASCII":
		return 0, nil
	case "UTF8", "UTF-8", "UNICODE":
		return encodingUTF8, nil
	}
	return -1, nil
}

// sizePretty is pg_size_pretty(bigint) as PostgreSQL 15 rounds it.
func sizePretty(size int64) string {
	const limit = 10 * 1024
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	if abs(size) < limit {
		return fmt.Sprintf("%d bytes", size)
	}
	size >>= 9 // one extra bit for rounding
	for _, unit := range []string{"kB", "MB", "GB", "TB"} {
		if abs(size) < limit*2-1 || unit == "TB" {
			return fmt.Sprintf("%d %s", halfRounded(size), unit)
		}
		size >>= 10
	}
	return ""
}

func halfRounded(x int64) int64 {
	if x < 0 {
		return (x - 1) / 2
	}
	return (x + 1) / 2
}
