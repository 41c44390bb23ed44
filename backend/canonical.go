package backend

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statetree"
)

// CanonicalReader is implemented by a backend that can read a table's
// committed rows as canonical rows (package rowcanon), the same on every
// engine: the first step of issue 36's authenticated state (a statetree
// per table keyed by primary key) and of issue 37's mixed networks. It is
// optional and not yet part of consensus: nothing above backend/ calls it.
//
// CanonicalRows calls fn once for each row of table (its name in the
// postgres dialect, unqualified, as the catalog spells it) with the row's
// key (rowcanon.EncodeKey of its primary-key values, in the key's column
// order) and image (rowcanon.EncodeRow of every column). Rows are
// visited in any order: the trie built from them is history independent,
// so their order cannot change a root. The slices are fn's until it
// returns only. An error of fn ends the read and is returned, wrapped.
//
// Refused, before fn is called: a table without a primary key
// (ErrNoPrimaryKey, naming the table) and a table with a column whose
// declared type has no canonical form (ErrNoCanonicalForm, naming the
// column and its type). A stored value outside its kind's domain (a
// timestamp before year 1, numeric NaN, text holding U+0000) is an error
// naming its column, never a silently different value.
type CanonicalReader interface {
	CanonicalRows(ctx context.Context, table string, fn func(key, image []byte) error) error
	// CanonicalTables lists every replicated table of committed state by
	// the name CanonicalRows takes, sorted by bytes: the tables whose
	// rows the state digest covers, with or without a primary key.
	CanonicalTables(ctx context.Context) ([]string, error)
}

// CanonicalKeyReader is implemented by a CanonicalReader that reads rows
// by canonical key: the source of the row images in the query path's
// proofs (issue 36), where the trees say which keys a proof covers and the
// database gives their images, checked against the trees' leaves before
// they are sent.
type CanonicalKeyReader interface {
	// CanonicalRowsByKey reads, in one read-only snapshot of committed
	// state, the rows of table holding keys (each rowcanon.EncodeKey of a
	// primary key's values, as CanonicalRows gives them) and returns each
	// key's image in the order of keys (nil: no row holds it), with the
	// height that snapshot reflects. It takes at most MaxCanonicalKeys
	// keys. A key that does not decode into the table's key columns
	// (wrong arity, a kind the column cannot hold) is an error wrapping
	// ErrKeyMismatch, naming the key; a table without canonical form gets
	// CanonicalRows's refusals.
	CanonicalRowsByKey(ctx context.Context, table string, keys [][]byte) (images [][]byte, height int64, err error)
}

// MaxCanonicalKeys bounds one CanonicalRowsByKey call.
const MaxCanonicalKeys = 10_000

// ErrKeyMismatch: a canonical key does not fit a table's primary key.
var ErrKeyMismatch = errors.New("key does not fit the table's primary key")

// CanonicalBlock is implemented by a Block whose backend is a
// CanonicalReader: it reads its own open db-transaction canonically, so
// the executor can bring each table's statetree up to date with the rows
// a block changed before the block commits, atomically with it (issue
// 36). A block consensus runs calls CanonicalDelta once, after its last
// ChangeDigest and before Commit, and the other two only when the delta
// asks for a rescan.
type CanonicalBlock interface {
	// CanonicalDelta returns what the block changed: every change record
	// ChangeDigest consumed since Begin, as canonical rows read inside
	// the block's db-transaction after its statements. See CanonicalDelta.
	CanonicalDelta(ctx context.Context) (CanonicalDelta, error)
	// CanonicalTables is CanonicalReader.CanonicalTables inside the
	// block's db-transaction (it sees the block's DDL).
	CanonicalTables(ctx context.Context) ([]string, error)
	// CanonicalTableRows is CanonicalReader.CanonicalRows inside the
	// block's db-transaction (it sees the block's writes).
	CanonicalTableRows(ctx context.Context, table string, fn func(key, image []byte) error) error
}

// CanonicalDelta is a block's row changes as canonical rows.
//
// SchemaChanged reports a block that changed the schema (DDL, or
// anything else that makes the backend rescan its table sums): the
// caller then rebuilds every table from CanonicalTables and
// CanonicalTableRows, and Tables may be empty. Otherwise Tables holds,
// sorted by name, each table a change record of the block named.
type CanonicalDelta struct {
	SchemaChanged bool
	Tables        []CanonicalTableDelta
}

// CanonicalTableDelta is one table's part of a CanonicalDelta.
//
// Rows holds each key the block's change records named (before and after
// images both name one), once, sorted by bytes, with the row that key
// holds after the block's statements: its image, or nil when no row has
// that key any more. Rescan asks the caller to read the whole table
// (CanonicalTableRows) instead: the records do not name the rows (a
// TRUNCATE). Err, when set, is why the table's rows have no canonical
// form: a schema the table cannot have one with (ErrNoPrimaryKey,
// ErrNoCanonicalForm) or a changed row holding a value outside its
// kind's domain (ErrValueNotCanonical; a backend may also report one
// for a key a change record named whose row is gone, so a caller reads
// the table whole before it decides the table has no canonical form);
// Rows is then nil. Any other
// failure (the database unreachable) is CanonicalDelta's error, never a
// table's Err: Err is the same on every node that ran the same block.
type CanonicalTableDelta struct {
	Table  string
	Rows   []CanonicalChange
	Rescan bool
	Err    error
}

// CanonicalChange is one changed key and its row's image after the
// block (nil: deleted). Txs are the indexes (sqlcheck.Env.Tx) of the txs
// whose change records named the key, ascending and once each (records
// written outside every savepoint name no tx); row history (HistoryBlock)
// records them. The authenticated state ignores them.
type CanonicalChange struct {
	Key, Image []byte
	Txs        []int
}

