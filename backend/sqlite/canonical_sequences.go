package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/pgcatalog"
)

// CanonicalSequences implements backend.CanonicalSequenceReader on
// committed state (postgres dialect): every serial column's sequence,
// whose state the dialect keeps in a table of its own (pgdialect's
// "Serial columns"), with the options PostgreSQL gives a serial of that
// integer type (the emulated catalog's).
func (b *Backend) CanonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	if !b.opts.pg {
		return nil, fmt.Errorf("canonical sequences: %w", errNotPostgres)
	}
	r, err := b.reader(ctx)
	if err != nil {
		return nil, fmt.Errorf("canonical sequences: %w", err)
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		return nil, fmt.Errorf("canonical sequences: begin: %w", err)
	}
	defer closeQuietly(func() error { return rc.exec("ROLLBACK") })
	return canonSequences(r)
}

// CanonicalSequences implements backend.CanonicalSequenceReader inside
// the block's db-transaction.
func (k *block) CanonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	var out []backend.SequenceState
	err := k.inBlock(ctx, func(b *Backend) (err error) {
		list, err := b.blockSequences()
		if err != nil {
			return err
		}
		out, err = sequenceStates(b.w, list)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("canonical sequences in block: %w", err)
	}
	return out, nil
}

// canonSequences reads every sequence's state as c sees it, sorted by
// name.
func canonSequences(c *sqlite3.Conn) ([]backend.SequenceState, error) {
	list, err := sequencesOf(c)
	if err != nil {
		return nil, err
	}
	return sequenceStates(c, list)
}

// blockSequences lists the sequences of the writer's schema: from the
// cache of the committed schema's (seqCache, by schemaGen) unless the
// block changed the schema. The writer is held.
func (b *Backend) blockSequences() ([]pgcatalog.Sequence, error) {
	gen := b.schemaGen.Load()
	if !b.blockDDL && !b.txDDL && !b.sumsStale && b.seqCache.valid && b.seqCache.gen == gen {
		return b.seqCache.seqs, nil
	}
	list, err := sequencesOf(b.w)
	if err == nil && !b.blockDDL && !b.txDDL && !b.sumsStale {
		b.seqCache.valid, b.seqCache.gen, b.seqCache.seqs = true, gen, list
	}
	return list, err
}

// sequencesOf lists the sequences of the serial columns of c's schema,
// sorted by name.
func sequencesOf(c *sqlite3.Conn) ([]pgcatalog.Sequence, error) {
	tables, err := userTables(c)
	if err != nil {
		return nil, fmt.Errorf("canonical sequences: %w", err)
	}
	var out []pgcatalog.Sequence
	for _, t := range tables {
		_, seqs, _, ok, err := columnsOf(c, t.name)
		if err != nil {
			return nil, fmt.Errorf("canonical sequences: table %s: %w", t.name, err)
		}
		if ok {
			out = append(out, seqs...)
		}
	}
	slices.SortFunc(out, func(a, b pgcatalog.Sequence) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// sequenceStates reads the state of each sequence of list.
func sequenceStates(c *sqlite3.Conn, list []pgcatalog.Sequence) ([]backend.SequenceState, error) {
	out := make([]backend.SequenceState, 0, len(list))
	for _, s := range list {
		st := backend.SequenceState{Name: s.Name, Increment: s.Increment, Min: s.Min, Max: s.Max, Cycle: s.Cycle}
		var err error
		if st.LastValue, st.IsCalled, err = sequenceState(c, s.Name); err != nil {
			return nil, fmt.Errorf("canonical sequences: %s: %w", s.Name, err)
		}
		out = append(out, st)
	}
	return out, nil
}

// sequenceState reads a sequence's state table: its one row.
func sequenceState(c *sqlite3.Conn, seq string) (last int64, called bool, err error) {
	q, _, err := c.Prepare(`SELECT "last_value", "is_called" FROM ` + quoteIdent(seq))
	if err != nil {
		return 0, false, err
	}
	defer q.Close()
	if !q.Step() {
		if err := q.Err(); err != nil {
			return 0, false, err
		}
		return 0, false, fmt.Errorf("its state table holds no row")
	}
	return q.ColumnInt64(0), q.ColumnInt64(1) != 0, q.Err()
}
