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
	var out []backend.SequenceState
	err := k.canonRead(ctx, "canonical sequences", func() (err error) {
		out, err = canonSequences(ctx, k.conn)
		return err
	})
	return out, err
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
