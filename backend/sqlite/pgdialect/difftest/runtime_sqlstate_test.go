package difftest

// runtimeSQLState is the SQLSTATE the dialect's runtime gives a SQLite
// error (its functions raise PostgreSQL's errors: 22012 division by zero,
// 22003 overflow ...), or "" when it names none. Until pgruntime exports
// its mapping, none.
func runtimeSQLState(err error) string { return "" }
