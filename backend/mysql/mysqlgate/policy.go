package mysqlgate

const autoIncrementReason = "AUTO_INCREMENT is not transactional: a node that crashes mid-block and replays it advances the counter twice, on that node only; supply key values explicitly"

// knownTypes are the parse-tree types the gate knows, with the fields it
// walks (in declaration order, see walker.walk). A field not listed must
// be zero: a construct the parser records in it is rejected (fieldReasons
// explain the common ones). Fields of the parser's own bookkeeping (parse
// positions, the permission information it derives, unexported fields)
// are in ignoredFields. Any type not listed here is rejected by name.
var knownTypes = map[string][]string{
	// Statements (top-level kinds are restricted further by checkTopLevel).
	"Select":      {"Comments", "QueryOpts", "With", "SelectExprs", "From", "Where", "GroupBy", "Having", "OrderBy", "Limit"},
	"SetOp":       {"Type", "Left", "Right", "OrderBy", "With", "Limit"},
	"ParenSelect": {"Select"},
	"Insert":      {"Action", "Comments", "Ignore", "Table", "With", "Columns", "Rows", "OnDup"},
	"Update":      {"Comments", "Ignore", "TableExprs", "With", "Exprs", "Where", "OrderBy", "Limit"},
	"Delete":      {"Comments", "Targets", "TableExprs", "With", "Where", "OrderBy", "Limit"},
	"DDL": {"Action", "ColumnAction", "ConstraintAction", "ConstraintIfExists", "Column", "ColumnOrder",
		"ToColumn", "FromTables", "Table", "ViewSpec", "FromViews", "IfExists", "IfNotExists", "OrReplace",
		"TableSpec", "OptLike", "IndexSpec", "DefaultSpec", "NotNullSpec", "ColumnTypeSpec"},
	"AlterTable": {"Table", "Statements"},

	// Query structure.
	"QueryOpts":        {"All", "Distinct", "StraightJoinHint", "SQLNoCache"},
	"With":             {"Ctes"},
	"CommonTableExpr":  {"AliasedTableExpr", "Columns"},
	"AliasedTableExpr": {"Expr", "As", "Lateral"},
	"AliasedExpr":      {"Expr", "As"},
	"StarExpr":         {"TableName"},
	"TableName":        {"Name"},
	"Subquery":         {"Select", "Columns"},
	"JoinTableExpr":    {"LeftExpr", "Join", "RightExpr", "Condition"},
	"JoinCondition":    {"On", "Using"},
	"ParenTableExpr":   {"Exprs"},
	"Where":            {"Type", "Expr"},
	"Order":            {"Expr", "Direction"},
	"Limit":            {"Offset", "Rowcount"},
	"AliasedValues":    {"Values", "As", "Columns"},
	"AssignmentExpr":   {"Name", "Expr"},
	"ColIdent":         {},
	"TableIdent":       {},

	// Expressions.
	"AndExpr":           {"Left", "Right"},
	"OrExpr":            {"Left", "Right"},
	"XorExpr":           {"Left", "Right"},
	"NotExpr":           {"Expr"},
	"ParenExpr":         {"Expr"},
	"ComparisonExpr":    {"Operator", "Left", "Right", "Escape"},
	"RangeCond":         {"Operator", "Left", "From", "To"},
	"IsExpr":            {"Operator", "Expr"},
	"ExistsExpr":        {"Subquery"},
	"SQLVal":            {"Type", "Val"},
	"NullVal":           {},
	"BoolVal":           {},
	"ColName":           {"Name", "Qualifier"},
	"ValTuple":          {},
	"Values":            {},
	"BinaryExpr":        {"Operator", "Left", "Right"},
	"UnaryExpr":         {"Operator", "Expr"},
	"IntervalExpr":      {"Expr", "Unit"},
	"CollateExpr":       {"Expr", "Collation"},
	"FuncExpr":          {"Qualifier", "Name", "Distinct", "Exprs"},
	"TimestampFuncExpr": {"Name", "Expr1", "Expr2", "Unit"},
	"ExtractFuncExpr":   {"Name", "Unit", "Expr"},
	"CaseExpr":          {"Expr", "Whens", "Else"},
	"When":              {"Cond", "Val"},
	"ValuesFuncExpr":    {"Name"},
	"ConvertExpr":       {"Name", "Expr", "Type"},
	"ConvertType":       {"Type", "Length", "Scale", "Operator", "Charset"},
	"SubstrExpr":        {"Name", "StrVal", "From", "To"},
	"TrimExpr":          {"Str", "Pattern", "Dir"},
	"GroupConcatExpr":   {"Distinct", "Exprs", "OrderBy", "Separator"},
	"Separator":         {"SeparatorString", "DefaultSeparator"},
	"Default":           {"ColName"},

	// DDL pieces.
	"TableSpec":                 {"Columns", "Indexes", "Constraints", "TableOpts"},
	"ColumnDefinition":          {"Name", "Type"},
	"ColumnType":                {"Type", "Null", "NotNull", "Default", "OnUpdate", "Comment", "Length", "Unsigned", "Zerofill", "Scale", "Charset", "Collate", "BinaryCollate", "EnumValues", "KeyOpt", "ForeignKeyDef", "Constraint", "GeneratedExpr", "Stored"},
	"IndexDefinition":           {"Info", "Columns", "Options"},
	"IndexInfo":                 {"Type", "Name", "Primary", "Unique"},
	"IndexColumn":               {"Column", "Length", "Order"},
	"IndexOption":               {"Name", "Value", "Using"},
	"IndexSpec":                 {"Action", "FromName", "ToName", "Using", "Type", "Columns", "Options"},
	"TableOption":               {"Name", "Value"},
	"ConstraintDefinition":      {"Name", "Details"},
	"ForeignKeyDefinition":      {"Source", "ReferencedTable", "ReferencedColumns", "Index", "OnDelete", "OnUpdate"},
	"CheckConstraintDefinition": {"Expr", "Enforced"},
	"ColumnOrder":               {"First", "AfterColumn"},
	"DefaultSpec":               {"Action", "Column", "Value"},
	"NotNullSpec":               {"Action", "Column"},
	"ColumnTypeSpec":            {"Column", "Type"},
	"OptLike":                   {"LikeTables"},
	"ViewSpec":                  {"ViewName", "Columns", "Algorithm", "ViewExpr", "CheckOption"},
}

