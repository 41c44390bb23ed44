package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/relchain/relchain/bench/workload"
)

// Check implements workload.Workload: TPC-C's consistency conditions 1-4
// (3.3.2.1-3.3.2.4), evaluated exactly in the database (NUMERIC on
// PostgreSQL, integer cents on SQLite). It does not need applied.
func (w *Workload) Check(ctx context.Context, dialect string, q workload.Querier, applied []workload.Applied) error {
	if _, err := newDialect(dialect); err != nil {
		return err
	}
	var errs []error
	// 1: W_YTD = sum(D_YTD).
	rows, err := q.Query(ctx, "SELECT w_id, w_ytd, (SELECT sum(d_ytd) FROM district WHERE d_w_id = w_id) FROM warehouse "+
		"WHERE w_ytd <> (SELECT sum(d_ytd) FROM district WHERE d_w_id = w_id) OR NOT EXISTS (SELECT 1 FROM district WHERE d_w_id = w_id) ORDER BY w_id")
	if err != nil {
		return fmt.Errorf("tpcc check 1 (W_YTD = sum(D_YTD)): %w", err)
	}
	for _, r := range rows {
		errs = append(errs, fmt.Errorf("tpcc consistency condition 1 violated: warehouse %v: W_YTD %v != sum(D_YTD) %v", r[0], r[1], r[2]))
	}

	// 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID).
	rows, err = q.Query(ctx, "SELECT d_w_id, d_id, d_next_o_id, "+
		"(SELECT max(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id), "+
		"(SELECT max(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id) "+
		"FROM district ORDER BY d_w_id, d_id")
	if err != nil {
		return fmt.Errorf("tpcc check 2 (D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)): %w", err)
	}
	if len(rows) != w.o.Warehouses*w.o.Districts {
		errs = append(errs, fmt.Errorf("tpcc: %d districts, want %d", len(rows), w.o.Warehouses*w.o.Districts))
	}
	for _, r := range rows {
		v, err := intsOf(r)
		if err != nil {
			return fmt.Errorf("tpcc check 2: district %v/%v: %w", r[0], r[1], err)
		}
		if v[2]-1 != v[3] || v[3] != v[4] {
			errs = append(errs, fmt.Errorf("tpcc consistency condition 2 violated: warehouse %d district %d: D_NEXT_O_ID - 1 = %d, max(O_ID) = %d, max(NO_O_ID) = %d",
				v[0], v[1], v[2]-1, v[3], v[4]))
		}
	}

	// 3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order rows).
	rows, err = q.Query(ctx, "SELECT no_w_id, no_d_id, max(no_o_id), min(no_o_id), count(*) FROM new_order GROUP BY no_w_id, no_d_id ORDER BY no_w_id, no_d_id")
	if err != nil {
		return fmt.Errorf("tpcc check 3 (max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order)): %w", err)
	}
	for _, r := range rows {
		v, err := intsOf(r)
		if err != nil {
			return fmt.Errorf("tpcc check 3: district %v/%v: %w", r[0], r[1], err)
		}
		if v[2]-v[3]+1 != v[4] {
			errs = append(errs, fmt.Errorf("tpcc consistency condition 3 violated: warehouse %d district %d: max(NO_O_ID) - min(NO_O_ID) + 1 = %d - %d + 1 != %d new_order rows",
				v[0], v[1], v[2], v[3], v[4]))
		}
	}

	// 4: sum(O_OL_CNT) = count(order_line rows).
	rows, err = q.Query(ctx, "SELECT d_w_id, d_id, "+
		"(SELECT sum(o_ol_cnt) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id), "+
		"(SELECT count(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id) "+
		"FROM district ORDER BY d_w_id, d_id")
	if err != nil {
		return fmt.Errorf("tpcc check 4 (sum(O_OL_CNT) = count(order_line)): %w", err)
	}
	for _, r := range rows {
		v, err := intsOf(r)
		if err != nil {
			return fmt.Errorf("tpcc check 4: district %v/%v: %w", r[0], r[1], err)
		}
		if v[2] != v[3] {
			errs = append(errs, fmt.Errorf("tpcc consistency condition 4 violated: warehouse %d district %d: sum(O_OL_CNT) = %d != %d order_line rows",
				v[0], v[1], v[2], v[3]))
		}
	}
	return errors.Join(errs...)
}

func intsOf(r []any) ([]int64, error) {
	out := make([]int64, len(r))
	for i, x := range r {
		v, err := workload.Int(x)
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", i+1, err)
		}
		out[i] = v
	}
	return out, nil
}
