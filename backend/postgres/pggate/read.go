package pggate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/relchain/relchain/sqlcheck"
)

// policy says which of the gate's refusals apply to a statement.
//
// Every refusal of the gate is one of two kinds. A determinism refusal
// exists because every node must compute the same result from the same
// state (system columns, catalogs, volatile functions, LIMIT without ORDER
// BY, bounds a node-local timeout must not decide); it is written
// w.nondeterministic(err). Every other refusal is a safety refusal: what
// no client may do on a node at all (files, network, settings, roles,
// sleeping, locks, writes, memory, relchain's own schema, constructs the
// gate does not know). Blocks enforce both kinds; the read path, whose
// results decide nothing and differ between nodes anyway (each answers
// from its own height), enforces only the safety ones.
type policy int

const (
	blockPolicy policy = iota // blocks and CheckTx: determinism and safety
	readPolicy                // the query path: safety only
)

// nondeterministic marks err as a determinism refusal: it refuses the
// statement on the block path and is dropped on the read path.
func (w *walker) nondeterministic(err error) error {
	if w.policy == readPolicy {
		return nil
	}
	return err
}

// readNodes are node types the block gate refuses for determinism only.
var readNodes = setOf(
	"WindowDef",        // window functions: their frames follow row order
	"RangeTableSample", // TABLESAMPLE: samples differ between nodes
)

// readFuncs are the functions the read path allows besides allowedFuncs,
// the clock functions and random(). Together with those, readGuarded,
// readSelfForms and infoSchemaFuncs they are the read path's function
// allowlist: every other function is refused (fail closed), named, "not on
// relchain's read allowlist". Each is harmless, and refused in blocks only
// because its value differs between nodes (object identifiers, catalog
// text, random numbers) or the gate cannot yet show its result independent
// of row order (window functions). Each reveals at most this database's
// own schema objects (the network's database: other databases are not
// reachable from a PostgreSQL session) or the caller's own session, never
// other roles, other databases, settings, statistics or the server's
// files, network or processes; backend/postgres/DESIGN.md ("The read
// allowlist") says why for each group. Deliberately absent: version()
// (the server's exact build; the wire listener answers SELECT version()
// itself), pg_has_role, to_regrole, shobj_description and the has_*
// privilege forms that take a role (each tells whether a role of the
// server exists or what it may do), the functions of funcReasons (files,
// network, settings, sleeping, locks, signals, the server's addresses and
// start time).
var readFuncs = setOf(
	// Catalog introspection (psql's \d family, ORMs): visibility on the
	// session's search_path, definitions of this database's objects.
	"pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible", "pg_operator_is_visible",
	"pg_opclass_is_visible", "pg_opfamily_is_visible", "pg_collation_is_visible",
	"pg_conversion_is_visible", "pg_statistics_obj_is_visible", "pg_ts_config_is_visible",
	"pg_ts_dict_is_visible", "pg_ts_parser_is_visible", "pg_ts_template_is_visible",
	"format_type", "pg_get_expr", "pg_get_indexdef", "pg_get_constraintdef", "pg_get_triggerdef",
	"pg_get_viewdef", "pg_get_ruledef", "pg_get_functiondef", "pg_get_function_arguments",
	"pg_get_function_identity_arguments", "pg_get_function_result", "pg_get_function_sqlbody", "pg_get_serial_sequence",
	"pg_get_partkeydef", "pg_get_partition_constraintdef", "pg_get_statisticsobjdef",
	"pg_get_statisticsobjdef_columns", "pg_get_statisticsobjdef_expressions",
	"pg_partition_ancestors", "pg_partition_root", "pg_partition_tree", "pg_relation_is_publishable",
	"obj_description", "col_description", "pg_encoding_to_char", "pg_char_to_encoding",
	"pg_index_column_has_property", "pg_index_has_property", "pg_indexam_has_property", "pg_typeof",
	"to_regclass", "to_regtype", "to_regnamespace", "to_regproc", "to_regprocedure", "to_regoper",
	"to_regoperator", "to_regcollation", "pg_get_keywords", "pg_size_pretty", "pg_column_size",
	// The session's own values (search_path is pinned to public; the user
	// is the network's reader role, the database the network's own).
	"current_schema", "current_schemas", "current_database", "current_user", "session_user",
	"current_role", "user",
	// Text and arrays.
	"quote_ident", "quote_literal", "quote_nullable", "format", "regexp_replace", "regexp_match",
	"regexp_matches", "regexp_split_to_array", "regexp_like", "string_to_array", "array_dims",
	"array_ndims", "generate_subscripts", "textlen", "regexp_split_to_table",
	// Window functions.
	"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
	"first_value", "last_value", "nth_value",
	// Values that differ between nodes.
	"random_normal", "gen_random_uuid", "timeofday", "age", "timezone",
)