// ignoredFields are the parser's bookkeeping: parse positions, the text
// of select expressions, the permission information it derives from the
// tree, the position of a DDL's sub-statement.
var ignoredFields = setOf(
	"AliasedExpr.StartParsePos", "AliasedExpr.EndParsePos", "AliasedExpr.InputExpression",
	"Insert.Auth", "AliasedTableExpr.Auth", "AlterTable.Auth", "DDL.Auth",
	"DDL.SubStatementPositionStart", "DDL.SubStatementPositionEnd", "DDL.SubStatementStr",
	"ColumnType.ResolvedType",
)

// fieldReasons explain the rejection of constructs the parser records in
// fields the gate does not walk.
var fieldReasons = map[string]string{
	"Select.Lock":                 "locking reads (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE) are not allowed: relchain executes serially",
	"SetOp.Lock":                  "locking reads (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE) are not allowed: relchain executes serially",
	"Select.Into":                 "SELECT ... INTO (OUTFILE, DUMPFILE or @variables) is not allowed: it writes files on the node or session variables",
	"SetOp.Into":                  "SELECT ... INTO (OUTFILE, DUMPFILE or @variables) is not allowed: it writes files on the node or session variables",
	"Select.Window":               "window functions (WINDOW ... AS) are not allowed: not supported by the gate",
	"FuncExpr.Over":               "window functions (OVER ...) are not allowed: not supported by the gate",
	"QueryOpts.SQLCalcFoundRows":  "SQL_CALC_FOUND_ROWS is not allowed: FOUND_ROWS() is session state, unsafe for replication",
	"QueryOpts.SQLCache":          "SQL_CACHE is not allowed: the query cache is each node's own",
	"Insert.Partitions":           "partition selection (PARTITION (...)) is not allowed: partitioning is not supported by the gate",
	"Delete.Partitions":           "partition selection (PARTITION (...)) is not allowed: partitioning is not supported by the gate",
	"AliasedTableExpr.Partitions": "partition selection (PARTITION (...)) is not allowed: partitioning is not supported by the gate",
	"AliasedTableExpr.Hints":      "index hints (USE/FORCE/IGNORE INDEX) are not allowed: plans are each node's own business",
	"AliasedTableExpr.AsOf":       "AS OF is not allowed: it is not MySQL",
	"Insert.Returning":            "RETURNING is not allowed: MySQL does not support it",
	"Update.Returning":            "RETURNING is not allowed: MySQL does not support it",
	"Delete.Returning":            "RETURNING is not allowed: MySQL does not support it",
	"ColName.StoredProcVal":       "stored-procedure variables are not allowed",
	"TableName.DbQualifier":       "schema-qualified names (db.t) are not allowed: each node has its own database name",
	"TableName.SchemaQualifier":   "schema-qualified names (db.t) are not allowed: each node has its own database name",
	"DDL.Temporary":               "temporary tables are not allowed: they exist in one node's session only",
	"DDL.AutoIncSpec":             autoIncrementReason,
	"ColumnType.Autoincrement":    autoIncrementReason,
	"DDL.OptSelect":               "CREATE TABLE ... SELECT is not allowed: create the table, then INSERT ... SELECT ... ORDER BY",
	"DDL.PartitionSpec":           "partitioning is not supported by the gate",
	"AlterTable.PartitionSpecs":   "partitioning is not supported by the gate",
	"TableSpec.PartitionOpt":      "partitioning is not supported by the gate",
	"DDL.TriggerSpec":             "triggers are not allowed: the backend owns the triggers of replicated tables (its change capture)",
	"DDL.ProcedureSpec":           "stored procedures and functions are not allowed: their bodies escape the gate, and the backend owns the triggers of replicated tables",
	"DDL.EventSpec":               "events are not allowed: the event scheduler runs them on each node's own clock",
	"DDL.ToTables":                "RENAME TABLE is not allowed: not supported by the gate",
	"DDL.SpecialCommentMode":      "executable comments are not allowed",
	"ViewSpec.Definer":            "DEFINER is not allowed: accounts differ between nodes",
	"ViewSpec.Security":           "SQL SECURITY is not allowed: accounts differ between nodes",
	"ColumnType.SRID":             "spatial types are not allowed",
	"IndexInfo.Spatial":           "SPATIAL indexes are not allowed",
	"IndexInfo.Fulltext":          "FULLTEXT indexes are not allowed: full-text search is not supported by the gate",
	"IndexInfo.Vector":            "VECTOR indexes are not allowed",
}

