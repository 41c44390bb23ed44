package pggate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Storage parameters.
//
// A table's storage parameters (CREATE TABLE ... WITH (...), CREATE TABLE
// AS ... WITH (...), ALTER TABLE ... SET (...) / RESET (...)) are allowed
// when they cannot change any statement's result, only how a node stores
// its rows and when it vacuums them: tableParams, each also under the
// toast. namespace where PostgreSQL has one. pgbench -i creates its tables
// WITH (fillfactor=100). parallel_workers counts here because a block's
// session plans no parallel query (max_parallel_workers_per_gather = 0,
// see backend/postgres), and a read decides nothing. Every other table
// parameter is refused, naming the allowed ones: user_catalog_table
// (logical decoding), oids. An index's storage parameters (fillfactor,
// deduplicate_items, buffering, fastupdate, gin_pending_list_limit,
// pages_per_range, autosummarize) are all of this kind and all allowed.

// tableParams are the table storage parameters that cannot change a
// result.
var tableParams = setOf(
	"fillfactor", "toast_tuple_target", "parallel_workers",
	"autovacuum_enabled", "autovacuum_vacuum_threshold", "autovacuum_vacuum_scale_factor",
	"autovacuum_vacuum_insert_threshold", "autovacuum_vacuum_insert_scale_factor",
	"autovacuum_analyze_threshold", "autovacuum_analyze_scale_factor",
	"autovacuum_vacuum_cost_delay", "autovacuum_vacuum_cost_limit",
	"autovacuum_freeze_min_age", "autovacuum_freeze_max_age", "autovacuum_freeze_table_age",
	"autovacuum_multixact_freeze_min_age", "autovacuum_multixact_freeze_max_age",
	"autovacuum_multixact_freeze_table_age", "log_autovacuum_min_duration",
	"vacuum_index_cleanup", "vacuum_truncate",
)

// toastParams are those PostgreSQL also accepts as toast.name.
var toastParams = setOf(
	"autovacuum_enabled", "autovacuum_vacuum_threshold", "autovacuum_vacuum_scale_factor",
	"autovacuum_vacuum_insert_threshold", "autovacuum_vacuum_insert_scale_factor",
	"autovacuum_vacuum_cost_delay", "autovacuum_vacuum_cost_limit",
	"autovacuum_freeze_min_age", "autovacuum_freeze_max_age", "autovacuum_freeze_table_age",
	"autovacuum_multixact_freeze_min_age", "autovacuum_multixact_freeze_max_age",
	"autovacuum_multixact_freeze_table_age", "log_autovacuum_min_duration",
	"vacuum_index_cleanup", "vacuum_truncate",
)

// allowedTableParams is the list the refusal names.
var allowedTableParams = func() string {
	names := make([]string, 0, len(tableParams))
	for n := range tableParams {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}()

// checkTableParams refuses a table storage parameter that could change a
// result, or that the gate does not know.
func checkTableParams(opts []*pg_query.Node) error {
	plainParamValues(opts)
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			return fmt.Errorf("storage parameter %s is not allowed", nodeName(o.ProtoReflect()))
		}
		name, ns := d.GetDefname(), d.GetDefnamespace()
		switch {
		case ns == "" && tableParams[name], ns == "toast" && toastParams[name]:
			continue
		}
		if ns != "" {
			name = ns + "." + name
		}
		return fmt.Errorf("storage parameter %s is not allowed: only those that cannot change a result are (%s, and toast.autovacuum_*, toast.vacuum_*, toast.log_autovacuum_min_duration)", name, allowedTableParams)
	}
	return nil
}

// checkTruncate allows TRUNCATE of tables (pgbench -i empties its tables
// so before loading them): every node removes the same rows, and change
// capture records it ('T', see backend/postgres), after which the
// backend sums the table afresh. RESTART IDENTITY is refused: it resets
// sequences. TRUNCATE is DDL for permissions (CASCADE empties the tables
// that reference these too); its tables are reported as written.
func (w *walker) checkTruncate(t *pg_query.TruncateStmt) error {
	if t.GetRestartSeqs() {
		return errors.New("TRUNCATE ... RESTART IDENTITY is not allowed: " + sequenceReason)
	}
	for _, r := range t.GetRelations() {
		if rv := r.GetRangeVar(); rv != nil {
			w.writes = append(w.writes, relName(rv))
		}
	}
	return nil
}

// plainParamValues turns a storage parameter's bare word value (on, off,
// true, false), which PostgreSQL's grammar parses as a type name, into the
// string it stands for, so that the walker does not take it for a type.
// The text PostgreSQL runs is the statement's own.
func plainParamValues(opts []*pg_query.Node) {
	for _, o := range opts {
		d := o.GetDefElem()
		tn := d.GetArg().GetTypeName()
		if tn == nil || len(tn.GetNames()) != 1 || len(tn.GetTypmods()) > 0 || len(tn.GetArrayBounds()) > 0 || tn.GetSetof() {
			continue
		}
		switch w := tn.GetNames()[0].GetString_().GetSval(); w {
		case "on", "off", "true", "false":
			d.Arg = pg_query.MakeStrNode(w)
		}
	}
}