// readSelfForms are the privilege functions the read path allows in their
// form without a role argument (the caller's own privileges, on objects
// of this database), with that form's number of arguments. The forms that
// name a role would tell whether any role of a shared server exists
// (an unknown one is an error) and what it may do.
var readSelfForms = map[string]int{
	"has_table_privilege":      2,
	"has_column_privilege":     3,
	"has_any_column_privilege": 2,
	"has_schema_privilege":     2,
	"has_function_privilege":   2,
	"has_sequence_privilege":   2,
	"has_type_privilege":       2,
}

// infoSchemaFuncs are the SQL helpers of information_schema's views a
// query may call itself: pure functions of their arguments (pgjdbc calls
// _pg_expandarray).
var infoSchemaFuncs = setOf(
	"_pg_expandarray", "_pg_index_position", "_pg_truetypid", "_pg_truetypmod", "_pg_char_max_length",
	"_pg_char_octet_length", "_pg_numeric_precision", "_pg_numeric_precision_radix", "_pg_numeric_scale",
	"_pg_datetime_precision", "_pg_interval_type",
)

// readGuarded are the functions the read path allows only behind a guard
// on their one argument, as the text it runs says (see guardCalls): a
// call whose argument fails the guard answers NULL.
//
//   - pg_get_userbyid names any role of the server from its identifier
//     (counting up from 10 would list them all); psql's \dt, \di, \dn show
//     owners with it. It answers for the roles that own an object of this
//     database (ownersOfThisDatabase): the network's own roles, and the
//     bootstrap superuser that owns pg_catalog.
//   - the size functions measure a relation on disk; psql's \dt+ shows
//     them. They answer for this database's relations, not for the
//     catalogs shared by every database of the server (pg_authid,
//     pg_database ...), whose sizes would count the server's roles and
//     databases.
//   - pg_describe_object names an object from its catalog and identifier
//     (psql's \dx+ lists an extension's objects with it); it answers for
//     the catalogs of this database, not the shared ones (it would name
//     any role or database of the server: 'role x').
//   - shobj_description (psql's \du+) answers for the roles the read
//     path shows (networkRoles) and this database.
//   - has_database_privilege and pg_database_size (psql's \l+) answer for
//     the database the read path shows, by its name NetworkDatabase (they
//     run on this database's own name, current_database()); pg_has_role
//     in its form without a user (\l+ asks about pg_read_all_stats) for
//     the roles the read path shows: another name answers NULL instead of
//     telling whether it exists.
var readGuarded = map[string]string{
	"pg_describe_object":     notShared,
	"shobj_description":      "(0)::pg_catalog.oid IN (" + networkRoles + " UNION SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())",
	"has_database_privilege": networkDatabaseName,
	"pg_database_size":       networkDatabaseName,
	"pg_has_role":            "(0)::pg_catalog.name IN (SELECT rolname FROM pg_catalog.pg_roles WHERE oid IN (" + networkRoles + "))",
	"pg_get_userbyid":        "(0)::pg_catalog.oid IN (" + ownersOfThisDatabase + ")",
	"pg_table_size":          notShared,
	"pg_relation_size":       notShared,
	"pg_total_relation_size": notShared,
	"pg_indexes_size":        notShared,
}