// stmtReasons name the rejected statement kinds.
var stmtReasons = func() map[string]string {
	m := map[string]string{}
	add := func(why string, kinds ...string) {
		for _, k := range kinds {
			m[k] = why
		}
	}
	add("transaction control (BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT, XA) is not allowed: relchain runs every tx in the block's own transaction",
		"Begin", "Commit", "Rollback", "Savepoint", "RollbackSavepoint", "ReleaseSavepoint")
	add("SET is not allowed: relchain pins the session, and variables are session or node state", "Set")
	add("LOCK TABLES and UNLOCK TABLES are not allowed: relchain executes serially", "LockTables", "UnlockTables")
	add("LOAD DATA and LOAD XML are not allowed: they read files on the node", "Load")
	add("SHOW and DESCRIBE are not allowed: they report node-local state", "Show", "ShowGrants", "ShowPrivileges")
	add("EXPLAIN/DESCRIBE is not allowed: plans differ between nodes", "Explain")
	add("USE is not allowed: each node has its own database name, which relchain selects", "Use")
	add("CREATE/ALTER/DROP DATABASE and SCHEMA are not allowed: each node has its own database, which relchain manages", "DBDDL")
	add("maintenance commands (ANALYZE, OPTIMIZE, REPAIR, CHECK TABLE, FLUSH, PURGE) are not allowed: they are each node's own business", "Analyze", "Flush", "PurgeBinaryLogs")
	add("KILL is not allowed", "Kill")
	add("PREPARE/EXECUTE/DEALLOCATE is not allowed: relchain manages prepared statements", "Prepare", "Execute", "Deallocate")
	add("CALL is not allowed: stored procedures are not", "Call")
	add("accounts, roles and privileges (CREATE/DROP/RENAME USER, CREATE/DROP ROLE, GRANT, REVOKE) are not allowed: permissions are relchain's, on chain",
		"CreateUser", "RenameUser", "DropUser", "CreateRole", "DropRole", "GrantPrivilege", "GrantRole", "GrantProxy",
		"RevokePrivilege", "RevokeAllPrivileges", "RevokeRole", "RevokeProxy")
	add("replication control is not allowed: it is each node's own business",
		"ChangeReplicationSource", "ChangeReplicationFilter", "StartReplica", "StopReplica", "ResetReplica")
	add("compound statements (BEGIN ... END, IF, CASE, LOOP, WHILE, REPEAT, DECLARE, cursors, SIGNAL) are not allowed: stored programs are not",
		"BeginEndBlock", "CaseStatement", "IfStatement", "Signal", "Resignal", "Declare", "OpenCursor", "CloseCursor",
		"FetchCursor", "Loop", "Repeat", "While", "Leave", "Return", "Iterate")
	add("CREATE SPATIAL REFERENCE SYSTEM is not allowed", "CreateSpatialRefSys", "SrsAttribute")
	return m
}()

