package proxy

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
	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/client/proof"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// Verifier answers a gateway's reads without trusting any one node
// (gateway.ReadVerifier): a read by primary key with a proof checked
// against a header the light client verified, any other read by f+1
// nodes' agreement. It is safe for concurrent use by the gateway's
// sessions.
type Verifier struct {
	light   *lightverify.Verifier
	clients []*client.Client // every node, the preferred first
	opts    client.VerifyOptions
	keyRead func(string) (client.KeyRead, bool)
	descs   describeCache // provenResponse's descriptions
}

// Options tune a Verifier.
type Options struct {
	Client client.Options // how to reach the nodes (TLS)
	MaxLag int64          // client.VerifyOptions.MaxLag; 0: client.DefaultMaxLag
}

// NewVerifier starts the light client from root on nodes[0], with the
// other nodes as its witnesses; all of them are asked for f+1 agreement.
func NewVerifier(ctx context.Context, root lightverify.Root, nodes []string, o Options) (*Verifier, error) {
	if len(nodes) == 0 {
		return nil, errors.New("proxy: no node")
	}
	p := &Verifier{opts: client.VerifyOptions{MaxLag: o.MaxLag}, keyRead: pgclass.Classifier{}.KeyRead}
	for _, u := range nodes {
		c, err := client.NewWithOptions(u, nil, o.Client)
		if err != nil {
			return nil, fmt.Errorf("proxy: node %s: %w", u, err)
		}
		p.clients = append(p.clients, c)
	}
	var err error
	if p.light, err = lightverify.New(ctx, root, nodes[0], nodes[1:]); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	return p, nil
}

// VerifiedRead implements gateway.ReadVerifier: a read by primary key
// with a proof, any other by f+1 agreement, at a height of at least
// minHeight (the session's last commit).
func (p *Verifier) VerifiedRead(ctx context.Context, minHeight int64, r gateway.Read) (*api.QueryResponse, string, error) {
	for {
		resp, guarantee, err := p.read(ctx, r)
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

// read answers r: PostgreSQL's parser recognises a key read in the
// client's text; the nodes are asked the network's.
func (p *Verifier) read(ctx context.Context, r gateway.Read) (*api.QueryResponse, string, error) {
	if kr, ok := p.keyRead(r.ClientSQL); ok {
		res, err := p.clients[0].VerifiedKeyRead(ctx, p.light, p.opts, kr, r.Args)
		switch {
		case err == nil:
			resp, err := p.provenResponse(ctx, r.SQL, res)
			return resp, fmt.Sprintf("%s: %s", res.Guarantee, res.Why), err
		case !errors.Is(err, client.ErrNotKeyRead):
			return nil, "", verificationError(err)
		}
	}
	n, err := p.light.Validators(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("proxy: the validator set: %w", err)
	}
	res, err := client.AgreedQuery(ctx, p.clients, client.FaultTolerance(n)+1, r.SQL, r.Args...)
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
// Descriptions are cached per statement text (describeCache); a cached
// one that does not fit the proven rows (other column names, a type that
// does not hold a value's kind: a DDL since) is dropped and the statement
// described again, once.
func (p *Verifier) provenResponse(ctx context.Context, sql string, res *client.VerifiedRows) (*api.QueryResponse, error) {
	cols, cached, err := p.describe(ctx, sql)
	if err != nil {
		return nil, err
	}
	resp, idx, err := p.shapeResponse(cols, res)
	if cached && (errors.Is(err, errDescribedOther) || err == nil && !typesFit(cols, idx, res.Rows)) {
		p.descs.drop(sql)
		if cols, _, err = p.describe(ctx, sql); err != nil {
			return nil, err
		}
		resp, _, err = p.shapeResponse(cols, res)
	}
	return resp, err
}

// shapeResponse is res in the columns cols describe; idx maps each of
// cols to its column of res.
func (p *Verifier) shapeResponse(cols []api.ColumnType, res *client.VerifiedRows) (*api.QueryResponse, []int, error) {
	idx := make([]int, len(cols))
	resp := &api.QueryResponse{Height: res.Height, Columns: make([]string, len(cols)), Types: make([]string, len(cols)), Typmods: make([]int32, len(cols))}
	for i, c := range cols {
		idx[i] = -1
		for j, name := range res.Columns {
			if strings.EqualFold(name, c.Name) {
				idx[i] = j
			}
		}
		if idx[i] < 0 || len(cols) != len(res.Columns) {
			return nil, nil, fmt.Errorf("%w: %w: node %s describes columns the proven rows of %s do not have (%s)", gateway.ErrVerification, errDescribedOther, p.clients[0].URL(), res.Table, c.Name)
		}
		resp.Columns[i], resp.Types[i], resp.Typmods[i] = c.Name, c.Type, -1
		if c.Typmod != nil {
			resp.Typmods[i] = *c.Typmod
		}
	}
	for _, row := range res.Rows {
		out := make([]any, len(idx))
		for i, j := range idx {
			out[i] = withScale(wireCell(row[j]), resp.Types[i], resp.Typmods[i])
		}
		resp.Rows = append(resp.Rows, out)
	}
	return resp, idx, nil
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

// withScale writes a numeric value with the scale its column declares
// (numeric(p, s): PostgreSQL shows s fractional digits, the canonical
// form drops trailing zeros). A column without a declared scale shows
// the canonical form: the scale a value was written with is not part of
// it.
func withScale(cell any, typ string, typmod int32) any {
	s, ok := cell.(string)
	if !ok || typ != "numeric" || typmod < 4 {
		return cell
	}
	scale := int((typmod - 4) & 0xffff)
	if scale == 0 || strings.ContainsAny(s, "eEN") { // NaN, exponent forms: as they are
		return cell
	}
	frac := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		frac = len(s) - i - 1
	} else {
		s += "."
	}
	if frac < scale {
		s += strings.Repeat("0", scale-frac)
	}
	return s
}
