package pgcatalog

import "strings"

// Relation is one emulated catalog relation: the schema it lives in
// (pg_catalog or information_schema), its name and its columns, each with
// the PostgreSQL type PostgreSQL gives it. Results take their column
// types from here; the catalog database stores each type as doc.go says.
type Relation struct {
	Schema  string
	Name    string
	Columns []RelColumn
}

// RelColumn is one column of a Relation.
type RelColumn struct {
	Name string
	Type string // pg_type name: "oid", "name", "bool", "int2", "_text", "int2vector" …
}

// rel builds a Relation from "name type" pairs.
func rel(schema, name string, cols ...string) Relation {
	r := Relation{Schema: schema, Name: name}
	for _, c := range cols {
		f := strings.Fields(c)
		r.Columns = append(r.Columns, RelColumn{Name: f[0], Type: f[1]})
	}
	return r
}

const (
	pgCatalog         = "pg_catalog"
	informationSchema = "information_schema"
)

// Relations are the emulated relations (PostgreSQL 15's columns that
// clients read; a column of PostgreSQL's not listed here is 42703, as an
// unknown column is). Adding a relation or a column adds it to the
// catalog database and to the rows New fills (a test checks that every
// Relation is created and filled).
var Relations = []Relation{
	rel(pgCatalog, "pg_namespace", "oid oid", "nspname name", "nspowner oid", "nspacl _aclitem"),
	rel(pgCatalog, "pg_class", "oid oid", "relname name", "relnamespace oid", "reltype oid", "reloftype oid",
		"relowner oid", "relam oid", "relfilenode oid", "reltablespace oid", "relpages int4", "reltuples float4",
		"relallvisible int4", "reltoastrelid oid", "relhasindex bool", "relisshared bool", "relpersistence char",
		"relkind char", "relnatts int2", "relchecks int2", "relhasrules bool", "relhastriggers bool",
		"relhassubclass bool", "relrowsecurity bool", "relforcerowsecurity bool", "relispopulated bool",
		"relreplident char", "relispartition bool", "relrewrite oid", "relfrozenxid xid", "relminmxid xid",
		"relacl _aclitem", "reloptions _text", "relpartbound pg_node_tree"),
	rel(pgCatalog, "pg_attribute", "attrelid oid", "attname name", "atttypid oid", "attstattarget int4",
		"attlen int2", "attnum int2", "attndims int4", "attcacheoff int4", "atttypmod int4", "attbyval bool",
		"attalign char", "attstorage char", "attcompression char", "attnotnull bool", "atthasdef bool",
		"atthasmissing bool", "attidentity char", "attgenerated char", "attisdropped bool", "attislocal bool",
		"attinhcount int4", "attcollation oid", "attacl _aclitem", "attoptions _text", "attfdwoptions _text"),
	rel(pgCatalog, "pg_type", "oid oid", "typname name", "typnamespace oid", "typowner oid", "typlen int2",
		"typbyval bool", "typtype char", "typcategory char", "typispreferred bool", "typisdefined bool",
		"typdelim char", "typrelid oid", "typsubscript regproc", "typelem oid", "typarray oid", "typinput regproc",
		"typoutput regproc", "typreceive regproc", "typsend regproc", "typmodin regproc", "typmodout regproc",
		"typanalyze regproc", "typalign char", "typstorage char", "typnotnull bool", "typbasetype oid",
		"typtypmod int4", "typndims int4", "typcollation oid", "typdefaultbin pg_node_tree", "typdefault text",
		"typacl _aclitem"),
	rel(pgCatalog, "pg_index", "indexrelid oid", "indrelid oid", "indnatts int2", "indnkeyatts int2",
		"indisunique bool", "indnullsnotdistinct bool", "indisprimary bool", "indisexclusion bool",
		"indimmediate bool", "indisclustered bool", "indisvalid bool", "indcheckxmin bool", "indisready bool",
		"indislive bool", "indisreplident bool", "indkey int2vector", "indcollation oidvector",
		"indclass oidvector", "indoption int2vector", "indexprs pg_node_tree", "indpred pg_node_tree"),
	rel(pgCatalog, "pg_constraint", "oid oid", "conname name", "connamespace oid", "contype char",
		"condeferrable bool", "condeferred bool", "convalidated bool", "conrelid oid", "contypid oid",
		"conindid oid", "conparentid oid", "confrelid oid", "confupdtype char", "confdeltype char",
		"confmatchtype char", "conislocal bool", "coninhcount int4", "connoinherit bool", "conkey _int2",
		"confkey _int2", "conpfeqop _oid", "conppeqop _oid", "conffeqop _oid", "confdelsetcols _int2",
		"conexclop _oid", "conbin pg_node_tree"),
	rel(pgCatalog, "pg_attrdef", "oid oid", "adrelid oid", "adnum int2", "adbin pg_node_tree"),
	rel(pgCatalog, "pg_description", "objoid oid", "classoid oid", "objsubid int4", "description text"),
	rel(pgCatalog, "pg_shdescription", "objoid oid", "classoid oid", "description text"),
	rel(pgCatalog, "pg_database", "oid oid", "datname name", "datdba oid", "encoding int4",
		"datlocprovider char", "datistemplate bool", "datallowconn bool", "datconnlimit int4",
		"datfrozenxid xid", "datminmxid xid", "dattablespace oid", "datcollate text", "datctype text",
		"daticulocale text", "datcollversion text", "datacl _aclitem"),
	rel(pgCatalog, "pg_roles", "rolname name", "rolsuper bool", "rolinherit bool", "rolcreaterole bool",
		"rolcreatedb bool", "rolcanlogin bool", "rolreplication bool", "rolconnlimit int4", "rolpassword text",
		"rolvaliduntil timestamptz", "rolbypassrls bool", "rolconfig _text", "oid oid"),
	rel(pgCatalog, "pg_user", "usename name", "usesysid oid", "usecreatedb bool", "usesuper bool",
		"userepl bool", "usebypassrls bool", "passwd text", "valuntil timestamptz", "useconfig _text"),
	rel(pgCatalog, "pg_auth_members", "roleid oid", "member oid", "grantor oid", "admin_option bool"),
	rel(pgCatalog, "pg_am", "oid oid", "amname name", "amhandler regproc", "amtype char"),
	rel(pgCatalog, "pg_opclass", "oid oid", "opcmethod oid", "opcname name", "opcnamespace oid",
		"opcowner oid", "opcfamily oid", "opcintype oid", "opcdefault bool", "opckeytype oid"),
	rel(pgCatalog, "pg_collation", "oid oid", "collname name", "collnamespace oid", "collowner oid",
		"collprovider char", "collisdeterministic bool", "collencoding int4", "collcollate text",
		"collctype text"),
	rel(pgCatalog, "pg_proc", "oid oid", "proname name", "pronamespace oid", "proowner oid", "prolang oid",
		"procost float4", "prorows float4", "provariadic oid", "prosupport regproc", "prokind char",
		"prosecdef bool", "proleakproof bool", "proisstrict bool", "proretset bool", "provolatile char",
		"proparallel char", "pronargs int2", "pronargdefaults int2", "prorettype oid", "proargtypes oidvector",
		"proallargtypes _oid", "proargmodes _char", "proargnames _text", "proargdefaults pg_node_tree",
		"prosrc text", "proacl _aclitem"),
	rel(pgCatalog, "pg_inherits", "inhrelid oid", "inhparent oid", "inhseqno int4", "inhdetachpending bool"),
	rel(pgCatalog, "pg_depend", "classid oid", "objid oid", "objsubid int4", "refclassid oid", "refobjid oid",
		"refobjsubid int4", "deptype char"),
	rel(pgCatalog, "pg_sequence", "seqrelid oid", "seqtypid oid", "seqstart int8", "seqincrement int8",
		"seqmax int8", "seqmin int8", "seqcache int8", "seqcycle bool"),
	rel(pgCatalog, "pg_trigger", "oid oid", "tgrelid oid", "tgparentid oid", "tgname name", "tgfoid oid",
		"tgtype int2", "tgenabled char", "tgisinternal bool", "tgconstrrelid oid", "tgconstrindid oid",
		"tgconstraint oid", "tgdeferrable bool", "tginitdeferred bool", "tgnargs int2", "tgattr int2vector",
		"tgqual pg_node_tree"),
	rel(pgCatalog, "pg_rewrite", "oid oid", "rulename name", "ev_class oid", "ev_type char", "ev_enabled char",
		"is_instead bool", "ev_qual pg_node_tree", "ev_action pg_node_tree"),
	rel(pgCatalog, "pg_range", "rngtypid oid", "rngsubtype oid", "rngmultitypid oid", "rngcollation oid",
		"rngsubopc oid", "rngcanonical regproc", "rngsubdiff regproc"),
	rel(pgCatalog, "pg_enum", "oid oid", "enumtypid oid", "enumsortorder float4", "enumlabel name"),
	rel(pgCatalog, "pg_extension", "oid oid", "extname name", "extowner oid", "extnamespace oid",
		"extrelocatable bool", "extversion text"),
	rel(pgCatalog, "pg_tablespace", "oid oid", "spcname name", "spcowner oid", "spcacl _aclitem",
		"spcoptions _text"),
	rel(pgCatalog, "pg_policy", "oid oid", "polname name", "polrelid oid", "polcmd char", "polpermissive bool",
		"polroles _oid", "polqual pg_node_tree", "polwithcheck pg_node_tree"),
	rel(pgCatalog, "pg_statistic_ext", "oid oid", "stxrelid oid", "stxname name", "stxnamespace oid",
		"stxowner oid", "stxstattarget int4", "stxkeys int2vector", "stxkind _char"),
	rel(pgCatalog, "pg_publication", "oid oid", "pubname name", "pubowner oid", "puballtables bool",
		"pubinsert bool", "pubupdate bool", "pubdelete bool", "pubtruncate bool", "pubviaroot bool"),
	rel(pgCatalog, "pg_publication_rel", "oid oid", "prpubid oid", "prrelid oid", "prqual pg_node_tree",
		"prattrs int2vector"),
	rel(pgCatalog, "pg_publication_namespace", "oid oid", "pnpubid oid", "pnnspid oid"),
	rel(pgCatalog, "pg_partitioned_table", "partrelid oid", "partstrat char", "partnatts int2",
		"partdefid oid", "partattrs int2vector"),
	rel(pgCatalog, "pg_foreign_table", "ftrelid oid", "ftserver oid", "ftoptions _text"),
	rel(pgCatalog, "pg_language", "oid oid", "lanname name", "lanowner oid", "lanispl bool",
		"lanpltrusted bool"),
	rel(pgCatalog, "pg_event_trigger", "oid oid", "evtname name", "evtevent name", "evtowner oid",
		"evtfoid oid", "evtenabled char", "evttags _text"),
	rel(pgCatalog, "pg_settings", "name text", "setting text", "unit text", "category text",
		"short_desc text", "extra_desc text", "context text", "vartype text", "source text",
		"min_val text", "max_val text", "enumvals _text", "boot_val text", "reset_val text",
		"sourcefile text", "sourceline int4", "pending_restart bool"),
	rel(pgCatalog, "pg_tables", "schemaname name", "tablename name", "tableowner name", "tablespace name",
		"hasindexes bool", "hasrules bool", "hastriggers bool", "rowsecurity bool"),
	rel(pgCatalog, "pg_views", "schemaname name", "viewname name", "viewowner name", "definition text"),
	rel(pgCatalog, "pg_matviews", "schemaname name", "matviewname name", "matviewowner name",
		"tablespace name", "hasindexes bool", "ispopulated bool", "definition text"),
	rel(pgCatalog, "pg_indexes", "schemaname name", "tablename name", "indexname name", "tablespace name",
		"indexdef text"),
	rel(pgCatalog, "pg_sequences", "schemaname name", "sequencename name", "sequenceowner name",
		"data_type regtype", "start_value int8", "min_value int8", "max_value int8", "increment_by int8",
		"cycle bool", "cache_size int8", "last_value int8"),
	rel(pgCatalog, "pg_stat_activity", "datid oid", "datname name", "pid int4", "usesysid oid",
		"usename name", "application_name text", "client_addr text", "backend_start timestamptz",
		"state text", "query text", "backend_type text"),
	rel(pgCatalog, "pg_stat_user_tables", "relid oid", "schemaname name", "relname name", "seq_scan int8",
		"n_live_tup int8", "n_dead_tup int8"),
	rel(pgCatalog, "pg_statio_all_tables", "relid oid", "schemaname name", "relname name",
		"heap_blks_read int8", "heap_blks_hit int8", "idx_blks_read int8", "idx_blks_hit int8",
		"toast_blks_read int8", "toast_blks_hit int8", "tidx_blks_read int8", "tidx_blks_hit int8"),
	rel(pgCatalog, "pg_locks", "locktype text", "database oid", "relation oid", "pid int4", "mode text",
		"granted bool"),
	rel(pgCatalog, "pg_timezone_names", "name text", "abbrev text", "utc_offset interval", "is_dst bool"),

	rel(informationSchema, "schemata", "catalog_name name", "schema_name name", "schema_owner name",
		"default_character_set_catalog name", "default_character_set_schema name",
		"default_character_set_name name", "sql_path varchar"),
	rel(informationSchema, "tables", "table_catalog name", "table_schema name", "table_name name",
		"table_type varchar", "self_referencing_column_name name", "reference_generation varchar",
		"user_defined_type_catalog name", "user_defined_type_schema name", "user_defined_type_name name",
		"is_insertable_into varchar", "is_typed varchar", "commit_action varchar"),
	rel(informationSchema, "columns", "table_catalog name", "table_schema name", "table_name name",
		"column_name name", "ordinal_position int4", "column_default varchar", "is_nullable varchar",
		"data_type varchar", "character_maximum_length int4", "character_octet_length int4",
		"numeric_precision int4", "numeric_precision_radix int4", "numeric_scale int4",
		"datetime_precision int4", "interval_type varchar", "interval_precision int4",
		"character_set_catalog name", "character_set_schema name", "character_set_name name",
		"collation_catalog name", "collation_schema name", "collation_name name", "domain_catalog name",
		"domain_schema name", "domain_name name", "udt_catalog name", "udt_schema name", "udt_name name",
		"scope_catalog name", "scope_schema name", "scope_name name", "maximum_cardinality int4",
		"dtd_identifier name", "is_self_referencing varchar", "is_identity varchar",
		"identity_generation varchar", "identity_start varchar", "identity_increment varchar",
		"identity_maximum varchar", "identity_minimum varchar", "identity_cycle varchar",
		"is_generated varchar", "generation_expression varchar", "is_updatable varchar"),
	rel(informationSchema, "table_constraints", "constraint_catalog name", "constraint_schema name",
		"constraint_name name", "table_catalog name", "table_schema name", "table_name name",
		"constraint_type varchar", "is_deferrable varchar", "initially_deferred varchar", "enforced varchar",
		"nulls_distinct varchar"),
	rel(informationSchema, "key_column_usage", "constraint_catalog name", "constraint_schema name",
		"constraint_name name", "table_catalog name", "table_schema name", "table_name name",
		"column_name name", "ordinal_position int4", "position_in_unique_constraint int4"),
	rel(informationSchema, "constraint_column_usage", "table_catalog name", "table_schema name",
		"table_name name", "column_name name", "constraint_catalog name", "constraint_schema name",
		"constraint_name name"),
	rel(informationSchema, "constraint_table_usage", "table_catalog name", "table_schema name",
		"table_name name", "constraint_catalog name", "constraint_schema name", "constraint_name name"),
	rel(informationSchema, "referential_constraints", "constraint_catalog name", "constraint_schema name",
		"constraint_name name", "unique_constraint_catalog name", "unique_constraint_schema name",
		"unique_constraint_name name", "match_option varchar", "update_rule varchar", "delete_rule varchar"),
	rel(informationSchema, "check_constraints", "constraint_catalog name", "constraint_schema name",
		"constraint_name name", "check_clause varchar"),
	rel(informationSchema, "views", "table_catalog name", "table_schema name", "table_name name",
		"view_definition varchar", "check_option varchar", "is_updatable varchar", "is_insertable_into varchar",
		"is_trigger_updatable varchar", "is_trigger_deletable varchar", "is_trigger_insertable_into varchar"),
	rel(informationSchema, "sequences", "sequence_catalog name", "sequence_schema name", "sequence_name name",
		"data_type varchar", "numeric_precision int4", "numeric_precision_radix int4", "numeric_scale int4",
		"start_value varchar", "minimum_value varchar", "maximum_value varchar", "increment varchar",
		"cycle_option varchar"),
	rel(informationSchema, "routines", "specific_catalog name", "specific_schema name", "specific_name name",
		"routine_catalog name", "routine_schema name", "routine_name name", "routine_type varchar",
		"data_type varchar"),
	rel(informationSchema, "triggers", "trigger_catalog name", "trigger_schema name", "trigger_name name",
		"event_manipulation varchar", "event_object_catalog name", "event_object_schema name",
		"event_object_table name", "action_statement varchar", "action_orientation varchar",
		"action_timing varchar"),
	rel(informationSchema, "character_sets", "character_set_catalog name", "character_set_schema name",
		"character_set_name name", "character_repertoire name", "form_of_use name",
		"default_collate_catalog name", "default_collate_schema name", "default_collate_name name"),
	rel(informationSchema, "enabled_roles", "role_name name"),
	rel(informationSchema, "table_privileges", "grantor name", "grantee name", "table_catalog name",
		"table_schema name", "table_name name", "privilege_type varchar", "is_grantable varchar",
		"with_hierarchy varchar"),
}

