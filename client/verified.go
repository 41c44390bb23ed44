package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	ics23 "github.com/cosmos/ics23/go"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/client/proof"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// Guarantee says why a read's answer can be believed.
type Guarantee string

const (
	// GuaranteeProof: the rows are proven (client/proof) against an
	// AppHash from a header the light client verified from the user's
	// trust root; no node was trusted.
	GuaranteeProof Guarantee = "proof"
	// GuaranteeAgreement: f+1 or more nodes gave the same answer at one
	// height (VerifiedQuery); at least one of them is honest when at most
	// f of the validators are faulty.
	GuaranteeAgreement Guarantee = "f+1 agreement"
	// GuaranteeNone: one node's word.
	GuaranteeNone Guarantee = "none"
)

// DefaultMaxLag is how many blocks a verified read may lie behind the
// newest header the light client has verified before it is refused as
// stale (VerifyOptions.MaxLag).
const DefaultMaxLag = 2

// VerifyOptions tune a verified read.
type VerifyOptions struct {
	// MaxLag: the answer's block may be at most this many blocks older
	// than the newest verified header (0: DefaultMaxLag).
	MaxLag int64
	// HeaderWait bounds the wait for the header after the answer's block
	// when the answer is of the newest block (0: DefaultHeaderWait):
	// CometBFT makes it within about one block time after a block that
	// changed the AppHash, and never after one that did not.
	HeaderWait time.Duration
	// HeadAge is how old the newest verified header MaxLag measures
	// against may be before a read asks the light client's primary for a
	// newer one (lightverify.Verifier.LatestWithin; 0: DefaultHeadAge,
	// negative: ask on every read).
	HeadAge time.Duration
	// Height asks for the state after that block instead of the latest
	// (0): a row's version then, proven against that block's AppHash
	// (header Height+1's). MaxLag does not apply; an answer of another
	// height is a lie. A node proves the heights its row history holds
	// (docs/history-and-changes.md).
	Height int64
}

// DefaultHeadAge is VerifyOptions.HeadAge's default.
//
// Why a verified read need not ask for the newest header every time:
// the proof is checked against header H+1 (or H), which the light client
// fetches and verifies on its own (Verifier.Header), so the newest header
// serves only the staleness check, resp.Height < newest - MaxLag. Skipping
// the ask whenever the answer's height is at or above the newest verified
// header would not do: a node stuck at the height the light client last
// verified would be believed forever while the chain moves on. Asking at
// most every HeadAge keeps the check meaningful: an answer is refused
// when it is more than MaxLag blocks behind the head the primary had at
// most HeadAge ago (or any header verified since); the primary's word on
// where the head is was never more than that anyway (it can withhold
// newer headers). The check is thus looser than asking on every read
// by at most the blocks the chain makes in HeadAge (none on an idle
// chain, about one or two at 100 ms on a busy one), for one round trip
// per HeadAge instead of one per read.
const DefaultHeadAge = 100 * time.Millisecond

// DefaultHeaderWait is VerifyOptions.HeaderWait's default.
const DefaultHeaderWait = 10 * time.Second

// LieError is a node's answer that failed verification: the node (its
// URL) and what it lied about (Err wraps the client/proof error naming
// the failure, or ErrStale).
type LieError struct {
	Node  string
	About string // "table t key (1)", "table t keys [1, 5]"
	Err   error
}

func (e *LieError) Error() string {
	return fmt.Sprintf("node %s lied about %s: %v", e.Node, e.About, e.Err)
}

func (e *LieError) Unwrap() error { return e.Err }

// ErrStale: the node answered from a block older than the newest
// verified header allows (VerifyOptions.MaxLag).
var ErrStale = errors.New("stale answer")

// ErrKeyColumns: a verified row's key is not the table's primary key of
// its own image under the primary-key columns the node named: the node
// lied about the table's primary key.
var ErrKeyColumns = errors.New("the row's key is not its primary-key columns' values (a lie about the primary key)")

// VerifiedRows is the answer of a verified read.
type VerifiedRows struct {
	Node      string // the node that answered
	Table     string
	Height    int64 // the block whose state the rows are
	Guarantee Guarantee
	// Why says how the guarantee was obtained, for people.
	Why     string
	Columns []string // the rows' column names, sorted
	Rows    [][]rowcanon.Value
}