// ownersOfThisDatabase selects the roles that own an object of this
// database, or the database itself.
const ownersOfThisDatabase = "SELECT relowner FROM pg_catalog.pg_class" +
	" UNION SELECT nspowner FROM pg_catalog.pg_namespace" +
	" UNION SELECT proowner FROM pg_catalog.pg_proc" +
	" UNION SELECT typowner FROM pg_catalog.pg_type" +
	" UNION SELECT collowner FROM pg_catalog.pg_collation" +
	" UNION SELECT oprowner FROM pg_catalog.pg_operator" +
	" UNION SELECT opcowner FROM pg_catalog.pg_opclass" +
	" UNION SELECT opfowner FROM pg_catalog.pg_opfamily" +
	" UNION SELECT lanowner FROM pg_catalog.pg_language" +
	" UNION SELECT extowner FROM pg_catalog.pg_extension" +
	" UNION SELECT pubowner FROM pg_catalog.pg_publication" +
	" UNION SELECT conowner FROM pg_catalog.pg_conversion" +
	" UNION SELECT cfgowner FROM pg_catalog.pg_ts_config" +
	" UNION SELECT dictowner FROM pg_catalog.pg_ts_dict" +
	" UNION SELECT stxowner FROM pg_catalog.pg_statistic_ext" +
	" UNION SELECT datdba FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()"

// guardedArity is the number of arguments of the readGuarded functions
// that take more than one; the guard is on the first.
var guardedArity = map[string]int{"pg_describe_object": 3, "shobj_description": 2, "has_database_privilege": 2, "pg_has_role": 2}

// onThisDatabase are the readGuarded functions whose first argument, the
// network's name of the database, is replaced by this database's own
// name once the guard has checked it.
var onThisDatabase = setOf("has_database_privilege", "pg_database_size")

// networkDatabaseName is the guard of onThisDatabase: the name is the
// one pg_database shows.
const networkDatabaseName = "(0)::pg_catalog.name IN (SELECT '" + NetworkDatabase + "'::pg_catalog.name)"

// notShared is the guard of the size functions: the relation is not one
// of the catalogs every database of the server shares.
const notShared = "(0)::pg_catalog.regclass::pg_catalog.oid IN (SELECT oid FROM pg_catalog.pg_class WHERE NOT relisshared)"

// notOnReadAllowlist is the refusal of a function that is on none of the
// read path's lists.
func notOnReadAllowlist(name string) error {
	return fmt.Errorf("function %s is not on relchain's read allowlist: reads without a key may call only the functions that reveal nothing beyond this network's own schema and data (it may show other roles or databases of the server, its settings, statistics, files or processes)", name)
}

// readFuncCall checks a function call on the read path: a function of the
// allowlists or a user-defined function public.name(...); lpad/rpad and
// the size-multiplying functions keep their memory bounds, and the calls
// of readGuarded are recorded for guardCalls.
func (w *walker) readFuncCall(names []string, f *pg_query.FuncCall, wrapper *pg_query.Node) error {
	var name string
	switch {
	case len(names) == 1:
		name = names[0]
	case len(names) == 2 && names[0] == "pg_catalog":
		name = names[1]
	case len(names) == 2 && names[0] == "public":
		return w.userCall(f, names[1])
	case len(names) == 2 && names[0] == "information_schema":
		if infoSchemaFuncs[names[1]] {
			return nil
		}
		return notOnReadAllowlist(strings.Join(names, "."))
	default:
		return fmt.Errorf("function %s is not allowed: only built-in functions (unqualified or pg_catalog.) and user-defined functions called as public.name(...) are", strings.Join(names, "."))
	}
	_, clock := clockFuncs[name]
	switch arity, self := readSelfForms[name]; {
	case allowedFuncs[name], readFuncs[name], clock, name == "random":
	case self:
		if len(f.GetArgs()) != arity {
			return fmt.Errorf("function %s is allowed on the read path only in its %d-argument form, for the caller's own privileges: the form that names a role is not on relchain's read allowlist (it shows other roles of the server)", name, arity)
		}
	case readGuarded[name] != "":
		return w.guard(name, f, wrapper)
	default:
		if why, ok := funcReasons[name]; ok {
			return fmt.Errorf("function %s is not on relchain's read allowlist: %s", name, why)
		}
		return notOnReadAllowlist(name)
	}
	if err := w.grows(name, f.GetArgs()); err != nil {
		return err
	}
	switch name {
	case "generate_series":
		if err := w.checkSeries(f.GetArgs()); err != nil {
			// Unbounded by the text: no lpad/rpad may build on its rows
			// (checkSynthesized); time and rows are the query limits'.
			w.series = math.Inf(1)
			return w.nondeterministic(err)
		}
	case "lpad", "rpad":
		return w.checkPad(name, f.GetArgs())
	}
	return nil
}

