package gateway

import (
	"context"
	"slices"

	"github.com/relchain/relchain/pgwire"
)

// Describe reports a statement's parameter types and result columns
// (extended protocol). Statements the gateway answers itself are
// described here; the rest by the node, from the database's own types.
func (s *session) Describe(ctx context.Context, sql string, declared []uint32) (pgwire.Description, error) {
	switch classify(sql) {
	case kindShow:
		_, column := showName(sql)
		return pgwire.Description{Params: declared, Columns: []pgwire.Column{{Name: column, OID: 25}}}, nil
	case kindVersion:
		return pgwire.Description{Params: declared, Columns: []pgwire.Column{{Name: "version", OID: 25}}}, nil
	case kindRead, kindWrite:
		d, err := s.describeNode(ctx, sql, declared)
		if err != nil {
			if d, ok := s.describeAfterDDL(sql, declared, err); ok {
				return d, nil
			}
		}
		return d, err
	}
	return pgwire.Description{Params: declared}, nil
}

// describeNode asks the node and remembers the answer for the session:
// results of this statement are then sent with these types.
func (s *session) describeNode(ctx context.Context, sql string, declared []uint32) (pgwire.Description, error) {
	nodeSQL, order := placeholders(sql, s.g.wire.Placeholders)
	resp, err := s.g.nodes.Describe(ctx, nodeSQL)
	if err != nil {
		return pgwire.Description{}, s.g.readError(sql, err)
	}
	types := s.inferParams(ctx, sql, clientParams(resp.Params, order))
	d := pgwire.Description{Params: make([]uint32, len(types))}
	for i, t := range types {
		d.Params[i] = paramOID(t) // 0 (unknown): the client sends text
		if i < len(declared) && declared[i] != 0 {
			d.Params[i] = declared[i]
		}
	}
	if len(resp.Columns) > 0 {
		names, types, typmods := describedColumns(resp.Columns)
		d.Columns = wireColumns(names, s.inferColumns(ctx, sql, types), typmods, s.nativeTypes(sql))
	}
	if len(s.described) >= maxDescribed {
		clear(s.described)
	}
	s.described[sql] = d
	return d, nil
}

// clientParams are the node's parameter types in the client's numbering:
// with positional placeholders the node saw one ? per occurrence of $n.
func clientParams(nodeTypes []string, order []int) []string {
	if order == nil {
		return slices.Clone(nodeTypes)
	}
	n := 0
	for _, k := range order {
		n = max(n, k)
	}
	types := make([]string, n)
	for i, k := range order {
		if i < len(nodeTypes) && types[k-1] == "" {
			types[k-1] = nodeTypes[i]
		}
	}
	return types
}