// VerifiedGet reads the row of table whose primary key is key (one value
// per primary-key column, in the key's order), proven against a header v
// verified. A value is a rowcanon.Value or a Go value converted by the
// type of its column, which the node's catalog names (TableKey): a
// node's wrong answer there fails verification too. No row: Rows is
// empty, proven absent.
func (c *Client) VerifiedGet(ctx context.Context, v *lightverify.Verifier, opts VerifyOptions, table string, key ...any) (*VerifiedRows, error) {
	return c.withTableKey(ctx, table, func(tk *TableKey) (*VerifiedRows, error) {
		return c.verifiedGet(ctx, v, opts, tk, key)
	})
}

// verifiedGet is VerifiedGet under the primary key tk.
func (c *Client) verifiedGet(ctx context.Context, v *lightverify.Verifier, opts VerifyOptions, tk *TableKey, key []any) (*VerifiedRows, error) {
	k, err := tk.Encode(key)
	if err != nil {
		return nil, err
	}
	return c.verifiedRead(ctx, v, opts, tk, api.ProofRequest{Table: tk.Table, Key: k}, fmt.Sprintf("table %s key %v", tk.Table, key))
}

// VerifiedRange reads the rows of table whose primary key lies in
// [lo, hi] (both inclusive; each a full key, as VerifiedGet's), proven
// complete against a header v verified.
func (c *Client) VerifiedRange(ctx context.Context, v *lightverify.Verifier, opts VerifyOptions, table string, lo, hi []any) (*VerifiedRows, error) {
	return c.withTableKey(ctx, table, func(tk *TableKey) (*VerifiedRows, error) {
		return c.verifiedRange(ctx, v, opts, tk, lo, hi)
	})
}

// verifiedRange is VerifiedRange under the primary key tk.
func (c *Client) verifiedRange(ctx context.Context, v *lightverify.Verifier, opts VerifyOptions, tk *TableKey, lo, hi []any) (*VerifiedRows, error) {
	l, err := tk.Encode(lo)
	if err != nil {
		return nil, err
	}
	h, err := tk.Encode(hi)
	if err != nil {
		return nil, err
	}
	if bytes.Compare(l, h) > 0 {
		return &VerifiedRows{Node: c.url, Table: tk.Table, Guarantee: GuaranteeProof, Why: "an empty range"}, nil
	}
	return c.verifiedRead(ctx, v, opts, tk, api.ProofRequest{Table: tk.Table, Lo: l, Hi: h}, fmt.Sprintf("table %s keys %v to %v", tk.Table, lo, hi))
}

// withTableKey runs read with table's primary key as the cache holds it
// (cachedTableKey). The cached key is the node's earlier word, a hint as
// untrusted as a fresh one: read checks every row against it. When read
// fails the way a key that no longer fits fails (a DDL changed the key
// since: the key does not encode, ErrKeyColumns), the entry is dropped
// and read runs once more with a fresh lookup, whose failure is final.
func (c *Client) withTableKey(ctx context.Context, table string, read func(*TableKey) (*VerifiedRows, error)) (*VerifiedRows, error) {
	tk, cached, err := c.cachedTableKey(ctx, table)
	if err != nil {
		return nil, err
	}
	res, err := read(tk)
	if err == nil || !cached || !keyMisfit(err) {
		return res, err
	}
	c.tableKeys.CompareAndDelete(table, tk)
	if tk, err = c.TableKey(ctx, table); err != nil {
		return nil, err
	}
	c.tableKeys.Store(table, tk)
	return read(tk)
}

// keyMisfit reports whether err is a verified read's failure that a
// stale primary key explains: a key that does not encode under the key's
// types (errKeyEncoding), or rows whose keys are not the key columns'
// values (ErrKeyColumns).
func keyMisfit(err error) bool {
	return errors.Is(err, ErrKeyColumns) || errors.Is(err, errKeyEncoding)
}

// errKeyEncoding: a key value given does not convert to its key column's
// type (TableKey.Encode).
var errKeyEncoding = errors.New("the key does not encode")