// guard records a call of a readGuarded function for guardCalls.
func (w *walker) guard(name string, f *pg_query.FuncCall, wrapper *pg_query.Node) error {
	arity := 1
	if n, ok := guardedArity[name]; ok {
		arity = n
	}
	if len(f.GetArgs()) != arity || f.GetAggStar() || f.GetAggDistinct() || f.GetFuncVariadic() || f.GetOver() != nil ||
		len(f.GetAggOrder()) > 0 || f.GetAggFilter() != nil || hasNamedArg(f) {
		return fmt.Errorf("function %s is not on relchain's read allowlist in this form: only as a plain call with %d argument(s)", name, arity)
	}
	if wrapper == nil {
		return fmt.Errorf("function %s is not allowed in this position on the read path", name)
	}
	w.guards = append(w.guards, guardedCall{node: wrapper, cond: readGuarded[name], thisDatabase: onThisDatabase[name]})
	return nil
}

// hasNamedArg reports a call with an argument passed by name.
func hasNamedArg(f *pg_query.FuncCall) bool {
	for _, a := range f.GetArgs() {
		if a.GetNamedArgExpr() != nil {
			return true
		}
	}
	return false
}

// guardsInFrom refuses a guarded call that is a FROM item (FROM
// pg_get_userbyid(10)): a CASE cannot stand there.
func guardsInFrom(top *pg_query.Node, calls []guardedCall) error {
	if len(calls) == 0 {
		return nil
	}
	guarded := make(map[*pg_query.Node]bool, len(calls))
	for _, g := range calls {
		guarded[g.node] = true
	}
	var found *pg_query.FuncCall
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if rf, ok := m.Interface().(*pg_query.RangeFunction); ok {
			for _, f := range rf.GetFunctions() {
				if items := f.GetList().GetItems(); len(items) > 0 && guarded[items[0]] && found == nil {
					found = items[0].GetFuncCall()
				}
			}
		}
		eachChild(m, visit)
	}
	visit(top.ProtoReflect())
	if found != nil {
		return fmt.Errorf("function %s is allowed on the read path only in an expression, not as a FROM item", strings.Join(stringsOf(found.GetFuncname()), "."))
	}
	return nil
}

// guardedCall is a call of a readGuarded function, to be wrapped in its
// guard.
type guardedCall struct {
	node         *pg_query.Node // holds the FuncCall
	cond         string         // the guard, its argument written (0)
	thisDatabase bool           // onThisDatabase: the guarded call runs on current_database()
}

// guardCalls replaces each recorded call f(x, …) by CASE WHEN <guard of
// x> THEN f(x, …) END (f(current_database(), …) for onThisDatabase).
func guardCalls(calls []guardedCall) error {
	for _, g := range calls {
		f := g.node.GetFuncCall()
		tree, err := pg_query.Parse("SELECT CASE WHEN " + g.cond + " THEN 0 END")
		if err != nil {
			return fmt.Errorf("guard of %v: %w", f.GetFuncname(), err)
		}
		c := tree.GetStmts()[0].GetStmt().GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal()
		when := c.GetCaseExpr().GetArgs()[0].GetCaseWhen()
		cast := when.GetExpr().GetSubLink().GetTestexpr().GetTypeCast()
		for cast.GetArg().GetTypeCast() != nil {
			cast = cast.GetArg().GetTypeCast()
		}
		if cast == nil || cast.GetArg().GetAConst() == nil {
			return fmt.Errorf("guard of %v: no argument placeholder", f.GetFuncname())
		}
		cast.Arg = f.GetArgs()[0]
		if g.thisDatabase {
			f.Args[0] = &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{
				Funcname:   []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode("current_database")},
				Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL,
			}}}
		}
		when.Result = &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: f}}
		g.node.Node = c.GetNode()
	}
	return nil
}

