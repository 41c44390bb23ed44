// Interactive transactions: what a client observed of each statement
// (txn.Tx.Expect), and the check that the block reproduces it.

package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/txn"
)

// Observe digests the part of one statement's results that mode names.
// rows must be sanitized (sanitizeRows) as the executor's results are. The
// encoding is fixed: every node and every rehearsal computes the same
// bytes for the same results.
func Observe(mode txn.ObserveMode, rows *backend.Rows) txn.Observation {
	h := sha256.New()
	h.Write([]byte("relchain/observe/v1"))
	h.Write([]byte{byte(mode)})
	var b []byte
	b = binary.AppendVarint(b, rows.RowsAffected)
	b = binary.AppendUvarint(b, uint64(len(rows.Rows)))
	if mode == txn.ObserveAll {
		b = binary.AppendUvarint(b, uint64(len(rows.Columns)))
		for _, c := range rows.Columns {
			b = appendLenPrefixed(b, []byte(c))
		}
		for _, row := range rows.Rows {
			b = binary.AppendUvarint(b, uint64(len(row)))
			for _, v := range row {
				b = appendObservedValue(b, v)
			}
		}
	}
	h.Write(b)
	return append(txn.Observation{byte(mode)}, h.Sum(nil)...)
}

func appendLenPrefixed(b, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

// appendObservedValue appends a type tag and the value's bytes.
func appendObservedValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0)
	case int64:
		return binary.AppendVarint(append(b, 1), x)
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 2), math.Float64bits(x))
	case string:
		return appendLenPrefixed(append(b, 3), []byte(x))
	case []byte:
		return appendLenPrefixed(append(b, 4), x)
	case bool:
		if x {
			return append(b, 5, 1)
		}
		return append(b, 5, 0)
	default:
		// Backends return only the types above (backend.Rows); anything
		// else is digested by its printed form, the same on every node.
		return appendLenPrefixed(append(b, 6), fmt.Appendf(nil, "%T:%v", x, x))
	}
}

// conflictFailure compares a statement's results in the block with what
// the client observed (nil: not compared) and returns the conflict when
// they differ. statement is 1-based.
func conflictFailure(statement int, seen txn.Observation, rows *backend.Rows) *wlFailure {
	if len(seen) == 0 {
		return nil
	}
	if bytes.Equal(Observe(txn.ObserveMode(seen[0]), rows), seen) {
		return nil
	}
	reason := fmt.Sprintf("statement %d returned other results than the client observed: the data it read changed; retry the transaction", statement)
	return &wlFailure{code: api.CodeConflict, data: api.FailureData{Statement: statement, Reason: reason}, log: reason}
}
