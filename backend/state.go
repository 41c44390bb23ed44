package backend

import (
	"context"
	"slices"

	"github.com/relchain/relchain/statedigest"
)

// TableDelta accumulates the effect of a block's captured row changes on
// the state digest's table sums: an image after a change ('I', 'U') is
// added, an image before one ('D', 'B') removed. Other records (schema
// changes) leave the sums alone: a block that changes the schema rescans.
type TableDelta map[string]*statedigest.Sum

// Record adds one change record.
func (d TableDelta) Record(table, op, image []byte) {
	if len(op) != 1 {
		return
	}
	switch op[0] {
	case 'I', 'U':
		d.sum(table).AddRow(table, image)
	case 'D', 'B':
		d.sum(table).RemoveRow(table, image)
	}
}

func (d TableDelta) sum(table []byte) *statedigest.Sum {
	s, ok := d[string(table)]
	if !ok {
		s = new(statedigest.Sum)
		d[string(table)] = s
	}
	return s
}

// Apply folds d into stored (the sums before the block) and returns the
// names of the tables it changed, in byte order.
func (d TableDelta) Apply(stored statedigest.Tables) []string {
	names := make([]string, 0, len(d))
	for name, s := range d {
		stored.Table(name).Combine(s)
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// StateReader is the committed side of the state digest, for verification.
type StateReader interface {
	// StoredState returns the table sums as the last block committed them
	// and that block's height.
	StoredState(ctx context.Context) (statedigest.Tables, int64, error)
	// ScanState recomputes the table sums from every row of every
	// replicated table, in one consistent read snapshot, and returns the
	// height that snapshot reflects. Its cost is proportional to the
	// database's size.
	ScanState(ctx context.Context) (statedigest.Tables, int64, error)
}
