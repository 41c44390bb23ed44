package difftest

import "github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"

// runtimeSQLState is the SQLSTATE the dialect's runtime gives a SQLite
// error (its functions raise PostgreSQL's errors: 22012 division by zero,
// 22003 overflow ...), or "" when it names none.
func runtimeSQLState(err error) string {
	code, _ := pgruntime.SQLState(err)
	return code
}
