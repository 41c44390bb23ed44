package proof

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// benchRow is row i of the benchmark table: key 2i (int), a text and an
// int column, about 60 bytes of image.
func benchRow(b testing.TB, i int64) ([]byte, []byte) {
	return key(b, rowcanon.Int(2*i)), image(b, "accounts",
		rowcanon.Column{Name: "id", Value: rowcanon.Int(2 * i)},
		rowcanon.Column{Name: "owner", Value: text(b, fmt.Sprintf("owner-%07d", i))},
		rowcanon.Column{Name: "balance", Value: rowcanon.Int(i * 37)})
}

// benchState is a tables map over "accounts" of n rows and two small
// tables, and honest answers for a point and a 100-row range.
func benchState(b *testing.B, n int64) (point, rng api.ProofRequest, pointResp, rngResp api.ProofResponse, appHash []byte) {
	tr := statetree.New()
	for i := int64(0); i < n; i++ {
		k, img := benchRow(b, i)
		must(b, tr.Set(k, rowcanon.LeafHash(img)))
	}
	root := tr.Commit()
	m := statetree.NewTables()
	must(b, m.Set("accounts", root.Hash()))
	must(b, m.Set("branches", sha256.Sum256([]byte("b"))))
	must(b, m.Set("users", sha256.Sum256([]byte("u"))))
	mr := m.Commit()
	tp, err := mr.ProveTable("accounts", root.Hash())
	must(b, err)
	base := sha256.Sum256([]byte("base"))
	mh := mr.Hash()
	values := func(k []byte) ([]byte, error) {
		v, err := rowcanon.DecodeKey(k)
		if err != nil {
			return nil, err
		}
		_, img := benchRow(b, v[0].AsInt()/2)
		return img, nil
	}
	envelope := func(req api.ProofRequest) api.ProofResponse {
		return api.ProofResponse{Height: 9, Version: 4, Base: base[:], TablesRoot: mh[:], Table: "accounts", Key: req.Key, Lo: req.Lo, Hi: req.Hi}
	}
	mid := n / 2
	k, img := benchRow(b, mid)
	point = api.ProofRequest{Table: "accounts", Key: k}
	pointResp = envelope(point)
	pointResp.Rows = []api.ProofRow{{Key: k, Image: img}}
	ex, err := root.ProveExistence(k, img)
	must(b, err)
	pointResp.Proof, err = statetree.ChainedProof{Table: tp, Rows: ex}.Marshal()
	must(b, err)
	hi, _ := benchRow(b, mid+99)
	rng = api.ProofRequest{Table: "accounts", Lo: k, Hi: hi}
	rngResp = envelope(rng)
	for i := mid; i < mid+100; i++ {
		rk, rimg := benchRow(b, i)
		rngResp.Rows = append(rngResp.Rows, api.ProofRow{Key: rk, Image: rimg})
	}
	rp, err := root.ProveRange(k, hi, values)
	must(b, err)
	rngResp.Proof, err = statetree.ChainedProof{Table: tp, Rows: rp}.Marshal()
	must(b, err)
	return point, rng, pointResp, rngResp, api.AuthenticatedAppHash(4, base[:], mh)
}

// BenchmarkVerify is Verify of a point and of a 100-row range proof at
// 10^4 and 10^6 rows (issue 36: a point proof under 2 KiB, verification
// under 1 ms). proof-B is the encoded ChainedProof; images-B the rows'
// images the response carries beside it; json-B the whole response as
// JSON (byte strings in base64).
func BenchmarkVerify(b *testing.B) {
	for _, n := range []int64{10_000, 1_000_000} {
		point, rng, pr, rr, h := benchState(b, n)
		for _, c := range []struct {
			name string
			req  api.ProofRequest
			resp api.ProofResponse
		}{{"point", point, pr}, {"range100", rng, rr}} {
			b.Run(fmt.Sprintf("rows=%d/%s", n, c.name), func(b *testing.B) {
				images := 0
				for _, r := range c.resp.Rows {
					images += len(r.Image) + len(r.Key)
				}
				for b.Loop() {
					res, err := Verify(c.req, c.resp, h)
					if err != nil || len(res.Rows) != len(c.resp.Rows) {
						b.Fatalf("%v (%d rows)", err, len(res.Rows))
					}
				}
				b.ReportMetric(float64(len(c.resp.Proof)), "proof-B")
				b.ReportMetric(float64(images), "rows-B")
				js, err := json.Marshal(c.resp)
				must(b, err)
				b.ReportMetric(float64(len(js)), "json-B")
			})
		}
	}
}
