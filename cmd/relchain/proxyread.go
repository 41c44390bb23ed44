package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/proof"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/rowcanon"
)

// VerifiedRead implements gateway.ReadVerifier: a read by primary key
// with a proof, any other by f+1 agreement, at a height of at least
// minHeight (the session's last commit).
func (p *proxyVerifier) VerifiedRead(ctx context.Context, minHeight int64, sql string, args []any) (*api.QueryResponse, string, error) {
	for {
		resp, guarantee, err := p.read(ctx, sql, args)
		if err != nil || resp.Height >= minHeight {
			return resp, guarantee, err
		}
		select { // read-your-writes: the nodes have not reached the commit yet
		case <-ctx.Done():
			return nil, "", fmt.Errorf("waiting for height %d: %w", minHeight, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *proxyVerifier) read(ctx context.Context, sql string, args []any) (*api.QueryResponse, string, error) {
	if kr, ok := p.keyRead(sql); ok {
		res, err := p.clients[0].VerifiedKeyRead(ctx, p.light, p.opts, kr, args)
		switch {
		case err == nil:
			resp, err := p.provenResponse(ctx, sql, res)
			return resp, fmt.Sprintf("%s: %s", res.Guarantee, res.Why), err
		case !errors.Is(err, client.ErrNotKeyRead):
			return nil, "", verificationError(err)
		}
	}
	n, err := p.light.Validators(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("proxy: the validator set: %w", err)
	}
	res, err := client.AgreedQuery(ctx, p.clients, client.FaultTolerance(n)+1, sql, args...)
	if err != nil {
		return nil, "", verificationError(err)
	}
	return res.QueryResponse, res.Why(), nil
}

// verificationError marks err as a failed verification (a node's answer
// refuted, nodes that disagree) for the gateway, or passes it on (the
// statement's own failure, a node out of reach).
func verificationError(err error) error {
	var lie *client.LieError
	var mismatch *client.MismatchError
	if errors.As(err, &lie) || errors.As(err, &mismatch) || errors.Is(err, proof.ErrRejected) {
		return fmt.Errorf("%w: %w", gateway.ErrVerification, err)
	}
	return err
}

// provenResponse is a proven answer as the read path's response: the
// statement's columns in the order and types a node describes them (a
// description is only names and types: every value is the proven one,
// matched by name, and a description naming other columns is refused).
func (p *proxyVerifier) provenResponse(ctx context.Context, sql string, res *client.VerifiedRows) (*api.QueryResponse, error) {
	d, err := p.clients[0].Describe(ctx, sql)
	if err != nil {
		return nil, fmt.Errorf("describe %q: %w", sql, err)
	}
	idx := make([]int, len(d.Columns))
	resp := &api.QueryResponse{Height: res.Height, Columns: make([]string, len(d.Columns)), Types: make([]string, len(d.Columns)), Typmods: make([]int32, len(d.Columns))}
	for i, c := range d.Columns {
		idx[i] = -1
		for j, name := range res.Columns {
			if strings.EqualFold(name, c.Name) {
				idx[i] = j
			}
		}
		if idx[i] < 0 || len(d.Columns) != len(res.Columns) {
			return nil, fmt.Errorf("%w: node %s describes columns the proven rows of %s do not have (%s)", gateway.ErrVerification, p.clients[0].URL(), res.Table, c.Name)
		}
		resp.Columns[i], resp.Types[i], resp.Typmods[i] = c.Name, c.Type, -1
		if c.Typmod != nil {
			resp.Typmods[i] = *c.Typmod
		}
	}
	for _, row := range res.Rows {
		out := make([]any, len(idx))
		for i, j := range idx {
			out[i] = wireCell(row[j])
		}
		resp.Rows = append(resp.Rows, out)
	}
	return resp, nil
}

// wireCell is a proven value as the read path's JSON carries it (what
// the gateway converts for the wire).
func wireCell(v rowcanon.Value) any {
	switch v.Kind() {
	case rowcanon.KindNull:
		return nil
	case rowcanon.KindBool:
		return v.AsBool()
	case rowcanon.KindInt:
		return json.Number(strconv.FormatInt(v.AsInt(), 10))
	case rowcanon.KindFloat:
		return v.String() // NaN, Infinity and -Infinity as PostgreSQL spells them
	case rowcanon.KindText, rowcanon.KindJSON:
		return v.AsString()
	case rowcanon.KindBytes:
		return base64.StdEncoding.EncodeToString([]byte(v.AsString()))
	case rowcanon.KindDate:
		return time.Unix(v.AsDays()*86400, 0).UTC().Format("2006-01-02")
	case rowcanon.KindTimestamp:
		return time.UnixMicro(v.AsMicros()).UTC().Format(time.RFC3339Nano)
	}
	return v.String() // numeric and uuid: PostgreSQL's text
}