// allowedTypes are the column types CREATE/ALTER TABLE may use (lower
// case, as the parser spells them).
var allowedTypes = setOf(
	"tinyint", "smallint", "mediumint", "int", "integer", "bigint",
	"decimal", "numeric", "dec", "fixed",
	"varchar", "char", "character", "character varying", "national char", "national varchar", "nchar", "nvarchar",
	"text", "tinytext", "mediumtext", "longtext",
	"blob", "tinyblob", "mediumblob", "longblob", "varbinary", "binary",
	"date", "datetime", "timestamp",
	"boolean", "bool", "json", "enum", "set",
)

// allowedCasts are the target types of CAST and CONVERT.
var allowedCasts = setOf(
	"signed", "signed integer", "unsigned", "unsigned integer", "decimal", "char", "nchar", "binary",
	"date", "datetime", "time", "json",
)

// allowedTableOptions are the CREATE/ALTER TABLE options allowed (ENGINE
// only as InnoDB, see checkTableOption).
var allowedTableOptions = setOf("engine", "character set", "charset", "default character set", "default charset",
	"collate", "default collate", "comment")

// clockFuncs read the clock. They are allowed: the backend sets the session
// variable timestamp to the block's time before each tx, and all of them
// then read it (SYSDATE() does not, and is rejected).
var clockFuncs = setOf(
	"now", "current_timestamp", "localtime", "localtimestamp", "current_date", "curdate", "current_time",
	"curtime", "utc_timestamp", "utc_date", "utc_time", "unix_timestamp",
)

