package pggate

const sequenceReason = "sequences are not transactional: a node that crashes mid-block and replays it advances them twice, on that node only; supply key values explicitly"

// allowedNodes are the parse-tree node types the gate knows to be harmless
// (given the per-type checks in visit). Anything else is rejected.
var allowedNodes = setOf(
	// Statements (top-level kinds are restricted further by checkTopLevel;
	// INSERT/UPDATE/DELETE may appear in WITH clauses).
	"RawStmt", "SelectStmt", "InsertStmt", "UpdateStmt", "DeleteStmt", "MergeStmt", "MergeWhenClause",
	"CallStmt", "CreateStmt", "CreateTableAsStmt", "IntoClause", "AlterTableStmt", "AlterTableCmd",
	"DropStmt", "IndexStmt", "ViewStmt", "TruncateStmt", "CreateSeqStmt", "AlterSeqStmt", // sequences: see sequence.go
	"ConstraintsSetStmt", // SET CONSTRAINTS: the tx's own check mode (backend/postgres/deferred.go)
	// Functions, procedures and triggers (see routine.go).
	"CreateFunctionStmt", "FunctionParameter", "ObjectWithArgs", "CreateTrigStmt", "TriggerTransition",
	// Query structure.
	"ResTarget", "RangeVar", "Alias", "RangeSubselect", "RangeFunction", "JoinExpr",
	"WithClause", "CommonTableExpr", "CTESearchClause", "CTECycleClause",
	"SortBy", "GroupingSet", "OnConflictClause", "InferClause", "MultiAssignRef", "SetToDefault",
	// Expressions.
	"A_Const", "A_Expr", "A_Star", "A_Indices", "A_Indirection", "A_ArrayExpr", "ColumnRef",
	"ParamRef", "FuncCall", "TypeCast", "TypeName", "CollateClause", "BoolExpr", "CaseExpr",
	"CaseWhen", "CoalesceExpr", "MinMaxExpr", "NullTest", "BooleanTest", "SubLink", "RowExpr",
	"SQLValueFunction", // clock values are rewritten, the others rejected
	// Values and lists.
	"String", "Integer", "Float", "Boolean", "BitString", "List",
	// DDL pieces.
	"ColumnDef", "Constraint", "TableLikeClause", "IndexElem", "DefElem",
	"PartitionSpec", "PartitionElem", "PartitionBoundSpec", "PartitionRangeDatum",
)

// setConstraintsInBody refuses SET CONSTRAINTS in a routine body, in the
// words of every protocol version's refusal (a tx's failure reason is
// part of its result, which replays reproduce).
const setConstraintsInBody = "session settings (SET, RESET, SHOW, DISCARD, ALTER SYSTEM) are not allowed: relchain pins the session"

// nodeReasons name the rejected constructs users meet most.
var nodeReasons = map[string]string{
	"RangeTableSample": "TABLESAMPLE is not allowed: it samples rows differently on each node",
	"LockingClause":    "locking clauses (FOR UPDATE/SHARE) are not allowed: relchain executes serially",
	"WindowDef":        "window functions (OVER ...) are not supported by the gate yet",
	"CurrentOfExpr":    "WHERE CURRENT OF is not allowed: cursors are not",
	"XmlExpr":          "XML functions are not allowed",
	"XmlSerialize":     "XML functions are not allowed",
	"RangeTableFunc":   "XMLTABLE is not allowed",
	"RoleSpec":         "role references are not allowed",
	"PartitionCmd":     "ATTACH/DETACH PARTITION is not supported by the gate yet",
}

