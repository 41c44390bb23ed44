package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
	"github.com/relchain/relchain/rowcanon"
)

// canonTablesSQL lists the replicated tables CanonicalRows can name: the
// permanent plain tables (partitions included: a partitioned table's rows
// are its partitions') of the schema public, where every user table lives
// (the gate refuses CREATE SCHEMA, and the sessions' search_path is
// public). replicatedTablesSQL's other rows (relchain.sequences) are
// relchain's own.
const canonTablesSQL = `SELECT c.relname FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relpersistence <> 't'`

// canonSchema is the schema prefix of the change records (schema.table)
// of the tables CanonicalTables lists.
const canonSchema = "public."

// CanonicalTables implements backend.CanonicalReader, in one read-only
// REPEATABLE READ transaction on a reader connection.
// The snapshot is snapshotTx's (taken under the lanes' read gate, after
// the connection).
func (b *Backend) CanonicalTables(ctx context.Context) ([]string, error) {
	tx, _, err := b.snapshotTx(ctx)
	if err != nil {
		return nil, fmt.Errorf("canonical tables: begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	return canonTables(ctx, tx)
}

// canonTables runs canonTablesSQL on q and sorts the names by bytes.
func canonTables(ctx context.Context, q querier) ([]string, error) {
	var names []string
	err := eachRow(ctx, q, canonTablesSQL, nil, func(r pgx.Rows) error {
		var n string
		if err := r.Scan(&n); err != nil {
			return err
		}
		names = append(names, n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("canonical tables: %w", err)
	}
	slices.Sort(names)
	return names, nil
}

// canonSavepoint is the savepoint the block's canonical reads run in.
const canonSavepoint = "relchain_canon"

// errNotOnLanes: a canonical read that must see every row of a table (a
// full scan, the list of tables after a schema change) in a parallel
// block, whose other lanes' rows the writer's session does not see. It
// wraps backend.ErrLaneConflict: the executor runs the block again,
// serially.
var errNotOnLanes = fmt.Errorf("not available in a parallel block: %w", backend.ErrLaneConflict)

// canonRead runs read on the writer's session after the block's
// statements (see canonReadOn); in a parallel block it fails with
// errNotOnLanes. The caller holds the backend's mutex.
func (k *block) canonRead(ctx context.Context, what string, read func() error) error {
	if k.blk.lanesUsed {
		return fmt.Errorf("postgres: %s: %w", what, errNotOnLanes)
	}
	return k.session.canonReadOn(ctx, what, read)
}

// canonReadOn runs read on session s after the block's statements,
// inside a read-only savepoint that is rolled back whatever happened:
// the db-transaction is as before, a failed read included (a SET LOCAL
// inside a released savepoint would outlive it). The caller holds s's
// mutex.
func (s *session) canonReadOn(ctx context.Context, what string, read func() error) error {
	switch {
	case s.done:
		return errBlockDone
	case s.aborted:
		return fmt.Errorf("postgres: %s: the block's db-transaction is aborted", what)
	}
	if err := s.flush(ctx); err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	pc := s.conn.PgConn()
	if _, err := pc.Exec(ctx, "SAVEPOINT "+canonSavepoint+"; SET LOCAL transaction_read_only = on").ReadAll(); err != nil {
		s.aborted = true
		return fmt.Errorf("postgres: %s: open its savepoint: %w", what, err)
	}
	err := read()
	if _, rbErr := pc.Exec(ctx, "ROLLBACK TO SAVEPOINT "+canonSavepoint+"; RELEASE SAVEPOINT "+canonSavepoint).ReadAll(); rbErr != nil {
		s.aborted = true
		return fmt.Errorf("postgres: %s: roll back its savepoint: %w", what, errors.Join(rbErr, err))
	}
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	return nil
}

// canonicalTables is CanonicalTables inside the block.
func (k *block) canonicalTables(ctx context.Context) ([]string, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	var names []string
	err := k.canonRead(ctx, "canonical tables", func() (err error) {
		names, err = canonTables(ctx, k.conn)
		return err
	})
	return names, err
}

// canonicalTableRows is CanonicalTableRows inside the block. fn runs
// with the backend's mutex held: it must not call the block.
func (k *block) canonicalTableRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	return k.canonRead(ctx, "canonical table rows", func() error {
		cols, pk, err := canonColumns(ctx, k.conn, table)
		if err != nil {
			return err
		}
		return canonScan(ctx, k.conn, table, cols, pk, fn)
	})
}

// canonChanged is what the block's change records say of one table: the
// images they hold (each names a key) with, in the same order, the txs
// of their records and the lanes that consumed them, or rescan (a
// TRUNCATE).
type canonChanged struct {
	images [][]byte
	txs    []int
	lanes  []int
	rescan bool
}

// canonChanges groups the change records ChangeDigest consumed by the
// table CanonicalTables names them by, sorted by name, and reports
// whether one of them changed the schema (canonSchemaRecord). Records of
// relchain's own tables and of schemas other than public are left out.
func (k *block) canonChanges() (names []string, byTable map[string]*canonChanged, schemaChanged bool) {
	byTable = map[string]*canonChanged{}
	for i, recs := range k.canonRecs {
		for _, r := range recs {
			if k.canonSchemaRecord(r) {
				schemaChanged = true
			}
			name, ok := bytes.CutPrefix(r.Table, []byte(canonSchema))
			if !ok || len(r.Op) != 1 {
				continue
			}
			c := byTable[string(name)]
			if c == nil {
				c = &canonChanged{}
				byTable[string(name)] = c
			}
			switch r.Op[0] {
			case 'T':
				c.rescan, c.images, c.txs, c.lanes = true, nil, nil, nil
			case 'I', 'U', 'D', 'B':
				if !c.rescan {
					c.images, c.txs, c.lanes = append(c.images, r.Image), append(c.txs, r.Tx), append(c.lanes, k.canonLane[i])
				}
			}
		}
	}
	names = make([]string, 0, len(byTable))
	for n := range byTable {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, byTable, schemaChanged
}

// onLane is the part of c that lane consumed.
func (c *canonChanged) onLane(lane int) *canonChanged {
	part := &canonChanged{}
	for i, l := range c.lanes {
		if l == lane {
			part.images, part.txs, part.lanes = append(part.images, c.images[i]), append(part.txs, c.txs[i]), append(part.lanes, l)
		}
	}
	return part
}

// canonSchemaRecord reports whether r is the record of a schema change:
// the records that make StateDigest rescan every table ('S', 'X', 'T'),
// except a TRUNCATE's. A TRUNCATE runs relchain.after_ddl too (its 'S'
// record holds the statement's text, as Exec ran it), but changes no
// schema: its tables' own 'T' records ask for their rescan.
func (k *block) canonSchemaRecord(r backend.ChangeRecord) bool {
	if len(r.Op) != 1 {
		return false
	}
	switch r.Op[0] {
	case 'X':
		return true
	case 'S':
		return !k.truncates[string(r.Image)]
	}
	return false
}

// ranTruncate records that the block ran the TRUNCATE statement sql.
func (k *block) ranTruncate(sql string) {
	if k.truncates == nil {
		k.truncates = map[string]bool{}
	}
	k.truncates[sql] = true
}

// canonicalDelta implements CanonicalDelta (see ctxBlock's). In a
// parallel block each lane reads the keys its own records name, on its
// own session (it alone sees its rows); the lanes touched no key in
// common (their transactions do not conflict), which a key named by two
// of them disproves: the block then runs serially (ErrLaneConflict).
func (k *block) canonicalDelta(ctx context.Context) (backend.CanonicalDelta, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if k.done {
		return backend.CanonicalDelta{}, errBlockDone
	}
	names, byTable, schemaChanged := k.canonChanges()
	if schemaChanged || k.migrating || k.migrated {
		return backend.CanonicalDelta{SchemaChanged: true}, nil
	}
	if len(names) == 0 {
		return backend.CanonicalDelta{}, nil
	}
	defer k.lockLanes()()
	tables := make(map[string]*backend.CanonicalTableDelta, len(names))
	for _, s := range k.sessions() {
		err := s.canonReadOn(ctx, "canonical delta", func() error {
			for _, name := range names {
				c := byTable[name]
				if len(k.lanes) > 0 && !c.rescan {
					if c = c.onLane(s.lane); len(c.images) == 0 {
						continue
					}
				} else if s.lane != 0 {
					continue
				}
				td, err := s.canonTableDelta(ctx, name, c)
				if err != nil {
					return err
				}
				if err := mergeTableDelta(tables, name, td); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return backend.CanonicalDelta{}, err
		}
	}
	var d backend.CanonicalDelta
	for _, name := range names {
		if td := tables[name]; td != nil {
			d.Tables = append(d.Tables, *td)
		}
	}
	return d, nil
}

// mergeTableDelta adds one lane's delta of table name to tables: rows of
// keys no other lane named, sorted by key bytes; a lane's refusal (Err)
// stands for the table.
func mergeTableDelta(tables map[string]*backend.CanonicalTableDelta, name string, td backend.CanonicalTableDelta) error {
	cur := tables[name]
	if cur == nil {
		tables[name] = &td
		return nil
	}
	if cur.Err != nil {
		return nil
	}
	if td.Err != nil {
		cur.Rows, cur.Err = nil, td.Err
		return nil
	}
	rows := append(slices.Clone(cur.Rows), td.Rows...)
	slices.SortFunc(rows, func(a, b backend.CanonicalChange) int { return bytes.Compare(a.Key, b.Key) })
	for i := 1; i < len(rows); i++ {
		if bytes.Equal(rows[i-1].Key, rows[i].Key) {
			return fmt.Errorf("canonical delta of %s: two lanes changed key %x (txs %v and %v): %w", name, rows[i].Key, rows[i-1].Txs, rows[i].Txs, backend.ErrLaneConflict)
		}
	}
	cur.Rows = rows
	return nil
}

// canonTableDelta is one table's part of the delta, read on session s:
// the schema's or a value's refusal is its Err, any other failure the
// error.
func (s *session) canonTableDelta(ctx context.Context, table string, c *canonChanged) (backend.CanonicalTableDelta, error) {
	td := backend.CanonicalTableDelta{Table: table, Rescan: c.rescan}
	if c.rescan {
		return td, nil
	}
	cols, pk, err := canonColumns(ctx, s.conn, table)
	if err == nil {
		td.Rows, err = s.canonKeyRows(ctx, table, cols, pk, c)
	}
	if backend.NotCanonical(err) {
		td.Rows, td.Err = nil, err
		return td, nil
	}
	return td, err
}

// canonKeyRows reads, in one round trip, the key each image names and
// the rows of table that hold those keys now, and returns each key once,
// sorted by bytes, with its row's image (nil: no row has it) and the txs
// of the records that named it (the keys query returns a row per
// distinct key, in the order of the arrays it unnests). The key
// columns' texts are cut from the images here (recordFields) and sent as
// one array per key column, a parameter typed as the column's type's
// array (read by its input function: no cast a user could redefine); the
// block ran no DDL (canonicalDelta), so the images are of the table's
// current columns.
func (k *session) canonKeyRows(ctx context.Context, table string, cols []canonColumn, pk []int, c *canonChanged) ([]backend.CanonicalChange, error) {
	args, keyTxs, err := keyArrays(table, len(cols), pk, c.images, c.txs)
	if err != nil {
		return nil, err
	}
	keysSQL, rowsSQL := canonKeySQL(table, cols, pk)
	formats := make([]int16, len(args))
	batch := &pgconn.Batch{}
	batch.ExecParams(keysSQL, args, nil, formats, nil)
	batch.ExecParams(rowsSQL, args, nil, formats, nil)
	var found []backend.CanonicalChange
	row := make([]rowcanon.Column, len(cols))
	var verr error
	named := make(sqlstore.KeyTxs)
	mrr := k.conn.PgConn().ExecBatch(ctx, batch)
	for i := 0; mrr.NextResult(); i++ {
		rr := mrr.ResultReader()
		for j := 0; verr == nil && rr.NextRow(); j++ {
			var ch backend.CanonicalChange
			if i == 0 {
				ch.Key, verr = canonKeyOf(table, cols, pk, rr.Values())
				if verr == nil && j >= len(keyTxs) {
					verr = fmt.Errorf("the keys query returned more keys than it was given")
				}
				if verr == nil {
					for _, tx := range keyTxs[j] {
						named.Add(ch.Key, tx)
					}
				}
			} else {
				ch.Key, ch.Image, verr = canonRowOf(table, cols, pk, rr.Values(), row)
			}
			found = append(found, ch)
		}
		if _, err := rr.Close(); err != nil {
			break // mrr.Close returns it
		}
	}
	if err := mrr.Close(); err != nil {
		return nil, fmt.Errorf("canonical rows of %s by key: %w", table, err)
	}
	if verr != nil {
		return nil, fmt.Errorf("canonical rows of %s: %w", table, verr)
	}
	changes := latestByKey(found)
	for i := range changes {
		changes[i].Txs = named.Of(changes[i].Key)
	}
	return changes, nil
}

// canonKeySQL is the SQL that reads keys of table given as one array
// text per key column ($1…, in key order, each typed as the column's
// type's array): keysSQL selects canonExpr of each key's columns, rowsSQL
// canonExpr of every column of the rows holding one of the keys.
func canonKeySQL(table string, cols []canonColumn, pk []int) (keysSQL, rowsSQL string) {
	keyExprs, keyCols, params := make([]string, len(pk)), make([]string, len(pk)), make([]string, len(pk))
	for i, p := range pk {
		keyExprs[i], keyCols[i] = canonExpr(cols[p]), pgx.Identifier{cols[p].name}.Sanitize()
		params[i] = fmt.Sprintf("pg_catalog.unnest($%d::%s[])", i+1, pgx.Identifier{"pg_catalog", cols[p].typ}.Sanitize())
	}
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = canonExpr(c)
	}
	keys := " FROM ROWS FROM (" + strings.Join(params, ", ") + ") AS k (" + strings.Join(keyCols, ", ") + ")"
	keysSQL = "SELECT " + strings.Join(keyExprs, ", ") + keys
	rowsSQL = "SELECT " + strings.Join(exprs, ", ") + " FROM ONLY " + pgx.Identifier{"public", table}.Sanitize() +
		" WHERE (" + strings.Join(keyCols, ", ") + ") IN (SELECT " + strings.Join(keyCols, ", ") + keys + ")"
	return keysSQL, rowsSQL
}

// latestByKey sorts changes by key and keeps one per key: the one with
// an image if there is one (a row read), else the key alone.
func latestByKey(changes []backend.CanonicalChange) []backend.CanonicalChange {
	slices.SortStableFunc(changes, func(a, b backend.CanonicalChange) int {
		if c := bytes.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return min(len(b.Image), 1) - min(len(a.Image), 1) // a row first
	})
	return slices.CompactFunc(changes, func(a, b backend.CanonicalChange) bool { return bytes.Equal(a.Key, b.Key) })
}

// keyArrays cuts the key columns' fields (pk: their indexes among the
// table's ncols columns) out of each row image, once per distinct key,
// and returns one array text per key column and, per distinct key in
// the arrays' order, the txs of the images that named it (txs[i] is
// image i's).
func keyArrays(table string, ncols int, pk []int, images [][]byte, txs []int) ([][]byte, [][]int, error) {
	seen := map[string]int{}
	var keyTxs [][]int
	cols := make([][][]byte, len(pk))
	fields := make([][]byte, 0, ncols)
	var id []byte
	for n, img := range images {
		var err error
		if fields, err = recordFields(img, fields[:0]); err != nil || len(fields) != ncols {
			return nil, nil, fmt.Errorf("canonical rows of %s: row image %q: %d fields, want %d: %w", table, img, len(fields), ncols, err)
		}
		id = id[:0]
		for _, p := range pk {
			id = append(id, fields[p]...)
			id = append(id, 0) // no column's text holds NUL
		}
		if at, ok := seen[string(id)]; ok {
			keyTxs[at] = append(keyTxs[at], txs[n])
			continue
		}
		seen[string(id)] = len(keyTxs)
		keyTxs = append(keyTxs, []int{txs[n]})
		for i, p := range pk {
			cols[i] = append(cols[i], fields[p])
		}
	}
	return textArrays(cols), keyTxs, nil
}

// textArrays is textArray of each column's texts.
func textArrays(cols [][][]byte) [][]byte {
	args := make([][]byte, len(cols))
	for i, c := range cols {
		args[i] = textArray(c)
	}
	return args
}

// recordFields appends to fields the text of each field of a record's
// text form as record_out prints it: "(f1,f2,…)", a field quoted when it
// must be, a quote or backslash inside one doubled or escaped. A NULL
// field (nothing between the commas) is appended as nil.
func recordFields(rec []byte, fields [][]byte) ([][]byte, error) {
	if len(rec) < 2 || rec[0] != '(' || rec[len(rec)-1] != ')' {
		return fields, errors.New("not a record's text")
	}
	body := rec[1 : len(rec)-1]
	for {
		var f []byte
		var err error
		f, body, err = recordField(body)
		if err != nil {
			return fields, err
		}
		fields = append(fields, f)
		if len(body) == 0 {
			return fields, nil
		}
		body = body[1:] // the comma
	}
}

// recordField cuts the first field off s, up to the comma that ends it
// (left at the start of rest) or the end.
func recordField(s []byte) (field, rest []byte, err error) {
	if len(s) == 0 || s[0] == ',' {
		return nil, s, nil
	}
	if s[0] != '"' {
		n := bytes.IndexByte(s, ',')
		if n < 0 {
			n = len(s)
		}
		return s[:n], s[n:], nil
	}
	field = []byte{}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			field = append(field, s[i])
		case c == '"' && i+1 < len(s) && s[i+1] == '"':
			i++
			field = append(field, '"')
		case c == '"':
			if i+1 < len(s) && s[i+1] != ',' {
				return nil, nil, errors.New("text after a quoted field")
			}
			return field, s[i+1:], nil
		default:
			field = append(field, c)
		}
	}
	return nil, nil, errors.New("unterminated quoted field")
}

// canonKeyOf is the canonical key of the key columns' texts raw (read by
// canonExpr, in key order).
func canonKeyOf(table string, cols []canonColumn, pk []int, raw [][]byte) ([]byte, error) {
	vals := make([]rowcanon.Value, len(pk))
	for i, p := range pk {
		v, err := canonValue(cols[p].typ, raw[i])
		if err != nil {
			return nil, fmt.Errorf("column %s: %w: %w", cols[p].name, backend.ErrValueNotCanonical, err)
		}
		vals[i] = v
	}
	key, err := rowcanon.EncodeKey(vals)
	if err != nil {
		return nil, fmt.Errorf("canonical rows of %s: key: %w: %w", table, backend.ErrValueNotCanonical, err)
	}
	return key, nil
}

// textArray is the text form of a one-dimensional array of the texts
// elems, each quoted (array_in reads it back: a backslash escapes a
// quote or a backslash).
func textArray(elems [][]byte) []byte {
	n := 2
	for _, e := range elems {
		n += len(e) + 3
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		for _, c := range e {
			if c == '"' || c == '\\' {
				out = append(out, '\\')
			}
			out = append(out, c)
		}
		out = append(out, '"')
	}
	return append(out, '}')
}