// readTypeName allows on the read path any type of pg_catalog (object
// identifier types such as regclass included), public (tables' row types)
// or information_schema, except readTypes: a type's input function reads
// no file.
func readTypeName(t *pg_query.TypeName) error {
	names := stringsOf(t.GetNames())
	switch {
	case len(names) == 1, len(names) == 2 && names[0] == "pg_catalog":
		if why, ok := readTypes[names[len(names)-1]]; ok {
			return fmt.Errorf("type %s is not on relchain's read allowlist: %s", names[len(names)-1], why)
		}
		return nil
	case len(names) == 2 && (names[0] == "public" || names[0] == "information_schema"):
		return nil
	}
	return fmt.Errorf("type %s is not allowed: only types of pg_catalog, public and information_schema are", strings.Join(names, "."))
}

// readTypes are the types of pg_catalog the read path refuses: their
// input and output functions look roles of the server up by name or
// identifier (a cast of 10 to regrole names a role; a cast of 'r=r/x' to
// aclitem tells whether roles r and x exist).
var readTypes = map[string]string{
	"regrole": "its values name any role of the server",
	"aclitem": "its input names roles of the server, and fails for a role that does not exist",
}

// readSchema allows on the read path the schemas pg_catalog and
// information_schema besides the user's; relchain's own and the other
// system schemas (pg_toast, pg_temp ...) stay refused.
func readSchema(schema string) error {
	if schema == "pg_catalog" || schema == "information_schema" {
		return nil
	}
	return checkSchema(schema)
}

// relchainNamespaces and relchainRelations select relchain's schema and
// its relations, for the catalog filters.
const (
	relchainNamespaces = "(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'relchain')"
	relchainRelations  = "(SELECT oid FROM pg_catalog.pg_class WHERE relnamespace IN " + relchainNamespaces + ")"
)

// catalogRelations are the relations of pg_catalog the read path may
// read: its allowlist of system relations, with infoSchemaViews. Each maps
// to the condition that hides relchain's own objects ("" for none to
// hide). Every one is a catalog of this database alone (not one of the
// catalogs all databases of a server share: pg_authid, pg_database,
// pg_db_role_setting, pg_tablespace, pg_shdepend ...) and describes its
// schema objects, or is a view over such catalogs; backend/postgres/DESIGN.md
// ("The read allowlist") says what each reveals. Every other relation of
// pg_catalog is refused as "not on relchain's read allowlist": the roles
// of a shared server (pg_roles aside, below), its other databases, its
// settings, statistics and activity (pg_settings, pg_stat_*, pg_stats,
// pg_locks ...), files (pg_hba_file_rules, pg_file_settings), and
// whatever a later PostgreSQL release adds.
//
// The shared catalogs and statistics views that GUI tools read (psql's
// \l and \du, pgcli's completion, Sequelize's describeTable) are on the
// allowlist too, answered with rows of the read path's own:
// catalogReplacements (catalogs.go).
var catalogRelations = map[string]string{
	// Schema objects of this database, without relchain's.
	"pg_namespace":     "nspname <> 'relchain'",
	"pg_class":         "relnamespace NOT IN " + relchainNamespaces,
	"pg_type":          "typnamespace NOT IN " + relchainNamespaces,
	"pg_proc":          "pronamespace NOT IN " + relchainNamespaces,
	"pg_constraint":    "connamespace NOT IN " + relchainNamespaces,
	"pg_statistic_ext": "stxnamespace NOT IN " + relchainNamespaces,
	"pg_attribute":     "attrelid NOT IN " + relchainRelations,
	"pg_attrdef":       "adrelid NOT IN " + relchainRelations,
	"pg_index":         "indrelid NOT IN " + relchainRelations,
	"pg_policy":        "polrelid NOT IN " + relchainRelations,
	"pg_rewrite":       "ev_class NOT IN " + relchainRelations,
	"pg_sequence":      "seqrelid NOT IN " + relchainRelations,
	"pg_description":   "objoid NOT IN " + relchainRelations,
	"pg_trigger":       "tgrelid NOT IN " + relchainRelations + " AND tgname NOT LIKE 'relchain%'",
	// Views over them.
	"pg_tables":             "schemaname <> 'relchain'",
	"pg_indexes":            "schemaname <> 'relchain'",
	"pg_views":              "schemaname <> 'relchain'",
	"pg_matviews":           "schemaname <> 'relchain'",
	"pg_sequences":          "schemaname <> 'relchain'",
	"pg_rules":              "schemaname <> 'relchain'",
	"pg_publication_tables": "schemaname <> 'relchain'",
	// Catalogs of this database that list nothing of relchain's.
	"pg_am":                    "",
	"pg_amop":                  "",
	"pg_amproc":                "",
	"pg_opclass":               "",
	"pg_opfamily":              "",
	"pg_operator":              "",
	"pg_aggregate":             "",
	"pg_collation":             "",
	"pg_conversion":            "",
	"pg_cast":                  "",
	"pg_enum":                  "",
	"pg_range":                 "",
	"pg_language":              "",
	"pg_extension":             "",
	"pg_depend":                "",
	"pg_inherits":              "",
	"pg_partitioned_table":     "",
	"pg_foreign_table":         "",
	"pg_publication":           "",
	"pg_publication_namespace": "",
	"pg_publication_rel":       "",
	"pg_ts_config":             "",
	"pg_ts_config_map":         "",
	"pg_ts_dict":               "",
	"pg_ts_parser":             "",
	"pg_ts_template":           "",
}

