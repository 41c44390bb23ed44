package proof

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	ics23 "github.com/cosmos/ics23/go"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// TestHonestAnswersVerify: points (int, text, composite keys), absent
// keys, ranges (empty, one row, whole table, across deletes) and an empty
// table verify, with the rows the chain holds, decoded.
func TestHonestAnswersVerify(t *testing.T) {
	_, b1, b2 := fixture(t)
	k4, img4 := account(t, 4, 400)
	cases := []struct {
		name  string
		b     *block
		req   api.ProofRequest
		nrows int
	}{
		{"int key", b1, api.ProofRequest{Table: "accounts", Key: k4}, 1},
		{"text key", b1, api.ProofRequest{Table: "users", Key: key(t, text(t, "bob"))}, 1},
		{"composite key", b1, api.ProofRequest{Table: "orders", Key: key(t, rowcanon.Int(1), text(t, "b"))}, 1},
		{"absent key", b1, api.ProofRequest{Table: "accounts", Key: key(t, rowcanon.Int(5))}, 0},
		{"absent past the end", b1, api.ProofRequest{Table: "accounts", Key: key(t, rowcanon.Int(1000))}, 0},
		{"absent text key", b1, api.ProofRequest{Table: "users", Key: key(t, text(t, "bobby"))}, 0},
		{"deleted key", b2, api.ProofRequest{Table: "accounts", Key: key(t, rowcanon.Int(12)), Height: 2}, 0},
		{"empty table point", b1, api.ProofRequest{Table: "empty", Key: k4}, 0},
		{"empty table range", b1, api.ProofRequest{Table: "empty", Hi: above}, 0},
		{"empty range", b1, api.ProofRequest{Table: "accounts", Lo: key(t, rowcanon.Int(5)), Hi: key(t, rowcanon.Int(5))}, 0},
		{"one row", b1, api.ProofRequest{Table: "accounts", Lo: key(t, rowcanon.Int(3)), Hi: key(t, rowcanon.Int(5))}, 1},
		{"whole table", b1, api.ProofRequest{Table: "accounts", Hi: above}, 20},
		{"whole table after deletes", b2, api.ProofRequest{Table: "accounts", Hi: above}, 14},
		{"range across deletes", b2, api.ProofRequest{Table: "accounts", Lo: key(t, rowcanon.Int(8)), Hi: key(t, rowcanon.Int(22))}, 2},
		{"range inside deletes", b2, api.ProofRequest{Table: "accounts", Lo: key(t, rowcanon.Int(10)), Hi: key(t, rowcanon.Int(20))}, 0},
		{"composite prefix range", b1, api.ProofRequest{Table: "orders", Lo: key(t, rowcanon.Int(1)), Hi: key(t, rowcanon.Int(2))}, 2},
		{"text whole table", b1, api.ProofRequest{Table: "users", Hi: above}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := c.b.answer(t, c.req)
			res, err := Verify(c.req, resp, c.b.appHash())
			if err != nil {
				t.Fatalf("honest answer rejected: %v", err)
			}
			if len(res.Rows) != c.nrows || res.Height != c.b.height || res.Table != c.req.Table || res.Range != c.req.IsRange() {
				t.Fatalf("result %+v, want %d rows at height %d", res, c.nrows, c.b.height)
			}
			for i, r := range res.Rows {
				if !bytes.Equal(r.Key, resp.Rows[i].Key) || !bytes.Equal(r.Image, resp.Rows[i].Image) || len(r.Columns) == 0 {
					t.Errorf("row %d: %+v", i, r)
				}
			}
		})
	}
	res, err := Verify(api.ProofRequest{Table: "accounts", Key: k4}, b1.answer(t, api.ProofRequest{Table: "accounts", Key: k4}), b1.appHash())
	must(t, err)
	if !bytes.Equal(res.Rows[0].Image, img4) || res.Rows[0].Columns[0].Name != "balance" || res.Rows[0].Columns[0].Value.AsInt() != 400 {
		t.Errorf("decoded row %+v", res.Rows[0].Columns)
	}
}

// TestUnauthenticatedTable: a table absent from the tables map is proven
// absent and reported as ErrNotAuthenticated, not as a rejection.
func TestUnauthenticatedTable(t *testing.T) {
	_, b1, _ := fixture(t)
	for _, req := range []api.ProofRequest{{Table: "blobs", Key: []byte{1}}, {Table: "blobs", Hi: above}, {Table: "zzz", Key: []byte{1}}, {Table: "a", Key: []byte{1}}} {
		res, err := Verify(req, b1.answer(t, req), b1.appHash())
		if !errors.Is(err, ErrNotAuthenticated) || errors.Is(err, ErrRejected) {
			t.Fatalf("%+v: %v", req, err)
		}
		if res.Table != req.Table || res.Height != 1 || len(res.Rows) != 0 {
			t.Errorf("result %+v", res)
		}
	}
}

