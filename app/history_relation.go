// The history relation over the wire (issue 36, item 5): a read of
// PostgreSQL's SQL may name relchain_history('table'[, from_height]) in
// FROM; the node replaces it with the table's versions as a relation of
// literal rows (sqlcheck/pghistory) before the read goes to the backend.

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/sqlcheck/pghistory"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// MaxHistoryRelationVersions bounds the versions one history relation
// holds: they are written into the read's text, which prescan.MaxBytes
// also bounds.
const MaxHistoryRelationVersions = 5000

// historyColumns are the history relation's columns, in order, with
// their types: a version as the event format has it (api.ChangeEvent).
var historyColumns = [...]struct{ name, typ string }{
	{"height", "bigint"}, {"op", "text"}, {"tx_index", "integer"}, {"tx_hash", "text"},
	{"signer", "text"}, {"block_time", "timestamptz"}, {"app_hash", "text"}, {"key", "text"},
	{"key_values", "jsonb"}, {"before", "jsonb"}, {"after", "jsonb"}, {"before_known", "boolean"},
	{"txs", "jsonb"},
}

// speaksPostgres reports whether the network's SQL is PostgreSQL's.
func (e *Executor) speaksPostgres() bool {
	d, err := dialect.Lookup(e.Backend().Dialect())
	return err == nil && d.PostgresSQL(e.Params().SQLDialect)
}

// withHistoryRelation is sql with each relchain_history(...) replaced by
// its relation (sql itself when it names none, or when the network does
// not speak PostgreSQL's SQL). describe: the relation is left empty (its
// columns' types are all a Describe needs).
func (e *Executor) withHistoryRelation(ctx context.Context, sql string, describe bool) (string, error) {
	if !e.speaksPostgres() {
		return sql, nil
	}
	out, _, err := pghistory.Rewrite(sql, func(c pghistory.Call) (string, error) {
		if describe {
			return historyRelationSQL(nil), nil
		}
		return e.historyRelation(ctx, c, len(sql))
	})
	return out, err
}

// withHistoryRelation is Executor.withHistoryRelation bounded by
// MaxQueryWait, as the read it prepares.
func (a *App) withHistoryRelation(ctx context.Context, sql string, describe bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, a.MaxQueryWait)
	defer cancel()
	return a.ex.withHistoryRelation(ctx, sql, describe)
}

// namesHistory reports whether sql (of PostgreSQL's SQL) names the
// history relation.
func (e *Executor) namesHistory(sql string) bool {
	if !e.speaksPostgres() {
		return false
	}
	_, found, err := pghistory.Rewrite(sql, func(pghistory.Call) (string, error) { return historyRelationSQL(nil), nil })
	return found || errors.Is(err, pghistory.ErrCall)
}

// historyRelation reads c's versions and writes them as a SELECT; the
// read's text, room bytes long before the call is replaced, must stay
// within prescan.MaxBytes.
func (e *Executor) historyRelation(ctx context.Context, c pghistory.Call, room int) (string, error) {
	name := fmt.Sprintf("relchain_history('%s')", c.Table)
	hr, start, _, err := e.historyReader(ctx)
	if err == nil {
		err = checkFrom(c.FromHeight, start)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	from := max(c.FromHeight, start)
	blocks, more, err := hr.TableHistory(ctx, c.Table, from, MaxHistoryRelationVersions)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if more {
		return "", fmt.Errorf("%s holds more than %d versions from height %d on this node, more than one read takes: name a later first height (relchain_history('%s', H)), or read them all with relchain changes", name, MaxHistoryRelationVersions, from, c.Table)
	}
	if len(blocks) == 0 && !e.hasAuthTable(c.Table) {
		return "", fmt.Errorf("%s: no table %q has row history on this node (history covers the tables with a primary key whose values have a canonical form; see docs/history-and-changes.md)", name, c.Table)
	}
	var events []api.ChangeEvent
	for _, b := range blocks {
		for _, v := range b.Versions {
			ev, err := changeEvent(v, b.Info)
			if err != nil {
				return "", fmt.Errorf("%s: %w", name, err)
			}
			events = append(events, ev)
		}
	}
	text := historyRelationSQL(events)
	if room+len(text) > prescan.MaxBytes {
		return "", fmt.Errorf("%s: its %d versions from height %d make a relation of %d bytes, more than one read's text holds (%d): name a later first height (relchain_history('%s', H)), or read them with relchain changes", name, len(events), from, len(text), prescan.MaxBytes, c.Table)
	}
	return text, nil
}

// hasAuthTable reports whether table is in the latest authenticated
// state.
func (e *Executor) hasAuthTable(table string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.authSnap == nil {
		return false
	}
	_, ok := e.authSnap.tables[table]
	return ok
}

// historyRelationSQL is the relation of events: a VALUES list under the
// columns' names, or no row of the columns' types.
func historyRelationSQL(events []api.ChangeEvent) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range historyColumns {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(events) == 0 {
			fmt.Fprintf(&b, "CAST(NULL AS %s) AS %s", c.typ, c.name)
		} else {
			fmt.Fprintf(&b, "column%d AS %s", i+1, c.name)
		}
	}
	if len(events) == 0 {
		b.WriteString(" WHERE false")
		return b.String()
	}
	b.WriteString(" FROM (VALUES ")
	for i, ev := range events {
		if i > 0 {
			b.WriteString(", ")
		}
		writeEventRow(&b, ev)
	}
	b.WriteString(") AS relchain_versions")
	return b.String()
}

// writeEventRow writes one row of the relation: each value cast to its
// column's type.
func writeEventRow(b *strings.Builder, ev api.ChangeEvent) {
	s := ev.Source
	values := [len(historyColumns)]string{
		strconv.FormatInt(s.Height, 10), quoteLiteral(ev.Op), strconv.Itoa(s.TxIndex), quoteLiteral(s.TxHash),
		quoteLiteral(s.Signer), quoteLiteral(timestampLiteral(s.BlockTime)), quoteLiteral(s.AppHash), quoteLiteral(s.Key),
		jsonLiteral(s.KeyValues), jsonLiteral(ev.Before), jsonLiteral(ev.After), strconv.FormatBool(s.BeforeKnown),
		jsonLiteral(s.Txs),
	}
	b.WriteByte('(')
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "CAST(%s AS %s)", v, historyColumns[i].typ)
	}
	b.WriteByte(')')
}

// timestampLiteral is an event's block time (RFC 3339, nanoseconds) as
// timestamptz input both PostgreSQL and the postgres dialect on SQLite
// read: microseconds (timestamptz's precision), truncated, and the
// offset.
func timestampLiteral(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil {
		return rfc3339 // changeEvent writes RFC 3339: the cast names a bad one
	}
	return t.UTC().Truncate(time.Microsecond).Format("2006-01-02 15:04:05.000000-07:00")
}

// quoteLiteral is s as a standard-conforming string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// jsonLiteral is v's JSON as a string literal; NULL for a nil map (the
// before of an insert, the after of a delete).
func jsonLiteral(v any) string {
	if m, ok := v.(map[string]any); ok && m == nil {
		return "NULL"
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "NULL" // changeEvent's values are JSON's own
	}
	return quoteLiteral(string(out))
}