// stmtReasons name the rejected statement kinds.
var stmtReasons = func() map[string]string {
	m := map[string]string{}
	add := func(why string, kinds ...string) {
		for _, k := range kinds {
			m[k] = why
		}
	}
	add("transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, PREPARE TRANSACTION ...) is not allowed: relchain runs every tx in the block's own transaction", "TransactionStmt")
	add("session settings (SET, RESET, SHOW, DISCARD, ALTER SYSTEM) are not allowed: relchain pins the session", "VariableSetStmt", "VariableShowStmt", "DiscardStmt", "AlterSystemStmt")
	add("COPY is not allowed: it reads or writes files and programs on the node", "CopyStmt")
	add("DO blocks are not allowed: anonymous code escapes the gate", "DoStmt")
	add("LOAD is not allowed: it loads a shared library into the node", "LoadStmt")
	add("LISTEN/NOTIFY/UNLISTEN is not allowed", "ListenStmt", "NotifyStmt", "UnlistenStmt")
	add("LOCK TABLE is not allowed: relchain executes serially", "LockStmt")
	add("maintenance commands (VACUUM, ANALYZE, CLUSTER, REINDEX, CHECKPOINT, REFRESH) are not allowed: they are each node's own business", "VacuumStmt", "ClusterStmt", "ReindexStmt", "CheckPointStmt", "RefreshMatViewStmt")
	add("PREPARE/EXECUTE/DEALLOCATE is not allowed: relchain manages prepared statements", "PrepareStmt", "ExecuteStmt", "DeallocateStmt")
	add("cursors (DECLARE, FETCH, MOVE, CLOSE) are not allowed", "DeclareCursorStmt", "FetchStmt", "ClosePortalStmt")
	add("EXPLAIN is not allowed: plans and timings differ between nodes", "ExplainStmt")
	add("roles and privileges (CREATE/ALTER/DROP ROLE, GRANT, REVOKE, SET ROLE, REASSIGN, POLICY) are not allowed: permissions are relchain's, on chain",
		"CreateRoleStmt", "AlterRoleStmt", "AlterRoleSetStmt", "DropRoleStmt", "GrantStmt", "GrantRoleStmt",
		"AlterDefaultPrivilegesStmt", "ReassignOwnedStmt", "DropOwnedStmt", "AlterOwnerStmt", "CreatePolicyStmt", "AlterPolicyStmt")
	add("databases and tablespaces are not allowed", "CreatedbStmt", "AlterDatabaseStmt", "AlterDatabaseSetStmt",
		"AlterDatabaseRefreshCollStmt", "DropdbStmt", "CreateTableSpaceStmt", "DropTableSpaceStmt", "AlterTableSpaceOptionsStmt", "AlterTableMoveAllStmt")
	add("extensions, languages, foreign servers and foreign data wrappers are not allowed",
		"CreateExtensionStmt", "AlterExtensionStmt", "AlterExtensionContentsStmt", "CreatePLangStmt", "CreateForeignServerStmt",
		"AlterForeignServerStmt", "CreateFdwStmt", "AlterFdwStmt", "CreateForeignTableStmt", "CreateUserMappingStmt",
		"AlterUserMappingStmt", "DropUserMappingStmt", "ImportForeignSchemaStmt")
	add("ALTER FUNCTION/PROCEDURE/ROUTINE is not allowed: use CREATE OR REPLACE, whose body and options the gate checks", "AlterFunctionStmt")
	add("event triggers and rules are not allowed", "CreateEventTrigStmt", "AlterEventTrigStmt", "RuleStmt")
	add("SECURITY LABEL and COMMENT are not allowed", "SecLabelStmt", "CommentStmt")
	return m
}()

var serialTypes = setOf("serial", "serial4", "bigserial", "serial8", "smallserial", "serial2")

// allowedTypes are the built-in types statements may name (casts and
// column types). Time zone, date style, locale and float output are pinned
// by the backend's session (UTC, ISO, C, extra_float_digits=3), so their
// conversions are deterministic.
var allowedTypes = setOf(
	"bool", "boolean", "int2", "int4", "int8", "smallint", "integer", "int", "bigint",
	"numeric", "decimal", "float4", "float8", "real",
	"text", "varchar", "bpchar", "char", "character", "name", "bytea", "bit", "varbit",
	"date", "time", "timetz", "timestamp", "timestamptz", "interval",
	"json", "jsonb", "uuid", "inet", "cidr", "macaddr", "macaddr8",
)

