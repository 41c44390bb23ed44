package postgres

import (
	"context"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// ClockTypesBelow is clockTypesQuery's answer for every type with an OID
// below bound, in order.
func ClockTypesBelow(ctx context.Context, dsn string, bound uint32) ([]uint32, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	var all string
	if err := conn.QueryRow(ctx, `SELECT array_agg(oid)::text FROM pg_catalog.pg_type WHERE oid < $1`, bound).Scan(&all); err != nil {
		return nil, err
	}
	res := conn.PgConn().ExecParams(ctx, clockTypesQuery, [][]byte{[]byte(all)}, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	var out []uint32
	for _, r := range res.Rows {
		oid, err := strconv.ParseUint(string(r[0]), 10, 32)
		if err != nil {
			return nil, err
		}
		out = append(out, uint32(oid))
	}
	slices.Sort(out)
	return out, nil
}

// BuiltinClockTypes is builtinClockTypes' OIDs, in order.
func BuiltinClockTypes() []uint32 {
	var out []uint32
	for oid := range builtinClockTypes {
		out = append(out, oid)
	}
	slices.Sort(out)
	return out
}
