package gateway

import (
	"context"
	"strings"

	"github.com/relchain/relchain/pgwire"
)

// Describe reports a statement's parameter types and result columns
// (extended protocol). Statements the gateway answers itself are
// described here; the rest by the node, from the database's own types.
func (s *session) Describe(ctx context.Context, sql string, declared []uint32) (pgwire.Description, error) {
	switch classify(sql) {
	case kindShow:
		return pgwire.Description{Params: declared, Columns: []pgwire.Column{{Name: strings.ToLower(settingName(sql, "SHOW")), OID: 25}}}, nil
	case kindVersion:
		return pgwire.Description{Params: declared, Columns: []pgwire.Column{{Name: "version", OID: 25}}}, nil
	case kindRead, kindWrite:
		return s.describeNode(ctx, sql, declared)
	}
	return pgwire.Description{Params: declared}, nil
}

// describeNode asks the node and remembers the answer for the session:
// results of this statement are then sent with these types.
func (s *session) describeNode(ctx context.Context, sql string, declared []uint32) (pgwire.Description, error) {
	resp, err := s.g.nodes.Describe(ctx, sql)
	if err != nil {
		return pgwire.Description{}, s.g.readError(sql, err)
	}
	d := pgwire.Description{Params: make([]uint32, len(resp.Params))}
	for i, t := range resp.Params {
		d.Params[i] = oidOf[t] // 0 (unknown) is sent as text
		if i < len(declared) && declared[i] != 0 {
			d.Params[i] = declared[i]
		}
	}
	if len(resp.Columns) > 0 {
		names, types := make([]string, len(resp.Columns)), make([]string, len(resp.Columns))
		for i, c := range resp.Columns {
			names[i], types[i] = c.Name, c.Type
		}
		d.Columns = wireColumns(names, types)
	}
	if len(s.described) >= maxDescribed {
		clear(s.described)
	}
	s.described[sql] = d
	return d, nil
}
