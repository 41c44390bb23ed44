package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// runStmt runs one statement on q with arguments (quoted into the text by
// the driver: interpolateParams) and returns its columns, rows and rows
// affected. Statements that return rows (queries, INSERT/DELETE ...
// RETURNING) go through QueryContext, the others through ExecContext.
// Rows of a statement without a top-level ORDER BY are sorted by their
// text form: InnoDB returns them in the order of the plan's index, and
// plans follow statistics that each node samples on its own.
func runStmt(ctx context.Context, q execer, st stmtInfo, args []any, lim limits) (*backend.Rows, error) {
	if err := checkArgs(args); err != nil {
		return nil, err
	}
	if !st.read && !st.returning {
		res, err := q.ExecContext(ctx, st.text, args...)
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		return &backend.Rows{RowsAffected: n}, nil
	}
	rows, err := q.QueryContext(ctx, st.text, args...)
	if err != nil {
		return nil, err
	}
	out, err := collect(rows, !st.ordered, lim)
	if err != nil {
		return nil, err
	}
	if st.returning {
		out.RowsAffected = int64(len(out.Rows))
	}
	return out, nil
}

// checkArgs accepts the argument types relchain passes (nil, int64, int,
// int32, float64, bool, string, []byte).
func checkArgs(args []any) error {
	for i, a := range args {
		switch v := a.(type) {
		case nil, int64, int, int32, bool, string, []byte:
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &backend.Error{Class: backend.ClassData, SQLState: "22000",
					Message: fmt.Sprintf("argument %d: MySQL has no NaN or infinity", i+1)}
			}
		default:
			return &backend.Error{Class: backend.ClassInvalid,
				Message: fmt.Sprintf("argument %d: unsupported type %T", i+1, a)}
		}
	}
	return nil
}

// limits bound the rows and bytes collect returns (0: no bound).
type limits struct {
	rows  int
	bytes int64
	// stop, if set, runs past a limit before the rows are closed: it
	// cancels the query, so that closing does not read the rest.
	stop func()
	// types asks collect for Rows.Types (Query only: a block's results
	// carry none, see backend.Rows).
	types bool
}

// exceeded is collect's error past its limits.
func (lim limits) exceeded(what string, n int64) error {
	if lim.stop != nil {
		lim.stop()
	}
	return &backend.Error{Class: backend.ClassResource, SQLState: "54000",
		Message: fmt.Sprintf("the result has more than %d %s, the most this node returns for one query: "+
			"narrow it (WHERE, or ORDER BY with LIMIT and OFFSET pages)", n, what)}
}

// collect reads rows and converts every value (see convert).
func collect(rows *sql.Rows, sortRows bool, lim limits) (*backend.Rows, error) {
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	out := &backend.Rows{}
	kinds := make([]string, len(cts))
	if len(cts) > 0 {
		out.Columns = make([]string, len(cts))
		for i, ct := range cts {
			out.Columns[i] = ct.Name()
			kinds[i] = ct.DatabaseTypeName()
		}
	}
	vals := make([]any, len(cts))
	ptrs := make([]any, len(cts))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var size int64
	for rows.Next() {
		if lim.rows > 0 && len(out.Rows) >= lim.rows {
			return nil, lim.exceeded("rows", int64(lim.rows))
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if lim.bytes > 0 {
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					size += int64(len(b))
				} else {
					size += 8
				}
			}
			if size > lim.bytes {
				return nil, lim.exceeded("bytes", lim.bytes)
			}
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			if row[i], err = convert(kinds[i], v); err != nil {
				return nil, fmt.Errorf("column %q: %w", out.Columns[i], err)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if sortRows && len(out.Rows) > 1 {
		sort.SliceStable(out.Rows, func(i, j int) bool { return compareRows(out.Rows[i], out.Rows[j]) < 0 })
	}
	if lim.types {
		out.Types = columnTypes(cts)
	}
	return out, nil
}

// convert turns one driver value into what relchain returns: integers as
// int64 (an unsigned BIGINT above the int64 range as its decimal text),
// DOUBLE as float64, FLOAT as the float64 of its shortest single-precision
// text (0.1, not 0.10000000149), binary strings and BIT as []byte, and
// everything else — DECIMAL (exact), character strings, dates and times
// (server text, time zone +00:00), JSON, ENUM, SET — as text.
func convert(kind string, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		return x, nil
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), nil
		}
		return strconv.FormatUint(x, 10), nil
	case float64:
		return x, nil
	case float32:
		return strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	case []byte:
		switch {
		case kind == "BLOB" || kind == "BINARY" || kind == "VARBINARY" || kind == "GEOMETRY" || kind == "BIT":
			return bytes.Clone(x), nil
		case strings.HasSuffix(kind, "INT") || kind == "YEAR":
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				return i, nil
			}
			return string(x), nil
		case kind == "DOUBLE":
			return strconv.ParseFloat(string(x), 64)
		case kind == "FLOAT":
			return strconv.ParseFloat(string(x), 64)
		}
		return string(x), nil
	case string:
		return x, nil
	case bool:
		return x, nil
	}
	return nil, fmt.Errorf("unexpected driver value %T", v)
}

// compareRows orders rows by their values' text forms, column by column,
// NULL first.
func compareRows(a, b []any) int {
	return sqlstore.CompareRows(a, b, func(v any) ([]byte, bool) {
		if v == nil {
			return nil, true
		}
		return textOf(v), false
	})
}

func textOf(v any) []byte {
	switch x := v.(type) {
	case []byte:
		return x
	case string:
		return []byte(x)
	case int64:
		return strconv.AppendInt(nil, x, 10)
	case float64:
		return strconv.AppendFloat(nil, x, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(nil, x)
	}
	return []byte(fmt.Sprint(v))
}
