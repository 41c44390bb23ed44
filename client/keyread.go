package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/rowcanon"
)

// KeyRead is a SELECT that reads one table by primary key, as a SQL
// parser found it (relchain's is sqlcheck/pgclass.Classifier.KeyRead):
//
//	SELECT cols FROM t WHERE k1 = v1 AND k2 = v2 ...   (Eq, a point)
//	SELECT cols FROM t WHERE k BETWEEN lo AND hi       (Range)
//	SELECT cols FROM t WHERE k >= lo AND k <= hi       (Range)
//
// Whether the columns are the primary key is decided against the table
// (VerifiedKeyRead), not here.
type KeyRead struct {
	Table   string
	Columns []string // the select list; nil is *
	// Eq maps each column of the equalities to its value.
	Eq map[string]KeyTerm
	// RangeColumn, Lo and Hi are a range's column and inclusive bounds.
	RangeColumn string
	Lo, Hi      KeyTerm
}

// KeyTerm is a value in a KeyRead: a literal's text or a parameter $n.
type KeyTerm struct {
	Literal string
	Param   int // 1-based; 0: a literal
}

// IsRange reports whether r reads a key range.
func (r KeyRead) IsRange() bool { return r.RangeColumn != "" }

// value is t with args bound.
func (t KeyTerm) value(args []any) (any, error) {
	if t.Param == 0 {
		return t.Literal, nil
	}
	if t.Param > len(args) {
		return nil, fmt.Errorf("$%d: only %d arguments given", t.Param, len(args))
	}
	return args[t.Param-1], nil
}

// ErrNotKeyRead: the statement's columns are not the table's primary
// key (a point must name every key column, a range the one column of a
// single-column key): it cannot be answered with a proof.
var ErrNotKeyRead = errors.New("not a read by the table's whole primary key")

// VerifiedKeyRead answers r (with args for its parameters) with a proof
// (VerifiedGet, VerifiedRange), its rows projected on r's columns; an
// error wrapping ErrNotKeyRead when r's columns are not the table's
// primary key.
func (c *Client) VerifiedKeyRead(ctx context.Context, v *lightverify.Verifier, opts VerifyOptions, r KeyRead, args []any) (*VerifiedRows, error) {
	// The cached key decides whether r is a key read: when a DDL made r's
	// columns the key since, r is answered by agreement (still verified)
	// until a key read of the table refreshes the entry.
	res, err := c.withTableKey(ctx, r.Table, func(tk *TableKey) (*VerifiedRows, error) {
		if r.IsRange() {
			if len(tk.Columns) != 1 || !strings.EqualFold(tk.Columns[0], r.RangeColumn) || len(r.Eq) != 0 {
				return nil, fmt.Errorf("%w: a range on %s, the key of %s is (%s)", ErrNotKeyRead, r.RangeColumn, r.Table, strings.Join(tk.Columns, ", "))
			}
			lo, err := r.Lo.value(args)
			if err != nil {
				return nil, err
			}
			hi, err := r.Hi.value(args)
			if err != nil {
				return nil, err
			}
			return c.verifiedRange(ctx, v, opts, tk, []any{lo}, []any{hi})
		}
		key, err := r.pointKey(tk, args)
		if err != nil {
			return nil, err
		}
		return c.verifiedGet(ctx, v, opts, tk, key)
	})
	if err != nil {
		if errors.Is(err, ErrKeyLookup) {
			return nil, fmt.Errorf("%w: %w", ErrNotKeyRead, err)
		}
		return nil, err
	}
	return res.project(r.Columns)
}

// pointKey is the key r's equalities give, in tk's column order.
func (r KeyRead) pointKey(tk *TableKey, args []any) ([]any, error) {
	if len(r.Eq) != len(tk.Columns) {
		return nil, fmt.Errorf("%w: equalities on %d columns, the key of %s is (%s)", ErrNotKeyRead, len(r.Eq), r.Table, strings.Join(tk.Columns, ", "))
	}
	key := make([]any, len(tk.Columns))
	for i, col := range tk.Columns {
		t, ok := r.Eq[strings.ToLower(col)]
		if !ok {
			return nil, fmt.Errorf("%w: no equality on key column %s of %s", ErrNotKeyRead, col, r.Table)
		}
		var err error
		if key[i], err = t.value(args); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// project keeps the columns cols (nil: all) of r's rows, in that order.
func (r *VerifiedRows) project(cols []string) (*VerifiedRows, error) {
	if cols == nil {
		return r, nil
	}
	out := *r
	out.Columns, out.Rows = cols, make([][]rowcanon.Value, len(r.Rows))
	idx := make([]int, len(cols))
	for i, c := range cols {
		idx[i] = slices.IndexFunc(r.Columns, func(n string) bool { return strings.EqualFold(n, c) })
		if idx[i] < 0 && len(r.Rows) > 0 {
			return nil, fmt.Errorf("table %s has no column %s", r.Table, c)
		}
	}
	for j, row := range r.Rows {
		out.Rows[j] = make([]rowcanon.Value, len(cols))
		for i, k := range idx {
			out.Rows[j][i] = row[k]
		}
	}
	return &out, nil
}
