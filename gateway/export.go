package gateway

// Split cuts a script into its statements at top-level semicolons: never
// inside a quoted string, a quoted identifier, a comment or (dollarQuotes:
// PostgreSQL) a dollar-quoted string. Empty statements are dropped; a quote
// or comment left open is an error. The relchain CLI splits `exec -f`
// scripts with it, the gateway a simple query.
func Split(sql string, dollarQuotes bool) ([]string, error) { return split(sql, dollarQuotes) }

// IsWrite reports whether the gateway would send sql as a transaction
// rather than read it on the query path: its first keyword is not SELECT,
// VALUES, TABLE, EXPLAIN or a WITH without a data-modifying statement, nor
// session or transaction control.
func IsWrite(sql string) bool { return classify(sql) == kindWrite }

// StripLiterals is sql with its quoted strings and identifiers replaced by
// a space and its comments dropped: what is left are keywords, names,
// numbers and operators.
func StripLiterals(sql string) string { return stripLiterals(sql) }
