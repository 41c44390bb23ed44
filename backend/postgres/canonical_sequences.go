package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
)

// canonSequencesSQL reads relchain.sequences, where every sequence's state
// lives (sequence.go), by its regclass text.
const canonSequencesSQL = `SELECT name, last_value, is_called, increment, min_value, max_value, cycle FROM relchain.sequences`

// CanonicalSequences implements backend.CanonicalSequenceReader on
// committed state, in one read-only REPEATABLE READ transaction.
func (b *Backend) CanonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	tx, err := b.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("canonical sequences: begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	return canonSequences(ctx, tx)
}

// canonicalSequences is CanonicalSequences inside the block, after its
// last ChangeDigest, which wrote the statements' sequence states to their
// rows (flushSequences) and learnt whether there are any: no second
// flush. A backend that has seen no sequence reads nothing.
func (k *block) canonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	k.b.mu.Lock()
	defer k.b.mu.Unlock()
	if k.b.seqs == seqsUnknown {
		if err := k.flushSequences(ctx); err != nil { // no ChangeDigest yet: learn and write them
			return nil, fmt.Errorf("postgres: canonical sequences: %w", err)
		}
	}
	if k.b.seqs == seqsNone {
		return nil, nil
	}
	if len(k.lanes) > 0 {
		return k.laneSequences(ctx)
	}
	var out []backend.SequenceState
	err := k.canonRead(ctx, "canonical sequences", func() (err error) {
		out, err = canonSequences(ctx, k.conn)
		return err
	})
	return out, err
}

// laneSequences is canonicalSequences in a parallel block: each session
// sees the committed state of every sequence but its own lane's, so a
// sequence's state is that of the one lane that changed it (it differs
// from the committed state there), else the committed one. Lanes draw on
// no sequence in common (their transactions do not conflict), which two
// lanes' changes to one disprove: the block then runs serially
// (ErrLaneConflict). The parallel block ran no DDL: every session lists
// the same sequences.
func (k *block) laneSequences(ctx context.Context) ([]backend.SequenceState, error) {
	committed, err := k.b.CanonicalSequences(ctx) // a block is open: nothing commits meanwhile
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	out := slices.Clone(committed)
	changedOn := make([]int, len(out)) // lane+1 of the change taken, 0: none
	defer k.lockLanes()()
	for _, s := range k.sessions() {
		var seen []backend.SequenceState
		err := s.canonReadOn(ctx, "canonical sequences", func() (err error) {
			seen, err = canonSequences(ctx, s.conn)
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(seen) != len(committed) {
			return nil, fmt.Errorf("postgres: canonical sequences: lane %d sees %d sequences, %d are committed: %w", s.lane, len(seen), len(committed), backend.ErrLaneConflict)
		}
		for i, v := range seen {
			if v == committed[i] {
				continue
			}
			if changedOn[i] != 0 {
				return nil, fmt.Errorf("postgres: canonical sequences: lanes %d and %d changed sequence %s: %w", changedOn[i]-1, s.lane, v.Name, backend.ErrLaneConflict)
			}
			out[i], changedOn[i] = v, s.lane+1
		}
	}
	return out, nil
}

// canonSequences runs canonSequencesSQL on q: names unquoted, sorted by
// bytes.
func canonSequences(ctx context.Context, q querier) ([]backend.SequenceState, error) {
	var out []backend.SequenceState
	err := eachRow(ctx, q, canonSequencesSQL, nil, func(r pgx.Rows) error {
		var s backend.SequenceState
		if err := r.Scan(&s.Name, &s.LastValue, &s.IsCalled, &s.Increment, &s.Min, &s.Max, &s.Cycle); err != nil {
			return err
		}
		s.Name = unquoteRegclass(s.Name)
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("canonical sequences: %w", err)
	}
	slices.SortFunc(out, func(a, b backend.SequenceState) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// unquoteRegclass is a sequence's name from its regclass text on
// relchain's sessions (search_path public, so never qualified): as it is,
// or unquoted when PostgreSQL quoted it ("SeqAuthors_id_seq").
func unquoteRegclass(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
}