// lie is a dishonest node's answer: it starts from the honest answer to
// req at block b and changes it.
type lie struct {
	name string
	req  api.ProofRequest
	b    func(b1, b2 *block) *block // the block answered (default b2)
	// trust is the AppHash the client trusts (default b's).
	trust  func(b1, b2 *block) []byte
	change func(t *testing.T, resp *api.ProofResponse, b1, b2 *block)
	want   error
}

// TestLiesAreRejected: each way a node can lie is caught and named.
func TestLiesAreRejected(t *testing.T) {
	_, b1, b2 := fixture(t)
	k2, k4, k22 := key(t, rowcanon.Int(2)), key(t, rowcanon.Int(4)), key(t, rowcanon.Int(22))
	point := api.ProofRequest{Table: "accounts", Key: k22}
	rng := api.ProofRequest{Table: "accounts", Lo: k2, Hi: k22, Height: 2}
	for _, l := range lies(t, point, rng, k4) {
		t.Run(l.name, func(t *testing.T) {
			b := b2
			if l.b != nil {
				b = l.b(b1, b2)
			}
			trust := b.appHash()
			if l.trust != nil {
				trust = l.trust(b1, b2)
			}
			resp := b.answer(t, l.req)
			if _, err := Verify(l.req, resp, trust); l.trust == nil && err != nil {
				t.Fatalf("the honest answer is rejected: %v", err)
			}
			if l.change != nil {
				l.change(t, &resp, b1, b2)
			}
			_, err := Verify(l.req, resp, trust)
			if !errors.Is(err, l.want) || !errors.Is(err, ErrRejected) {
				t.Fatalf("got %v, want %v", err, l.want)
			}
		})
	}
}

func lies(t *testing.T, point, rng api.ProofRequest, k4 []byte) []lie {
	_, img4 := account(t, 4, 400)
	k3, k5 := key(t, rowcanon.Int(3)), key(t, rowcanon.Int(5))
	return []lie{
		{name: "altered image", req: point, want: ErrTamperedRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			_, r.Rows[0].Image = account(t, 22, 1)
		}},
		{name: "image of another table", req: point, want: ErrTamperedRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows[0].Image = image(t, "users", rowcanon.Column{Name: "id", Value: rowcanon.Int(22)})
		}},
		{name: "garbage image", req: point, want: ErrTamperedRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows[0].Image = r.Rows[0].Image[:len(r.Rows[0].Image)-1]
		}},
		{name: "altered key", req: point, want: ErrWrongKey, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows[0].Key = k4
		}},
		{name: "another key's row and proof", req: point, want: ErrWrongKey, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			other := b2.answer(t, api.ProofRequest{Table: "accounts", Key: k4})
			r.Rows, r.Proof = other.Rows, other.Proof
		}},
		{name: "present row answered absent", req: point, want: ErrMissingRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows = nil
		}},
		{name: "absent row answered present", req: api.ProofRequest{Table: "accounts", Key: k5}, want: ErrWrongKey, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			r.Rows = []api.ProofRow{{Key: k4, Image: img4}}
		}},
		{name: "absent row with a forged image", req: api.ProofRequest{Table: "accounts", Key: k5}, want: ErrTamperedRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			_, img := account(t, 5, 1)
			r.Rows = []api.ProofRow{{Key: k5, Image: img}}
		}},
		{name: "absence proof of another key", req: api.ProofRequest{Table: "accounts", Key: k5}, want: ErrBadProof, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			r.Proof = b2.answer(t, api.ProofRequest{Table: "accounts", Key: k3}).Proof
		}},
		{name: "answer for another key", req: point, want: ErrWrongQuestion, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			*r = b2.answer(t, api.ProofRequest{Table: "accounts", Key: k4})
		}},
		{name: "answer for another table", req: point, want: ErrWrongQuestion, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			*r = b2.answer(t, api.ProofRequest{Table: "orders", Key: point.Key})
		}},
		{name: "another table's proof", req: api.ProofRequest{Table: "orders", Key: k4}, want: ErrTableProof, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			other := b2.answer(t, api.ProofRequest{Table: "accounts", Key: k4})
			r.Rows, r.Proof = other.Rows, other.Proof
		}},
		{name: "authenticated table claimed absent", req: point, want: ErrTableProof, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			other := b2.answer(t, api.ProofRequest{Table: "blobs", Key: point.Key})
			r.Rows, r.Proof, r.TableAbsence = nil, nil, other.TableAbsence
		}},
		{name: "answer for another range", req: rng, want: ErrWrongQuestion, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			*r = b2.answer(t, api.ProofRequest{Table: "accounts", Lo: k3, Hi: rng.Hi, Height: 2})
		}},
		{name: "answer for another height", req: rng, want: ErrWrongQuestion, b: first, trust: firstHash},
		{name: "stale AppHash", req: point, want: ErrAppHash, trust: firstHash},
		{name: "stale state claimed as the latest", req: point, want: ErrAppHash, b: first, trust: secondHash, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Height = 2
		}},
		{name: "forged tables root", req: point, want: ErrAppHash, change: func(t *testing.T, r *api.ProofResponse, b1, _ *block) {
			h := b1.tables.Hash()
			r.TablesRoot = h[:]
		}},
		{name: "forged base", req: point, want: ErrAppHash, change: func(t *testing.T, r *api.ProofResponse, b1, _ *block) {
			r.Base = b1.base
		}},
		{name: "old version", req: point, want: ErrVersion, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Version = 3
		}},
		{name: "truncated proof", req: point, want: ErrMalformed, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Proof = r.Proof[:len(r.Proof)-1]
		}},
		{name: "garbage proof", req: point, want: ErrMalformed, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Proof = bytes.Repeat([]byte{0xa5}, 300)
		}},
		{name: "short base", req: point, want: ErrMalformed, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Base = r.Base[:31]
		}},
		{name: "altered image in a range", req: rng, want: ErrTamperedRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			_, r.Rows[1].Image = account(t, 4, 401)
		}},
		{name: "altered key in a range", req: rng, want: ErrExtraRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows[1].Key = k3
		}},
		{name: "dropped row", req: rng, want: ErrMissingRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows = append(r.Rows[:1:1], r.Rows[2:]...)
		}},
		{name: "dropped row and its proof", req: rng, want: ErrMissingRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows = append(r.Rows[:1:1], r.Rows[2:]...)
			r.Proof = dropEntry(t, r.Proof, 2) // entry 0 is the left neighbour (id 0)
		}},
		{name: "added row", req: rng, want: ErrExtraRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			_, img := account(t, 5, 5)
			r.Rows = append(r.Rows[:2:2], append([]api.ProofRow{{Key: k5, Image: img}}, r.Rows[2:]...)...)
		}},
		{name: "row outside the range", req: rng, want: ErrExtraRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			k, img := account(t, 0, 555)
			r.Rows = append([]api.ProofRow{{Key: k, Image: img}}, r.Rows...)
		}},
		{name: "rows out of order", req: rng, want: ErrExtraRow, change: func(t *testing.T, r *api.ProofResponse, _, _ *block) {
			r.Rows[0], r.Rows[1] = r.Rows[1], r.Rows[0]
		}},
		{name: "range proof for a point", req: point, want: ErrTamperedRow, change: func(t *testing.T, r *api.ProofResponse, _, b2 *block) {
			r.Proof = b2.answer(t, api.ProofRequest{Table: "accounts", Lo: point.Key, Hi: point.Key}).Proof
		}},
	}
}