// cachedTableKey is table's primary key from the Client's cache, or
// looked up (TableKey) and cached; cached says which. Safe for
// concurrent use: two lookups racing store the same answer.
func (c *Client) cachedTableKey(ctx context.Context, table string) (*TableKey, bool, error) {
	if tk, ok := c.tableKeys.Load(table); ok {
		return tk.(*TableKey), true, nil
	}
	tk, err := c.TableKey(ctx, table)
	if err != nil {
		return nil, false, err
	}
	c.tableKeys.Store(table, tk)
	return tk, false, nil
}

// Prove asks the node for a proof (api.ProofPath), unverified.
func (c *Client) Prove(ctx context.Context, req api.ProofRequest) (*api.ProofResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode proof request: %w", err)
	}
	r, err := c.abciQuery(ctx, api.ProofPath, body)
	if err != nil {
		return nil, c.wrap("abci_query /proof", err)
	}
	if r.Code != api.CodeOK {
		return nil, queryError(r.Code, r.Log, r.Value)
	}
	var out api.ProofResponse
	if err := json.Unmarshal(r.Value, &out); err != nil {
		return nil, &LieError{Node: c.url, About: "the proof of " + req.Table, Err: fmt.Errorf("%w: %w: %w", proof.ErrRejected, proof.ErrMalformed, err)}
	}
	return &out, nil
}

// verifiedRead asks for req, verifies it, and decodes the rows.
func (c *Client) verifiedRead(ctx context.Context, v *lightverify.Verifier, opts VerifyOptions, tk *TableKey, req api.ProofRequest, about string) (*VerifiedRows, error) {
	req.Height = opts.Height
	if opts.Height > 0 {
		about = fmt.Sprintf("%s at height %d", about, opts.Height)
	}
	resp, err := c.Prove(ctx, req)
	if err != nil {
		return nil, err
	}
	lie := func(err error) error { return &LieError{Node: c.url, About: about, Err: err} }
	res, height, why, err := c.checkProof(ctx, v, opts, req, resp)
	if err != nil {
		if errors.Is(err, proof.ErrRejected) || errors.Is(err, ErrStale) {
			return nil, lie(err)
		}
		return nil, fmt.Errorf("verified read of %s on node %s: %w", about, c.url, err)
	}
	if err := tk.checkRows(res.Rows, resp); err != nil {
		return nil, lie(err)
	}
	out := &VerifiedRows{Node: c.url, Table: req.Table, Height: height, Guarantee: GuaranteeProof, Why: why}
	for i, r := range res.Rows {
		if i == 0 {
			for _, col := range r.Columns {
				out.Columns = append(out.Columns, col.Name)
			}
		}
		vals := make([]rowcanon.Value, len(r.Columns))
		for j, col := range r.Columns {
			vals[j] = col.Value
		}
		out.Rows = append(out.Rows, vals)
	}
	return out, nil
}