// infoSchemaViews are the views of information_schema the read path may
// read, each with the condition that hides relchain's own objects. The
// reader role may SELECT relchain's bookkeeping tables (the query path
// reads the height from relchain.meta), so the views' own privilege
// filter would show them. Each shows this database's schema objects that
// the reader role may use (the views' own filter), or fixed facts about
// PostgreSQL (sql_features ...). Refused: the views of roles
// (applicable_roles, enabled_roles, administrable_role_authorizations,
// role_*_grants), of foreign servers and user mappings (their options can
// hold credentials), the internal _pg_* views, and any view not named
// here.
var infoSchemaViews = map[string]string{
	"tables":                                "table_schema <> 'relchain'",
	"columns":                               "table_schema <> 'relchain'",
	"views":                                 "table_schema <> 'relchain'",
	"schemata":                              "schema_name <> 'relchain'",
	"table_constraints":                     "table_schema <> 'relchain'",
	"key_column_usage":                      "table_schema <> 'relchain'",
	"referential_constraints":               "constraint_schema <> 'relchain'",
	"check_constraints":                     "constraint_schema <> 'relchain'",
	"table_privileges":                      "table_schema <> 'relchain'",
	"column_privileges":                     "table_schema <> 'relchain'",
	"column_udt_usage":                      "table_schema <> 'relchain'",
	"column_domain_usage":                   "table_schema <> 'relchain'",
	"column_column_usage":                   "table_schema <> 'relchain'",
	"element_types":                         "object_schema <> 'relchain'",
	"routines":                              "routine_schema <> 'relchain'",
	"parameters":                            "specific_schema <> 'relchain'",
	"sequences":                             "sequence_schema <> 'relchain'",
	"domains":                               "domain_schema <> 'relchain'",
	"domain_constraints":                    "domain_schema <> 'relchain'",
	"domain_udt_usage":                      "domain_schema <> 'relchain'",
	"attributes":                            "udt_schema <> 'relchain'",
	"user_defined_types":                    "user_defined_type_schema <> 'relchain'",
	"triggers":                              "event_object_schema <> 'relchain' AND trigger_name NOT LIKE 'relchain%'",
	"triggered_update_columns":              "event_object_schema <> 'relchain' AND trigger_name NOT LIKE 'relchain%'",
	"view_table_usage":                      "view_schema <> 'relchain' AND table_schema <> 'relchain'",
	"view_column_usage":                     "view_schema <> 'relchain' AND table_schema <> 'relchain'",
	"view_routine_usage":                    "table_schema <> 'relchain' AND specific_schema <> 'relchain'",
	"character_sets":                        "",
	"collations":                            "",
	"collation_character_set_applicability": "",
	"information_schema_catalog_name":       "",
	"sql_features":                          "",
	"sql_sizing":                            "",
}