// FuncResult is the PostgreSQL type of a function's result: Type names
// it ("text", "bool", "_name" …); Same instead says the result has the
// type of the argument at that index (0-based), for functions such as
// array_agg's element-to-array (SameArray) or coalesce-like ones.
type FuncResult struct {
	Type string
	// SameAs >= 0: the result has the type of argument SameAs; with
	// ArrayOf, the array of that type (array_agg).
	SameAs  int
	ArrayOf bool
}

// fixed is a FuncResult of one named type.
func fixed(t string) FuncResult { return FuncResult{Type: t, SameAs: -1} }

// Functions are the functions a catalog query may call (unqualified or
// pg_catalog.-qualified), each registered under the same name on the
// catalog database, with the PostgreSQL type of its result. Functions
// whose name starts pgcat_ are the rewriting's own helpers, never a
// client's (Wants does not count them as PostgreSQL's). A test checks
// that every name here is registered.
var Functions = map[string]FuncResult{
	"format_type": fixed("text"), "pg_get_expr": fixed("text"), "pg_get_indexdef": fixed("text"),
	"pg_get_constraintdef": fixed("text"), "pg_get_viewdef": fixed("text"), "pg_get_ruledef": fixed("text"), "pg_get_triggerdef": fixed("text"),
	"pg_get_functiondef": fixed("text"), "pg_get_function_arguments": fixed("text"),
	"pg_get_function_result": fixed("text"), "pg_get_function_identity_arguments": fixed("text"),
	"pg_get_partkeydef": fixed("text"), "pg_get_statisticsobjdef_columns": fixed("text"),
	"pg_get_userbyid": fixed("name"), "pg_get_serial_sequence": fixed("text"),
	"pg_table_is_visible": fixed("bool"), "pg_type_is_visible": fixed("bool"),
	"pg_function_is_visible": fixed("bool"), "pg_collation_is_visible": fixed("bool"),
	"pg_opclass_is_visible": fixed("bool"), "pg_is_other_temp_schema": fixed("bool"),
	"has_table_privilege": fixed("bool"), "has_schema_privilege": fixed("bool"),
	"has_database_privilege": fixed("bool"), "has_column_privilege": fixed("bool"),
	"has_sequence_privilege": fixed("bool"), "has_function_privilege": fixed("bool"),
	"pg_has_role":     fixed("bool"),
	"obj_description": fixed("text"), "col_description": fixed("text"), "shobj_description": fixed("text"),
	"current_schema": fixed("name"), "current_schemas": fixed("_name"), "current_database": fixed("name"),
	"current_user": fixed("name"), "session_user": fixed("name"), "user": fixed("name"),
	"current_role": fixed("name"),
	"version":      fixed("text"), "current_setting": fixed("text"), "pg_encoding_to_char": fixed("name"),
	"pg_char_to_encoding": fixed("int4"), "pg_backend_pid": fixed("int4"), "pg_is_in_recovery": fixed("bool"),
	"pg_relation_size": fixed("int8"), "pg_total_relation_size": fixed("int8"),
	"pg_table_size": fixed("int8"), "pg_indexes_size": fixed("int8"), "pg_database_size": fixed("int8"),
	"pg_size_pretty": fixed("text"), "pg_relation_is_publishable": fixed("bool"),
	"pg_postmaster_start_time": fixed("timestamptz"), "inet_server_addr": fixed("text"),
	"inet_server_port": fixed("int4"), "txid_current": fixed("int8"),
	"quote_ident": fixed("text"), "quote_literal": fixed("text"), "lower": fixed("text"), "upper": fixed("text"),
	"length": fixed("int4"), "char_length": fixed("int4"), "substring": fixed("text"), "substr": fixed("text"),
	"replace": fixed("text"), "concat": fixed("text"), "concat_ws": fixed("text"), "left": fixed("text"),
	"right": fixed("text"), "position": fixed("int4"), "strpos": fixed("int4"), "btrim": fixed("text"),
	"ltrim": fixed("text"), "rtrim": fixed("text"), "split_part": fixed("text"), "regexp_replace": fixed("text"),
	"translate": fixed("text"), "starts_with": fixed("bool"),
	"coalesce": {SameAs: 0}, "nullif": {SameAs: 0}, "greatest": {SameAs: 0}, "least": {SameAs: 0},
	"array_to_string": fixed("text"), "array_length": fixed("int4"), "array_upper": fixed("int4"),
	"array_lower": fixed("int4"), "cardinality": fixed("int4"), "string_to_array": fixed("_text"),
	"array_agg": {SameAs: 0, ArrayOf: true}, "string_agg": fixed("text"),
	"count": fixed("int8"), "max": {SameAs: 0}, "min": {SameAs: 0}, "bool_and": fixed("bool"),
	"bool_or": fixed("bool"), "sum": fixed("int8"),
	"row_number": fixed("int8"), "abs": {SameAs: 0},

	// The rewriting's helpers (doc.go: the representation).
	"pgcat_regex":           fixed("bool"), // (text, pattern, flags): ~ ~* !~ !~* and SIMILAR-free regexes, Go's RE2 on PostgreSQL's ARE subset
	"pgcat_regclass_in":     fixed("regclass"),
	"pgcat_regclass_out":    fixed("text"),
	"pgcat_regtype_in":      fixed("regtype"),
	"pgcat_regtype_out":     fixed("text"),
	"pgcat_regproc_in":      fixed("regproc"),
	"pgcat_regproc_out":     fixed("text"),
	"pgcat_regnamespace_in": fixed("regnamespace"), "pgcat_regnamespace_out": fixed("text"),
	"pgcat_regrole_in": fixed("regrole"), "pgcat_regrole_out": fixed("text"),
	"pgcat_array_in":       fixed("text"), // PostgreSQL array text ('{a,b}') → JSON array
	"pgcat_array_out":      fixed("text"), // JSON array → PostgreSQL array text; (json, elemtype)
	"pgcat_vector_out":     fixed("text"), // JSON array → int2vector/oidvector text ('1 2')
	"pgcat_array_contains": fixed("bool"), // (json, value): value = ANY(array)
}