// ErrValueNotCanonical: a stored value lies outside its kind's domain in
// rowcanon (a timestamp before year 1, numeric NaN, text holding U+0000);
// CanonicalRows and CanonicalTableRows wrap it in the error naming the
// column.
var ErrValueNotCanonical = errors.New("value has no canonical form")

// NotCanonical reports whether err is a deterministic refusal of a
// table's canonical rows (its schema or one of its values), the same on
// every node holding the same rows, as opposed to a failure of the
// database.
func NotCanonical(err error) bool {
	return errors.Is(err, ErrNoPrimaryKey) || errors.Is(err, ErrNoCanonicalForm) || errors.Is(err, ErrValueNotCanonical)
}

// ErrNoPrimaryKey: a table without a primary key has no canonical keys.
var ErrNoPrimaryKey = errors.New("table has no primary key")

// ErrNoCanonicalForm: a column's type has no canonical form (rowcanon's
// DESIGN.md §7 lists them).
var ErrNoCanonicalForm = errors.New("type has no canonical form")

// NoPrimaryKey is the error for table without a primary key.
func NoPrimaryKey(table string) error {
	return fmt.Errorf("canonical rows of %s: %w", table, ErrNoPrimaryKey)
}

// NoCanonicalForm is the error for column of type typ (as the dialect
// spells it) in table.
func NoCanonicalForm(table, column, typ string) error {
	return fmt.Errorf("canonical rows of %s: column %s of type %s: %w", table, column, typ, ErrNoCanonicalForm)
}

// CanonicalRow encodes one row of table: the key from the values of the
// key's columns (pk, indexes into cols in key order) and the image from
// every column.
func CanonicalRow(table string, cols []rowcanon.Column, pk []int) (key, image []byte, err error) {
	vals := make([]rowcanon.Value, len(pk))
	for i, k := range pk {
		vals[i] = cols[k].Value
	}
	if key, err = rowcanon.EncodeKey(vals); err != nil {
		return nil, nil, fmt.Errorf("canonical rows of %s: key: %w", table, err)
	}
	if image, err = rowcanon.EncodeRow(table, cols); err != nil {
		return nil, nil, fmt.Errorf("canonical rows of %s: %w", table, err)
	}
	return key, image, nil
}

// TableRoot is the root of table's statetree: every row's key with the
// leaf hash of its image (rowcanon.LeafHash), as r reads them.
func TableRoot(ctx context.Context, r CanonicalReader, table string) (statetree.Root, error) {
	tr := statetree.New()
	err := r.CanonicalRows(ctx, table, func(key, image []byte) error {
		return tr.Set(key, rowcanon.LeafHash(image))
	})
	if err != nil {
		return statetree.Root{}, fmt.Errorf("table root of %s: %w", table, err)
	}
	return tr.Commit(), nil
}

// CanonicalUUID is a uuid from PostgreSQL's text of it (8-4-4-4-12 hex
// digits), which the engines store or print alike.
func CanonicalUUID(s string) (rowcanon.Value, error) {
	var u [16]byte
	h := strings.ReplaceAll(s, "-", "")
	if len(s) != 36 || len(h) != 32 {
		return rowcanon.Value{}, fmt.Errorf("uuid %q is not 8-4-4-4-12 hex digits", s)
	}
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return rowcanon.Value{}, fmt.Errorf("uuid %q: %w", s, err)
	}
	return rowcanon.UUID(u), nil
}

// CanonicalSequenceReader is implemented by a backend speaking
// PostgreSQL's SQL, and by its Block: the state of every sequence
// (serial columns' included) as canonical values, the same on every
// engine. Protocol version 5's AppHash commits to it (issue 37): a
// sequence's state lives outside the tables the tables map covers
// (relchain.sequences on PostgreSQL, a state table per sequence on
// SQLite). On a Block it reads the block's db-transaction after its
// statements; on a Backend, committed state.
type CanonicalSequenceReader interface {
	// CanonicalSequences lists every sequence, sorted by name (bytes).
	CanonicalSequences(ctx context.Context) ([]SequenceState, error)
}

// SequenceState is one sequence's canonical state: its name unquoted (as
// CREATE SEQUENCE or serial named it: t_id_seq), PostgreSQL's
// last_value and is_called, and its options.
type SequenceState struct {
	Name                string
	LastValue           int64
	IsCalled            bool
	Increment, Min, Max int64
	Cycle               bool
}

// TranslationJudge is implemented by a Block of storage that translates
// PostgreSQL's SQL (SQLite's postgres dialect): the translation's verdict
// on a statement as the block's schema stands, without running it. A
// validator of a network over several engines whose own storage does not
// translate runs it on a schema-only copy of a translating engine, so
// that a statement every engine cannot run fails on every node alike
// (issue 37; app's shadow gate). nil: the statement translates.
type TranslationJudge interface {
	JudgeTranslation(ctx context.Context, sql string, args []any) error
}

// SchemaJudge judges statements as a translating engine's validator does,
// without that engine: on a schema kept in memory from the DDL statements
// the network committed (MariaDB's translation: mysql.NewSchemaJudge).
// Every validator of a network over several engines with that engine,
// its own validators included, asks it in the same place, so that a
// statement the engine cannot run fails on every node with the same
// verdict (issue 37; app's shadow gate). Not safe for concurrent use.
type SchemaJudge interface {
	// Judge is the engine's verdict on statement sql with args, as its
	// validator reaches it before running anything (env: the tx's clock
	// and random numbers); nil: the engine runs it.
	Judge(sql string, args []any, env sqlcheck.Env) error
	// Apply makes the schema follow a DDL statement the network
	// committed; an error means the schema can no longer be trusted.
	Apply(sql string, args []any) error
}