// allowedFuncs are the deterministic, side-effect-free built-in functions
// statements may call (lower case). CAST, CONVERT, EXTRACT, TRIM,
// SUBSTRING ... FROM, TIMESTAMPADD, TIMESTAMPDIFF and GROUP_CONCAT have
// their own parse-tree types.
var allowedFuncs = setOf(
	// Arithmetic.
	"abs", "ceil", "ceiling", "floor", "round", "truncate", "mod", "sign",
	// Strings.
	"concat", "concat_ws", "substring", "substr", "length", "char_length", "character_length", "upper", "ucase",
	"lower", "lcase", "trim", "ltrim", "rtrim", "lpad", "rpad", "replace", "left", "right", "locate", "instr",
	"reverse", "repeat",
	// Conditionals.
	"coalesce", "ifnull", "nullif", "if", "greatest", "least",
	// Hashes and encodings.
	"hex", "unhex", "md5", "sha1", "sha", "sha2", "crc32",
	// Dates and times.
	"date_add", "date_sub", "adddate", "subdate", "date_format", "datediff", "year", "month", "day",
	"dayofmonth", "hour", "minute", "second", "date", "time", "from_unixtime", "str_to_date",
	// JSON.
	"json_extract", "json_object", "json_array", "json_unquote", "json_set", "json_contains",
	// Aggregates.
	"count", "sum", "avg", "min", "max",
)

// funcReasons explain the rejection of well-known functions.
var funcReasons = func() map[string]string {
	m := map[string]string{}
	add := func(why string, names ...string) {
		for _, n := range names {
			m[n] = why
		}
	}
	add("it reads the node's clock, not the block time the session timestamp is pinned to (use NOW())", "sysdate")
	add("it is non-deterministic", "rand", "uuid", "uuid_short", "random_bytes", "uuid_to_bin")
	add("it returns a node-local value",
		"user", "current_user", "session_user", "system_user", "connection_id", "version", "database", "schema",
		"current_role", "ps_current_thread_id", "ps_thread_id", "icu_version", "statement_digest", "statement_digest_text")
	add("it returns session state, unsafe for replication", "found_rows", "row_count", "last_insert_id")
	add("it takes or inspects user-level locks", "get_lock", "release_lock", "release_all_locks", "is_free_lock", "is_used_lock")
	add("it blocks the node", "sleep", "benchmark", "master_pos_wait", "source_pos_wait",
		"wait_for_executed_gtid_set", "wait_until_sql_thread_after_gtids")
	add("it reads files on the node", "load_file")
	add("it returns a floating-point (DOUBLE) value: SUM and AVG of such values depend on row order, which differs "+
		"between nodes, and its last bits on the node's math library", "sqrt", "pow", "power", "exp", "ln", "log", "log2",
		"log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "cot", "degrees", "radians", "pi")
	add("its result depends on row order, which differs between nodes", "json_arrayagg", "json_objectagg")
	add("it is a window function; window functions are not supported by the gate",
		"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
		"first_value", "last_value", "nth_value")
	return m
}()

// systemSchemas are MySQL's system schemas.
var systemSchemas = setOf("information_schema", "mysql", "performance_schema", "sys")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// nodeReasons name rejected parse-tree types users meet most.
var nodeReasons = map[string]string{
	"MatchExpr":         "MATCH ... AGAINST is not allowed: full-text relevance depends on each node's index statistics",
	"JSONTableExpr":     "JSON_TABLE is not supported by the gate",
	"TableFuncExpr":     "table functions are not supported by the gate",
	"ValuesStatement":   "VALUES statements and VALUES ROW(...) tables are not supported by the gate: use SELECT or INSERT ... VALUES",
	"ConvertUsingExpr":  "CONVERT(... USING ...) is not supported by the gate: use CAST(... AS CHAR CHARACTER SET ...)",
	"CharExpr":          "function char is not allowed: it is not on the gate's allowlist of deterministic functions",
	"ListArg":           "list arguments (::name) are not allowed",
	"Nextval":           "sequences are not allowed",
	"Over":              "window functions (OVER ...) are not allowed: not supported by the gate",
	"WindowDef":         "window functions (OVER ...) are not allowed: not supported by the gate",
	"InjectedExpr":      "injected expressions are not allowed",
	"InjectedStatement": "injected statements are not allowed",
}

// bareFuncs are node-local functions that MySQL or MariaDB may call
// without parentheses, which the parser can take for a column name.
var bareFuncs = setOf("current_user", "session_user", "system_user", "current_role", "sysdate")
