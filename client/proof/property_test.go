package proof

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/rowcanon"
)

// sameRows reports whether a verified result holds exactly want's rows.
func sameRows(res Result, want []api.ProofRow) bool {
	if len(res.Rows) != len(want) {
		return false
	}
	for i, r := range res.Rows {
		if !bytes.Equal(r.Key, want[i].Key) || !bytes.Equal(r.Image, want[i].Image) {
			return false
		}
	}
	return true
}

// randomChain builds tables of random int keys (a small domain, so that
// absences and gaps are frequent) over a few blocks of sets and deletes.
func randomChain(t testing.TB, rng *rand.Rand) (*chain, *block) {
	c := newChain()
	names := []string{"a", "b", "c"}[:1+rng.IntN(3)]
	for _, n := range names {
		c.addTable(n)
	}
	for round := 0; round < 1+rng.IntN(3); round++ {
		for i := 0; i < rng.IntN(60); i++ {
			n := names[rng.IntN(len(names))]
			id := int64(rng.IntN(80))
			k := key(t, rowcanon.Int(id))
			if rng.IntN(4) == 0 {
				if _, ok := c.images[n][string(k)]; ok {
					c.del(t, n, k)
				}
				continue
			}
			c.set(t, n, k, image(t, n, rowcanon.Column{Name: "id", Value: rowcanon.Int(id)}, rowcanon.Column{Name: "v", Value: rowcanon.Int(rng.Int64())}))
		}
		c.commit(t)
	}
	return c, c.blocks[len(c.blocks)-1]
}

// randomRequest asks a point or a range of a table, or of "zz", which is
// not authenticated.
func randomRequest(t testing.TB, rng *rand.Rand) api.ProofRequest {
	table := []string{"a", "b", "c", "zz"}[rng.IntN(4)]
	if rng.IntN(2) == 0 {
		return api.ProofRequest{Table: table, Key: key(t, rowcanon.Int(int64(rng.IntN(90))))}
	}
	lo, hi := int64(rng.IntN(90)), int64(rng.IntN(90))
	lo, hi = min(lo, hi), max(lo, hi)
	return api.ProofRequest{Table: table, Lo: key(t, rowcanon.Int(lo)), Hi: key(t, rowcanon.Int(hi))}
}

// modelRows is what the model says the answer holds.
func modelRows(b *block, req api.ProofRequest) []api.ProofRow {
	images := b.images[req.Table]
	if req.IsRange() {
		return rowsIn(images, req.Lo, req.Hi)
	}
	if img, ok := images[string(req.Key)]; ok {
		return []api.ProofRow{{Key: req.Key, Image: img}}
	}
	return nil
}

// TestVerifyAgainstModel: on random chains, honest answers to random
// requests verify with the model's rows, and a single random byte changed
// anywhere in the response never verifies as another answer.
func TestVerifyAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 4))
	rejected := 0
	for round := 0; round < 60; round++ {
		c, b := randomChain(t, rng)
		_ = c
		for q := 0; q < 20; q++ {
			req := randomRequest(t, rng)
			resp := b.answer(t, req)
			res, err := Verify(req, resp, b.appHash())
			_, authenticated := b.roots[req.Table]
			switch {
			case !authenticated && !errors.Is(err, ErrNotAuthenticated):
				t.Fatalf("round %d %+v: %v, want ErrNotAuthenticated", round, req, err)
			case authenticated && (err != nil || !sameRows(res, modelRows(b, req))):
				t.Fatalf("round %d %+v: %v, rows %d, model %d", round, req, err, len(res.Rows), len(modelRows(b, req)))
			}
			tampered := tamper(rng, resp)
			res2, err2 := Verify(req, tampered, b.appHash())
			if err2 == nil && (!authenticated || !sameRows(res2, modelRows(b, req))) {
				t.Fatalf("round %d %+v: a tampered response verified as another answer", round, req)
			}
			if errors.Is(err2, ErrNotAuthenticated) && authenticated {
				t.Fatalf("round %d %+v: a tampered response proved an authenticated table absent", round, req)
			}
			if err2 != nil {
				rejected++
			}
		}
	}
	if rejected == 0 {
		t.Fatal("no tampered response was rejected")
	}
}

// tamper changes one random byte of one random byte field of resp (a
// copy), XORing it with a non-zero value.
func tamper(rng *rand.Rand, resp api.ProofResponse) api.ProofResponse {
	out := resp
	out.Rows = append([]api.ProofRow(nil), resp.Rows...)
	fields := []*[]byte{&out.Base, &out.TablesRoot, &out.Proof, &out.TableAbsence, &out.Key, &out.Lo, &out.Hi}
	for i := range out.Rows {
		fields = append(fields, &out.Rows[i].Key, &out.Rows[i].Image)
	}
	for {
		f := fields[rng.IntN(len(fields))]
		if len(*f) == 0 {
			continue
		}
		b := bytes.Clone(*f)
		b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		*f = b
		return out
	}
}

// FuzzVerify feeds Verify arbitrary responses: as JSON (op 0) or as the
// proof bytes of an honest envelope (op 1). It must never panic, and
// whatever it accepts must be the chain's answer.
func FuzzVerify(f *testing.F) {
	_, b1, _ := fixture(f)
	reqs := fuzzRequests(f)
	for i, req := range reqs {
		resp := b1.answer(f, req)
		js, err := json.Marshal(resp)
		must(f, err)
		f.Add(uint8(i), uint8(0), js)
		f.Add(uint8(i), uint8(1), resp.Proof)
	}
	f.Fuzz(func(t *testing.T, which, op uint8, data []byte) {
		req := reqs[int(which)%len(reqs)]
		var resp api.ProofResponse
		if op%2 == 0 {
			if json.Unmarshal(data, &resp) != nil {
				return
			}
		} else {
			resp = b1.answer(t, req)
			resp.Proof = data
		}
		res, err := Verify(req, resp, b1.appHash())
		_, authenticated := b1.roots[req.Table]
		if err == nil && (!authenticated || !sameRows(res, modelRows(b1, req))) {
			t.Fatalf("accepted another answer: %+v", res)
		}
		if errors.Is(err, ErrNotAuthenticated) && authenticated {
			t.Fatal("an authenticated table proved absent")
		}
	})
}

func fuzzRequests(t testing.TB) []api.ProofRequest {
	return []api.ProofRequest{
		{Table: "accounts", Key: key(t, rowcanon.Int(4))},
		{Table: "accounts", Key: key(t, rowcanon.Int(5))},
		{Table: "accounts", Lo: key(t, rowcanon.Int(3)), Hi: key(t, rowcanon.Int(13))},
		{Table: "users", Hi: above},
		{Table: "blobs", Key: []byte{1}},
		{Table: "empty", Hi: above},
	}
}