// notOnRelationAllowlist is the refusal of a system relation that is on
// neither list.
func notOnRelationAllowlist(schema, rel string) error {
	return fmt.Errorf("relation %s.%s is not on relchain's read allowlist: reads without a key may read only the catalogs that describe this network's own schema (it may show other roles or databases of the server, its settings, statistics or activity)", schema, rel)
}

// readRelation checks a relation on the read path: a user's table, or a
// catalog relation of catalogRelations or infoSchemaViews, which is
// recorded to be replaced by its filtered rows (see substitute).
func (w *walker) readRelation(r *pg_query.RangeVar, wrapper *pg_query.Node) error {
	if r.GetCatalogname() != "" {
		return errors.New("cross-database references are not allowed")
	}
	schema, rel := r.GetSchemaname(), r.GetRelname()
	var (
		filter string
		ok     bool
	)
	switch {
	case schema == "information_schema":
		if text, ok := infoSchemaReplacements[rel]; ok {
			return w.replaceCatalog(schema, rel, "", text, wrapper)
		}
		if filter, ok = infoSchemaViews[rel]; !ok {
			return notOnRelationAllowlist(schema, rel)
		}
	case schema == "pg_catalog" || (schema == "" && strings.HasPrefix(rel, "pg_")):
		if text, ok := catalogReplacements[rel]; ok {
			return w.replaceCatalog(schema, rel, "", text, wrapper)
		}
		if filter, ok = catalogRelations[rel]; !ok {
			return notOnRelationAllowlist("pg_catalog", rel)
		}
	default:
		return checkRangeVar(r)
	}
	if filter == "" {
		return nil
	}
	return w.replaceCatalog(schema, rel, filter, "", wrapper)
}

// replaceCatalog records a catalog relation to be replaced by its rows
// that satisfy filter, or by the query text.
func (w *walker) replaceCatalog(schema, rel, filter, text string, wrapper *pg_query.Node) error {
	if wrapper == nil {
		return fmt.Errorf("relation %s.%s is allowed only as a FROM item", readSchemaOf(schema), rel)
	}
	w.catalogs = append(w.catalogs, catalogUse{node: wrapper, schema: readSchemaOf(schema), filter: filter, text: text})
	return nil
}

func readSchemaOf(schema string) string {
	if schema == "" {
		return "pg_catalog"
	}
	return schema
}

// catalogUse is a catalog relation in a FROM clause, to be replaced by
// its rows that are not relchain's.
type catalogUse struct {
	node    *pg_query.Node // holds the RangeVar (after substitute: the subquery)
	schema  string
	filter  string
	text    string // instead of a filter: the query that replaces the relation (catalogReplacements)
	aliased bool   // the query gave the relation an alias of its own
}

// substitute replaces each recorded catalog relation by a subquery of its
// rows that are not relchain's own (or by its replacement of
// catalogReplacements), under the relation's alias (or name), so the
// statement's columns and their names stay the same.
func substitute(uses []catalogUse) error {
	for i, u := range uses {
		r := u.node.GetRangeVar()
		text := u.text
		if text == "" {
			text = fmt.Sprintf("SELECT * FROM %s.%s WHERE %s", u.schema, r.GetRelname(), u.filter)
		}
		tree, err := pg_query.Parse(text)
		if err != nil {
			return fmt.Errorf("filter of catalog %s: %w", r.GetRelname(), err)
		}
		alias := r.GetAlias()
		uses[i].aliased = alias != nil
		if alias == nil {
			alias = &pg_query.Alias{Aliasname: r.GetRelname()}
		}
		u.node.Node = &pg_query.Node_RangeSubselect{RangeSubselect: &pg_query.RangeSubselect{
			Subquery: tree.GetStmts()[0].GetStmt(),
			Alias:    alias,
		}}
	}
	return nil
}