// checkProof verifies resp against a trusted AppHash: that of header
// resp.Height+1, or, when the chain idles at resp.Height (no header after
// it comes), that of header resp.Height if it matches (the state after
// block resp.Height-1, unchanged since). It refuses an answer more than
// MaxLag blocks behind the newest verified header, and one that matches
// neither header when header resp.Height+1 does not appear within
// HeaderWait.
func (c *Client) checkProof(ctx context.Context, v *lightverify.Verifier, opts VerifyOptions, req api.ProofRequest, resp *api.ProofResponse) (proof.Result, int64, string, error) {
	maxLag, wait, headAge := opts.MaxLag, opts.HeaderWait, opts.HeadAge
	if maxLag <= 0 {
		maxLag = DefaultMaxLag
	}
	if wait <= 0 {
		wait = DefaultHeaderWait
	}
	if headAge == 0 {
		headAge = DefaultHeadAge
	}
	latest, err := v.LatestWithin(ctx, headAge)
	if err != nil {
		return proof.Result{}, 0, "", err
	}
	switch {
	case opts.Height > 0 && resp.Height != opts.Height:
		return proof.Result{}, 0, "", fmt.Errorf("%w: asked for the state after block %d, answered block %d's", ErrStale, opts.Height, resp.Height)
	case opts.Height == 0 && resp.Height < latest.Height-maxLag:
		return proof.Result{}, 0, "", fmt.Errorf("%w: the answer is of block %d, the newest verified header is %d (at most %d blocks behind)", ErrStale, resp.Height, latest.Height, maxLag)
	}
	var atHead error // the answer checked against header resp.Height
	if resp.Height >= latest.Height && resp.Height > 1 {
		hctx, cancel := context.WithTimeout(ctx, wait)
		hd, err := v.Header(hctx, resp.Height)
		cancel()
		if err != nil {
			return proof.Result{}, 0, "", fmt.Errorf("the answer's block %d: %w", resp.Height, err)
		}
		res, err := proof.Verify(req, *resp, hd.AppHash)
		if err == nil {
			return res, resp.Height - 1, fmt.Sprintf("proof against the AppHash in header %d (the state after block %d), verified by the light client from %s", hd.Height, hd.Height-1, v.Primary()), nil
		}
		if !errors.Is(err, proof.ErrAppHash) {
			// Everything but the AppHash is checked against the question
			// and the trusted hash: a lie whichever header is right.
			return proof.Result{}, 0, "", err
		}
		atHead = err
		var cancelWait context.CancelFunc
		ctx, cancelWait = context.WithTimeout(ctx, wait)
		defer cancelWait()
	}
	appHash, err := v.AppHashAfter(ctx, resp.Height)
	if err != nil {
		if atHead != nil && errors.Is(err, lightverify.ErrNoHeader) {
			return proof.Result{}, 0, "", fmt.Errorf("%w (and no header %d appeared within %s)", atHead, resp.Height+1, wait)
		}
		return proof.Result{}, 0, "", err
	}
	res, err := proof.Verify(req, *resp, appHash)
	if err != nil {
		return proof.Result{}, 0, "", err
	}
	return res, resp.Height, fmt.Sprintf("proof against the AppHash in header %d, verified by the light client from %s", resp.Height+1, v.Primary()), nil
}

// TableKey is a table's primary key as its node's catalog describes it:
// the columns in key order and their types.
type TableKey struct {
	Table   string
	Columns []string
	Types   []string // PostgreSQL type names (api.QueryResponse.Types)
}

// pkQuery lists a table's primary-key columns in key order, each with
// its type's PostgreSQL name (udt_name: int8, text, ...; the names
// api.QueryResponse.Types uses). One catalog read in PostgreSQL's
// information_schema, which every backend answers: PostgreSQL itself,
// SQLite and MySQL/MariaDB through the node's emulated PostgreSQL catalog
// (backend/pgcatalog), so a MySQL network's key is looked up the same way.
const pkQuery = `SELECT kcu.column_name, c.udt_name FROM information_schema.table_constraints tc
JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_name = tc.table_name AND kcu.table_schema = tc.table_schema
JOIN information_schema.columns c ON c.table_name = kcu.table_name AND c.column_name = kcu.column_name AND c.table_schema = kcu.table_schema
WHERE tc.table_name = $1 AND tc.constraint_type = 'PRIMARY KEY' ORDER BY kcu.ordinal_position`

// ErrKeyLookup: the node did not name the table's primary key (no such
// table, no primary key, the catalog read failed).
var ErrKeyLookup = errors.New("cannot learn the table's primary key")

// TableKey asks the node for table's primary-key columns and their
// types. Not trusted: a verified read checks every row's key against its
// image under these columns (ErrKeyColumns), and a wrong type gives a
// key the proof does not cover. Verified reads cache the answer per
// Client (withTableKey).
func (c *Client) TableKey(ctx context.Context, table string) (*TableKey, error) {
	r, err := c.Query(ctx, 0, pkQuery, table)
	if err != nil {
		return nil, fmt.Errorf("%w: the primary key of %s on node %s: %w", ErrKeyLookup, table, c.url, err)
	}
	if len(r.Rows) == 0 {
		return nil, fmt.Errorf("%w: table %s has no primary key on node %s: its rows cannot be proven", ErrKeyLookup, table, c.url)
	}
	tk := &TableKey{Table: table}
	for _, row := range r.Rows {
		name, ok := row[0].(string)
		typ, ok2 := row[len(row)-1].(string)
		if !ok || !ok2 || len(row) != 2 {
			return nil, fmt.Errorf("%w: the primary key of %s on node %s: column %v", ErrKeyLookup, table, c.url, row)
		}
		tk.Columns = append(tk.Columns, name)
		tk.Types = append(tk.Types, typ)
	}
	return tk, nil
}

