package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
)

// Canonical kinds of a backend opened WithPostgresDialect. A mixed network
// hashes the canonical rows of the same PostgreSQL table on PostgreSQL and
// on MariaDB: each column's kind must then be that of its PostgreSQL type,
// which pgdialect keeps in the column's COMMENT (pg:<type>, see pgdialect's
// ddl.go), not that of the MariaDB type storing it. The kinds are those of
// backend/postgres's canonValue: int2, int4 and int8 int; numeric(p,s)
// numeric (its display scale dropped, as rowcanon drops it); float8 float;
// text and varchar(n) text; bool bool (stored as TINYINT(1), where
// kindOf's mapping would make it an int); bytea bytes; date date;
// timestamp and timestamptz timestamp (both DATETIME(6), timestamptz in
// UTC: PostgreSQL's canonical form of either is its microseconds since
// 1970 read as UTC, so the two need not be told apart).
//
// A column without a pg: comment, or whose comment names a type pgdialect
// does not create or one stored in a MariaDB type other than the one
// pgdialect gives it (a table created or altered outside the dialect), is
// refused as having no canonical form rather than read by its MariaDB
// type: the same table on PostgreSQL may have any type, and a row that
// hashed differently on the two engines would split the network's AppHash
// silently, where a refusal is reported (ErrNoCanonicalForm).

// pgStorage is the kind of a PostgreSQL type pgdialect creates and the
// MariaDB DATA_TYPEs that store it (pgdialect's mariaType: text and an
// unbounded varchar are LONGTEXT, VARCHAR(768) in a primary key; bytea is
// LONGBLOB, VARBINARY(3072) in a primary key).
type pgStorage struct {
	kind      canonKind
	dataTypes []string
}

var pgStorages = map[string]pgStorage{
	"int2":        {kindInt, []string{"smallint"}},
	"int4":        {kindInt, []string{"int"}},
	"int8":        {kindInt, []string{"bigint"}},
	"numeric":     {kindNumeric, []string{"decimal"}},
	"float8":      {kindFloat, []string{"double"}},
	"text":        {kindText, []string{"longtext", "varchar"}},
	"varchar":     {kindText, []string{"varchar", "longtext"}},
	"bool":        {kindBool, []string{"tinyint"}},
	"bytea":       {kindBytes, []string{"longblob", "varbinary"}},
	"date":        {kindDate, []string{"date"}},
	"timestamp":   {kindTimestamp, []string{"datetime"}},
	"timestamptz": {kindTimestamp, []string{"datetime"}},
}

// pgCommentPrefix starts a column's COMMENT holding its PostgreSQL type
// (pgdialect's commentPrefix).
const pgCommentPrefix = "pg:"

// pgKindOf is the kind of a PostgreSQL-dialect column whose COMMENT is
// comment, stored in MariaDB's dataType (columnType as information_schema
// shows it), and the type errors name: kindNone (no canonical form) for a
// column pgdialect did not create as it creates that type.
func pgKindOf(comment, dataType, columnType string) (canonKind, string) {
	typ, ok := strings.CutPrefix(comment, pgCommentPrefix)
	if !ok {
		return kindNone, columnType + " (no " + pgCommentPrefix + " type)"
	}
	name, _, _ := strings.Cut(typ, "(")
	st, ok := pgStorages[name]
	if !ok {
		return kindNone, typ
	}
	for _, dt := range st.dataTypes {
		if strings.EqualFold(dataType, dt) {
			return st.kind, typ
		}
	}
	return kindNone, typ + " stored as " + columnType
}

// boolValue is the bool a TINYINT(1) holding i stands for: 0 false, 1
// true; any other value (written outside the dialect) has no canonical
// form.
func boolValue(i int64) (rowcanon.Value, error) {
	switch i {
	case 0:
		return rowcanon.Bool(false), nil
	case 1:
		return rowcanon.Bool(true), nil
	}
	return rowcanon.Value{}, fmt.Errorf("%d in a bool column (TINYINT(1)): neither 0 nor 1", i)
}

var (
	_ backend.CanonicalSequenceReader = (*Backend)(nil)
	_ backend.CanonicalSequenceReader = (*block)(nil)
	_ backend.CanonicalSequenceReader = canonBlock{}
)

// errNoSequences is CanonicalSequences' error on MariaDB's own SQL.
var errNoSequences = errors.New("mysql: canonical sequences need PostgreSQL's SQL (WithPostgresDialect)")

// CanonicalSequences implements backend.CanonicalSequenceReader: none.
// The postgres dialect on MariaDB has no sequences (pgdialect refuses
// serial columns and CREATE SEQUENCE), so its state is the empty list a
// PostgreSQL or SQLite validator of the same network gives while no
// sequence exists; a network on whose other engines one is created
// refuses it on MariaDB's translation first (app's schema judge).
func (b *Backend) CanonicalSequences(context.Context) ([]backend.SequenceState, error) {
	if !b.opts.pg {
		return nil, errNoSequences
	}
	return nil, nil
}

// CanonicalSequences implements backend.CanonicalSequenceReader for the
// block's state: as the Backend's.
func (k *block) CanonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	return k.b.CanonicalSequences(ctx)
}

// CanonicalSequences implements backend.CanonicalSequenceReader on the
// block Begin hands out.
func (c canonBlock) CanonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	return c.k.CanonicalSequences(ctx)
}