// unqualify rewrites the column references that name a substituted
// catalog with its schema (pg_catalog.pg_class.relname, as SQLAlchemy
// writes them) to name it as the subquery that replaced it is named
// (pg_class.relname): a subquery's alias takes no schema. Only catalogs
// used without an alias are concerned (with one, PostgreSQL itself refuses
// the schema-qualified name).
func unqualify(top *pg_query.Node, uses []catalogUse) {
	named := map[[2]string]bool{}
	for _, u := range uses {
		if r := u.node.GetRangeSubselect(); r != nil && r.GetAlias().GetAliasname() != "" && !u.aliased {
			named[[2]string{u.schema, r.GetAlias().GetAliasname()}] = true
		}
	}
	if len(named) == 0 {
		return
	}
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if c, ok := m.Interface().(*pg_query.ColumnRef); ok {
			f := c.GetFields()
			if len(f) >= 3 && f[0].GetString_() != nil && f[1].GetString_() != nil &&
				named[[2]string{f[0].GetString_().GetSval(), f[1].GetString_().GetSval()}] {
				c.Fields = f[1:]
			}
			return
		}
		eachChild(m, visit)
	}
	visit(top.ProtoReflect())
}

// Read is what the read policy learns of an accepted query.
type Read struct {
	// Text is the text to run: the statement, or its deparse with the
	// catalogs that list relchain's objects filtered and the calls of
	// readGuarded behind their guards.
	Text string
	// Writes: the query holds a data-modifying WITH, which the read path
	// refuses as a write.
	Writes bool
}

// readVerdict is the read policy's answer for one text.
type readVerdict struct {
	read Read
	err  error
}

var readCache sqlcheck.VerdictCache[*readVerdict]

// CheckRead is the read policy's verdict on a query (the node's query
// path, whose results decide nothing): the gate's safety refusals only
// (see policy). It returns the text to run: the statement itself, or, if
// it reads catalogs that list relchain's own objects or calls a function
// of readGuarded, the statement with each such catalog replaced by its
// rows that are not relchain's and each such call behind its guard, and
// whether it writes (a data-modifying WITH). A
// statement other than a SELECT gets the block gate's verdict unchanged
// (the query path refuses it anyway).
func CheckRead(sql string) (Read, error) {
	v := readCache.Get(sql, analyzeRead)
	return v.read, v.err
}

// analyzeRead is CheckRead without the cache.
func analyzeRead(sql string) *readVerdict {
	tree, err := parse(sql)
	if err != nil {
		return &readVerdict{err: err}
	}
	top := tree.GetStmts()[0].GetStmt()
	if top.GetSelectStmt() == nil {
		return &readVerdict{read: Read{Text: sql}, err: lookup(sql).Err}
	}
	w := &walker{sql: sql, ctx: stmtTop, policy: readPolicy, series: 1, growth: 1}
	if err := w.walk(top.ProtoReflect(), nil); err != nil {
		return &readVerdict{err: err}
	}
	if err := w.checkSynthesized(); err != nil {
		return &readVerdict{err: err}
	}
	writes := w.modifying > 0
	w.replaceSession() // session.go
	if len(w.catalogs) == 0 && len(w.guards) == 0 && len(w.session) == 0 {
		return &readVerdict{read: Read{Text: sql, Writes: writes}}
	}
	if err := substitute(w.catalogs); err != nil {
		return &readVerdict{err: err}
	}
	unqualify(top, w.catalogs)
	if err := guardsInFrom(top, w.guards); err != nil {
		return &readVerdict{err: err}
	}
	if err := guardCalls(w.guards); err != nil {
		return &readVerdict{err: err}
	}
	text, err := pg_query.Deparse(tree)
	if err != nil {
		return &readVerdict{err: fmt.Errorf("this query reads catalogs whose rows relchain filters or calls functions it guards, and PostgreSQL's deparser fails on it: %w", err)}
	}
	return &readVerdict{read: Read{Text: text, Writes: writes}}
}

// eachChild calls visit on every message m holds: its message fields and
// the messages of its list fields, in field order.
func eachChild(m protoreflect.Message, visit func(protoreflect.Message)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind:
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				visit(v.List().Get(i).Message())
			}
		case !fd.IsMap():
			visit(v.Message())
		}
		return true
	})
}