// Encode is the canonical key (rowcanon.EncodeKey) of vals, one per key
// column.
func (tk *TableKey) Encode(vals []any) ([]byte, error) {
	if len(vals) != len(tk.Columns) {
		return nil, fmt.Errorf("table %s: %w: a key of %d values, its primary key (%s) has %d columns", tk.Table, errKeyEncoding, len(vals), strings.Join(tk.Columns, ", "), len(tk.Columns))
	}
	cv := make([]rowcanon.Value, len(vals))
	for i, v := range vals {
		var err error
		if cv[i], err = CanonicalValue(tk.Types[i], v); err != nil {
			return nil, fmt.Errorf("table %s key column %s: %w: %w", tk.Table, tk.Columns[i], errKeyEncoding, err)
		}
	}
	return rowcanon.EncodeKey(cv)
}

// checkRows checks that every verified row's key, and for an absent
// point the proof's neighbours' keys, are their images' values under the
// key columns: a node that named other columns than the primary key
// fails here.
func (tk *TableKey) checkRows(rows []proof.Row, resp *api.ProofResponse) error {
	for _, r := range rows {
		if err := tk.checkImage(r.Key, r.Columns); err != nil {
			return err
		}
	}
	if len(rows) != 0 || len(resp.Key) == 0 {
		return nil
	}
	cp, err := statetree.UnmarshalChainedProof(resp.Proof)
	if err != nil {
		return fmt.Errorf("%w: %w: %w", proof.ErrRejected, proof.ErrMalformed, err)
	}
	ne := nonExistence(cp.Rows)
	if ne == nil {
		return nil
	}
	for _, ex := range []*struct{ k, v []byte }{exOf(ne.Left), exOf(ne.Right)} {
		if ex == nil {
			continue
		}
		_, cols, err := rowcanon.DecodeRow(ex.v)
		if err != nil {
			return fmt.Errorf("%w: %w: neighbour %x: %w", proof.ErrRejected, proof.ErrTamperedRow, ex.k, err)
		}
		if err := tk.checkImage(ex.k, cols); err != nil {
			return err
		}
	}
	return nil
}

// nonExistence is the non-existence proof p carries, bare or (a
// non-empty tree's, statetree.Prove) as the one entry of a compressed
// batch; nil if none.
func nonExistence(p *ics23.CommitmentProof) *ics23.NonExistenceProof {
	p = ics23.Decompress(p)
	if ne := p.GetNonexist(); ne != nil {
		return ne
	}
	if b := p.GetBatch(); b != nil && len(b.Entries) == 1 {
		return b.Entries[0].GetNonexist()
	}
	return nil
}

// checkImage checks key against the key columns' values in cols, and
// those values' kinds against the key's types (a key of another type
// than the rows' is never found: a row's absence under it proves
// nothing about the row asked for).
func (tk *TableKey) checkImage(key []byte, cols []rowcanon.Column) error {
	vals := make([]rowcanon.Value, len(tk.Columns))
	for i, name := range tk.Columns {
		found := false
		for _, c := range cols {
			if c.Name == name {
				vals[i], found = c.Value, true
			}
		}
		if !found {
			return fmt.Errorf("%w: %w: the row of key %x has no column %s", proof.ErrRejected, ErrKeyColumns, key, name)
		}
		if want, known := KindOfType(tk.Types[i]); known && vals[i].Kind() != want {
			return fmt.Errorf("%w: %w: key column %s holds a %s in the row of key %x, its type %s is a %s", proof.ErrRejected, ErrKeyColumns, name, vals[i].Kind(), key, tk.Types[i], want)
		}
	}
	k, err := rowcanon.EncodeKey(vals)
	if err != nil || !bytes.Equal(k, key) {
		return fmt.Errorf("%w: %w: key %x, columns (%s) give %x", proof.ErrRejected, ErrKeyColumns, key, strings.Join(tk.Columns, ", "), k)
	}
	return nil
}

// KindOfType is the canonical kind (rowcanon) of a value of PostgreSQL
// type typ, for the types CanonicalValue converts; known is false for
// any other.
func KindOfType(typ string) (kind rowcanon.Kind, known bool) {
	if typ == "json" { // CanonicalValue does not convert it
		return rowcanon.KindNull, false
	}
	return rowcanon.KindOfPGType(typ)
}