// allowedFuncs are the deterministic, side-effect-free functions statements
// may call, unqualified or qualified with pg_catalog.
var allowedFuncs = setOf(
	// Arithmetic.
	"abs", "round", "trunc", "ceil", "ceiling", "floor", "mod", "div", "power", "pow", "sqrt",
	"sign", "gcd", "lcm", "width_bucket", "scale",
	// Strings (the database's collation and ctype are C on every node).
	"lower", "upper", "length", "char_length", "character_length", "octet_length", "bit_length",
	"substr", "substring", "trim", "btrim", "ltrim", "rtrim", "replace", "concat", "concat_ws",
	"left", "right", "lpad", "rpad", "position", "strpos", "split_part", "reverse", "translate",
	"starts_with", "ascii", "chr", "to_hex", "overlay", "initcap",
	"nullif", "num_nulls", "num_nonnulls", "similar_to_escape",
	// Aggregates (the order-sensitive ones need ORDER BY inside the call).
	"count", "sum", "min", "max", "avg", "bool_and", "bool_or", "every", "bit_and", "bit_or",
	"string_agg", "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg",
	// Hashes and encodings.
	"md5", "sha224", "sha256", "sha384", "sha512", "encode", "decode",
	// Dates and times (TimeZone=UTC and lc_time=C are pinned by the session).
	"extract", "date_part", "date_trunc", "make_date", "make_time", "make_timestamp",
	"make_interval", "to_char", "to_date", "to_number", "isfinite",
	// JSON.
	"json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array",
	"json_extract_path", "json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text",
	"json_typeof", "jsonb_typeof", "json_array_length", "jsonb_array_length", "to_json", "to_jsonb",
	"jsonb_set", "jsonb_insert", "jsonb_strip_nulls", "json_strip_nulls", "jsonb_pretty",
	// Arrays.
	"array_length", "cardinality", "array_upper", "array_lower", "array_position", "array_append",
	"array_prepend", "array_cat", "array_remove", "array_replace", "array_to_string", "unnest",
	// Bounded (see checkSeries and checkPad).
	"generate_series",
	// Two-argument form only (see funcCall).
	"age",
)

// orderedAggs are aggregates whose result depends on the order of their
// input rows.
var orderedAggs = setOf("string_agg", "array_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "xmlagg")

// funcReasons explain the rejection of well-known functions.
var funcReasons = func() map[string]string {
	m := map[string]string{}
	add := func(why string, names ...string) {
		for _, n := range names {
			m[n] = why
		}
	}
	add("it is non-deterministic (only random() is rewritten to block-seeded values)",
		"random_normal", "setseed", "gen_random_uuid", "uuid_generate_v1", "uuid_generate_v4", "gen_random_bytes")
	add("it reads the node's clock as text (use now(), which is rewritten to the block's time)", "timeofday")
	add("with one argument it reads the node's clock (use age(x, now()), which is rewritten to the block's time)", "age")
	add("it returns a node-local value",
		"txid_current", "txid_current_if_assigned", "txid_current_snapshot", "pg_current_xact_id",
		"pg_current_xact_id_if_assigned", "pg_current_snapshot", "pg_backend_pid", "inet_server_addr",
		"inet_server_port", "inet_client_addr", "inet_client_port", "version", "current_setting",
		"pg_postmaster_start_time", "pg_conf_load_time", "current_database", "current_schema", "current_user", "session_user")
	add("it blocks the node", "pg_sleep", "pg_sleep_for", "pg_sleep_until")
	add("it changes session settings", "set_config")
	add("it reads or writes files on the node", "pg_read_file", "pg_read_binary_file", "pg_ls_dir",
		"pg_stat_file", "lo_import", "lo_export", "pg_file_write", "pg_ls_logdir", "pg_ls_waldir")
	add("it opens network connections", "dblink", "dblink_exec", "dblink_connect")
	add("it takes advisory locks", "pg_advisory_lock", "pg_advisory_xact_lock", "pg_try_advisory_lock",
		"pg_try_advisory_xact_lock", "pg_advisory_lock_shared", "pg_advisory_unlock", "pg_advisory_unlock_all")
	add("it sends notifications", "pg_notify")
	add("it controls the server", "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile")
	add(sequenceReason, "nextval", "currval", "setval", "lastval")
	add("AT TIME ZONE depends on each node's time zone database", "timezone")
	return m
}()

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