func first(b1, _ *block) *block      { return b1 }
func firstHash(b1, _ *block) []byte  { return b1.appHash() }
func secondHash(_, b2 *block) []byte { return b2.appHash() }

// dropEntry removes entry i of a chained range proof, re-encoded.
func dropEntry(t *testing.T, wire []byte, i int) []byte {
	cp, err := statetree.UnmarshalChainedProof(wire)
	must(t, err)
	b := ics23.Decompress(cp.Rows).GetBatch()
	b.Entries = append(b.Entries[:i:i], b.Entries[i+1:]...)
	cp.Rows = &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Batch{Batch: b}}
	out, err := cp.Marshal()
	must(t, err)
	return out
}

// TestOversizedProofsAreRefusedBeforeParsing: a proof longer than an
// honest answer of its shape can be is refused as malformed, before any
// parsing or hashing, so a hostile node cannot make a client allocate or
// hash in proportion to api.MaxProofBytes for a point lookup.
func TestOversizedProofsAreRefusedBeforeParsing(t *testing.T) {
	_, b1, _ := fixture(t)
	reqs := []api.ProofRequest{{Table: "accounts", Key: key(t, rowcanon.Int(4))}, {Table: "accounts", Lo: key(t, rowcanon.Int(4)), Hi: key(t, rowcanon.Int(8))}}
	for _, req := range reqs {
		resp := b1.answer(t, req)
		limit := proofLimit(req, resp.Rows)
		if len(resp.Proof) > limit/10 {
			t.Fatalf("an honest proof of %d bytes is close to the limit %d", len(resp.Proof), limit)
		}
		resp.Proof = append(resp.Proof, make([]byte, limit)...)
		if _, err := Verify(req, resp, b1.appHash()); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "at most") {
			t.Errorf("%+v: %v", req, err)
		}
	}
	req := api.ProofRequest{Table: "blobs", Key: []byte{1}}
	resp := b1.answer(t, req)
	resp.TableAbsence = append(resp.TableAbsence, make([]byte, proofLimit(req, nil))...)
	if _, err := Verify(req, resp, b1.appHash()); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "at most") {
		t.Errorf("table absence: %v", err)
	}
}

// TestLimitsAgreeWithStatetree: api (standard library only) restates the
// trie's key bound; the two must agree.
func TestLimitsAgreeWithStatetree(t *testing.T) {
	if api.MaxProofKeyLen != statetree.MaxKeyLen+1 || api.MaxProofBytes > statetree.MaxWireLen {
		t.Fatalf("api.MaxProofKeyLen %d, statetree.MaxKeyLen %d; api.MaxProofBytes %d, statetree.MaxWireLen %d",
			api.MaxProofKeyLen, statetree.MaxKeyLen, api.MaxProofBytes, statetree.MaxWireLen)
	}
}
