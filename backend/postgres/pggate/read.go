package pggate

import (
	"errors"
	"fmt"
	"math"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

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

// readFuncs are functions the read path allows besides allowedFuncs, the
// clock functions and random(): harmless, but refused in blocks because
// their values differ between nodes (object identifiers, catalog text,
// node-local values, random numbers) or the gate cannot yet show their
// result is independent of row order (window functions). Functions that
// read files, open connections, sleep, change settings, take locks, signal
// backends, write or reveal the node's configuration or network stay off
// this list (see funcReasons).
var readFuncs = setOf(
	// Catalog introspection (psql's \d family, ORMs).
	"pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible", "pg_operator_is_visible",
	"pg_opclass_is_visible", "pg_opfamily_is_visible", "pg_collation_is_visible",
	"pg_conversion_is_visible", "pg_statistics_obj_is_visible", "pg_ts_config_is_visible",
	"pg_ts_dict_is_visible", "pg_ts_parser_is_visible", "pg_ts_template_is_visible",
	"format_type", "pg_get_expr", "pg_get_indexdef", "pg_get_constraintdef", "pg_get_triggerdef",
	"pg_get_viewdef", "pg_get_ruledef", "pg_get_functiondef", "pg_get_function_arguments",
	"pg_get_function_identity_arguments", "pg_get_function_result", "pg_get_serial_sequence",
	"pg_get_partkeydef", "pg_get_partition_constraintdef", "pg_get_statisticsobjdef",
	"pg_get_statisticsobjdef_columns", "pg_get_statisticsobjdef_expressions", "pg_get_userbyid",
	"pg_partition_ancestors", "pg_partition_root", "pg_partition_tree", "pg_relation_is_publishable",
	"obj_description", "col_description", "shobj_description", "pg_encoding_to_char",
	"pg_char_to_encoding", "pg_index_column_has_property", "pg_index_has_property",
	"pg_indexam_has_property", "pg_typeof", "to_regclass", "to_regtype", "to_regnamespace",
	"to_regproc", "to_regprocedure", "to_regrole", "has_table_privilege", "has_column_privilege",
	"has_any_column_privilege", "has_schema_privilege", "has_function_privilege",
	"has_sequence_privilege", "pg_has_role", "pg_table_size", "pg_relation_size",
	"pg_total_relation_size", "pg_indexes_size", "pg_size_pretty", "pg_column_size",
	// Session values an ORM asks for (search_path is pinned to public).
	"current_schema", "current_schemas", "current_database", "current_user", "session_user",
	"current_role", "user", "version",
	// Text and arrays.
	"quote_ident", "quote_literal", "quote_nullable", "format", "regexp_replace", "regexp_match",
	"regexp_matches", "regexp_split_to_array", "regexp_like", "string_to_array", "array_dims",
	"array_ndims", "generate_subscripts", "textlen",
	// Window functions.
	"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
	"first_value", "last_value", "nth_value",
	// Values that differ between nodes.
	"random_normal", "gen_random_uuid", "timeofday", "age", "timezone",
)

// readFuncCall checks a function call on the read path: a function of the
// allowlists or a user-defined function public.name(...); lpad/rpad and
// the size-multiplying functions keep their memory bounds.
func (w *walker) readFuncCall(names []string, f *pg_query.FuncCall) error {
	var name string
	switch {
	case len(names) == 1:
		name = names[0]
	case len(names) == 2 && names[0] == "pg_catalog":
		name = names[1]
	case len(names) == 2 && names[0] == "public":
		return w.userCall(f, names[1])
	case len(names) == 2 && names[0] == "information_schema" && strings.HasPrefix(names[1], "_pg_"):
		return nil // the SQL helpers of information_schema's views
	default:
		return fmt.Errorf("function %s is not allowed: only built-in functions (unqualified or pg_catalog.) and user-defined functions called as public.name(...) are", strings.Join(names, "."))
	}
	_, clock := clockFuncs[name]
	if !allowedFuncs[name] && !readFuncs[name] && !clock && name != "random" {
		if why, ok := funcReasons[name]; ok {
			return fmt.Errorf("function %s is not allowed: %s", name, why)
		}
		return fmt.Errorf("function %s is not allowed on the read path: it is not on the gate's allowlist of harmless functions", name)
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

// readTypeName allows on the read path any type of pg_catalog (object
// identifier types such as regclass included), public (tables' row types)
// or information_schema; a type's input function reads no file.
func readTypeName(t *pg_query.TypeName) error {
	names := stringsOf(t.GetNames())
	switch {
	case len(names) == 1:
		return nil
	case len(names) == 2 && (names[0] == "pg_catalog" || names[0] == "public" || names[0] == "information_schema"):
		return nil
	}
	return fmt.Errorf("type %s is not allowed: only types of pg_catalog, public and information_schema are", strings.Join(names, "."))
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

// catalogRelations are the relations of pg_catalog the read path may read:
// those that describe the schema, as psql's \d family and ORMs read them,
// each with the condition that hides relchain's own objects ("" for none
// to hide). The others (pg_stat_*, pg_settings, pg_authid, pg_database,
// pg_locks, ...) show the server's runtime state, configuration, secrets or
// other databases and stay refused.
var catalogRelations = map[string]string{
	"pg_namespace":             "nspname <> 'relchain'",
	"pg_class":                 "relnamespace NOT IN " + relchainNamespaces,
	"pg_type":                  "typnamespace NOT IN " + relchainNamespaces,
	"pg_proc":                  "pronamespace NOT IN " + relchainNamespaces,
	"pg_constraint":            "connamespace NOT IN " + relchainNamespaces,
	"pg_statistic_ext":         "stxnamespace NOT IN " + relchainNamespaces,
	"pg_attribute":             "attrelid NOT IN " + relchainRelations,
	"pg_attrdef":               "adrelid NOT IN " + relchainRelations,
	"pg_index":                 "indrelid NOT IN " + relchainRelations,
	"pg_policy":                "polrelid NOT IN " + relchainRelations,
	"pg_rewrite":               "ev_class NOT IN " + relchainRelations,
	"pg_sequence":              "seqrelid NOT IN " + relchainRelations,
	"pg_description":           "objoid NOT IN " + relchainRelations,
	"pg_trigger":               "tgrelid NOT IN " + relchainRelations + " AND tgname NOT LIKE 'relchain%'",
	"pg_tables":                "schemaname <> 'relchain'",
	"pg_indexes":               "schemaname <> 'relchain'",
	"pg_views":                 "schemaname <> 'relchain'",
	"pg_matviews":              "schemaname <> 'relchain'",
	"pg_sequences":             "schemaname <> 'relchain'",
	"pg_am":                    "",
	"pg_collation":             "",
	"pg_inherits":              "",
	"pg_partitioned_table":     "",
	"pg_roles":                 "",
	"pg_publication":           "",
	"pg_publication_namespace": "",
	"pg_publication_rel":       "",
	"pg_tablespace":            "",
	"pg_enum":                  "",
	"pg_range":                 "",
	"pg_opclass":               "",
	"pg_operator":              "",
	"pg_language":              "",
	"pg_extension":             "",
	"pg_cast":                  "",
	"pg_depend":                "",
	"pg_foreign_table":         "",
}

// infoSchemaViews are the views of information_schema the read path may
// read, each with the condition that hides relchain's own objects. The
// reader role may SELECT relchain's bookkeeping tables (the query path
// reads the height from relchain.meta), so the views' own privilege
// filter would show them.
var infoSchemaViews = map[string]string{
	"tables":                  "table_schema <> 'relchain'",
	"columns":                 "table_schema <> 'relchain'",
	"views":                   "table_schema <> 'relchain'",
	"schemata":                "schema_name <> 'relchain'",
	"table_constraints":       "table_schema <> 'relchain'",
	"key_column_usage":        "table_schema <> 'relchain'",
	"constraint_column_usage": "table_schema <> 'relchain'",
	"constraint_table_usage":  "table_schema <> 'relchain'",
	"referential_constraints": "constraint_schema <> 'relchain'",
	"check_constraints":       "constraint_schema <> 'relchain'",
	"table_privileges":        "table_schema <> 'relchain'",
	"column_privileges":       "table_schema <> 'relchain'",
	"column_udt_usage":        "table_schema <> 'relchain'",
	"element_types":           "object_schema <> 'relchain'",
	"routines":                "routine_schema <> 'relchain'",
	"parameters":              "specific_schema <> 'relchain'",
	"sequences":               "sequence_schema <> 'relchain'",
	"domains":                 "domain_schema <> 'relchain'",
	"triggers":                "event_object_schema <> 'relchain' AND trigger_name NOT LIKE 'relchain%'",
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
		if filter, ok = infoSchemaViews[rel]; !ok {
			return fmt.Errorf("relation information_schema.%s is not allowed on the read path: only the views that describe tables, columns, constraints and routines are", rel)
		}
	case schema == "pg_catalog" || (schema == "" && strings.HasPrefix(rel, "pg_")):
		if filter, ok = catalogRelations[rel]; !ok {
			return fmt.Errorf("relation pg_catalog.%s is not allowed on the read path: only the catalogs that describe the schema are (it shows the server's runtime state, configuration, secrets or other databases)", rel)
		}
	default:
		return checkRangeVar(r)
	}
	if filter == "" {
		return nil
	}
	if wrapper == nil {
		return fmt.Errorf("relation %s.%s is allowed only as a FROM item", readSchemaOf(schema), rel)
	}
	w.catalogs = append(w.catalogs, catalogUse{node: wrapper, schema: readSchemaOf(schema), filter: filter})
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
	node   *pg_query.Node // holds the RangeVar
	schema string
	filter string
}

// substitute replaces each recorded catalog relation by a subquery of its
// rows that are not relchain's own, under the relation's alias (or name),
// so the statement's columns and their names stay the same.
func substitute(uses []catalogUse) error {
	for _, u := range uses {
		r := u.node.GetRangeVar()
		text := fmt.Sprintf("SELECT * FROM %s.%s WHERE %s", u.schema, r.GetRelname(), u.filter)
		tree, err := pg_query.Parse(text)
		if err != nil {
			return fmt.Errorf("filter of catalog %s: %w", r.GetRelname(), err)
		}
		alias := r.GetAlias()
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

// Read is what the read policy learns of an accepted query.
type Read struct {
	// Text is the text to run: the statement, or its deparse with the
	// catalogs that list relchain's objects filtered.
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
// it reads catalogs that list relchain's own objects, the statement with
// each such catalog replaced by its rows that are not relchain's, and
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
	if len(w.catalogs) == 0 {
		return &readVerdict{read: Read{Text: sql, Writes: writes}}
	}
	if err := substitute(w.catalogs); err != nil {
		return &readVerdict{err: err}
	}
	text, err := pg_query.Deparse(tree)
	if err != nil {
		return &readVerdict{err: fmt.Errorf("this query reads catalogs whose rows relchain filters, and PostgreSQL's deparser fails on it: %w", err)}
	}
	return &readVerdict{read: Read{Text: text, Writes: writes}}
}
