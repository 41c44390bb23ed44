package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
	"github.com/relchain/relchain/txn"
)

// intKey is the canonical key of a one-column integer primary key.
func intKey(t *testing.T, id int64) []byte {
	t.Helper()
	k, err := rowcanon.EncodeKey([]rowcanon.Value{rowcanon.Int(id)})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// errTableAbsent is verifyProof's verdict on a proof that the table is
// not in the tables map.
var errTableAbsent = errors.New("the table is not authenticated")

// proveAndVerify asks the executor for req's proof and checks it as a
// client must (client/proof.Verify, which app's tests may not import,
// does the same and more): the AppHash the executor committed (what the
// next header carries) from the response's base and tables root, then
// the chained proof of the rows. It returns the rows proved.
func proveAndVerify(t *testing.T, f *fixture, req api.ProofRequest) ([]api.ProofRow, error) {
	t.Helper()
	resp, err := f.ex.Prove(context.Background(), req)
	if err != nil {
		t.Fatalf("prove %+v: %v", req, err)
	}
	return resp.Rows, verifyProof(req, resp, f.ex.State().AppHash)
}

func verifyProof(req api.ProofRequest, resp api.ProofResponse, appHash []byte) error {
	var mapRoot [32]byte
	if len(resp.TablesRoot) != 32 || copy(mapRoot[:], resp.TablesRoot) != 32 || !bytes.Equal(api.AuthenticatedAppHash(resp.Version, resp.Base, mapRoot), appHash) {
		return errors.New("the response's base and tables root do not give the AppHash")
	}
	if resp.Table != req.Table || !bytes.Equal(resp.Key, req.Key) || !bytes.Equal(resp.Lo, req.Lo) || !bytes.Equal(resp.Hi, req.Hi) {
		return errors.New("the response answers another question")
	}
	if len(resp.TableAbsence) > 0 {
		p, err := statetree.UnmarshalCommitment(resp.TableAbsence)
		if err != nil {
			return err
		}
		key, err := statetree.TableKey(req.Table)
		if err != nil {
			return err
		}
		if err := statetree.VerifyNonExistence(mapRoot, key, p); err != nil {
			return err
		}
		return errTableAbsent
	}
	cp, err := statetree.UnmarshalChainedProof(resp.Proof)
	if err != nil {
		return err
	}
	switch {
	case req.IsRange():
		kv := make([]statetree.KV, len(resp.Rows))
		for i, r := range resp.Rows {
			kv[i] = statetree.KV{Key: r.Key, Value: r.Image}
		}
		return statetree.VerifyChainedRange(mapRoot, req.Table, req.Lo, req.Hi, kv, cp)
	case len(resp.Rows) == 1:
		return statetree.VerifyChainedExistence(mapRoot, req.Table, req.Key, resp.Rows[0].Image, cp)
	default:
		return statetree.VerifyChainedNonExistence(mapRoot, req.Table, req.Key, cp)
	}
}

// The query path proves rows of the latest block against its AppHash: a
// row, an absent key (between rows, below and above every row), ranges
// (empty, one row, across deletes, the whole table), and the absence of a
// table without a primary key from the tables map; every answer verifies
// with client/proof against the committed AppHash, on SQLite and
// PostgreSQL.
func TestProofsOfTheLatestBlockVerify(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL, bal numeric(12,2))"), stmt("CREATE TABLE loose (x int4)")))
			var txs [][]byte
			for id := int64(2); id <= 40; id += 2 {
				txs = append(txs, f.tx(stmt("INSERT INTO acct VALUES ($1, $2, $3)", txn.Int(id), txn.Text(fmt.Sprint("o'", id)), txn.Text("1.50"))))
			}
			f.block(txs...)
			f.block(f.tx(stmt("DELETE FROM acct WHERE id BETWEEN 10 AND 16"), stmt("INSERT INTO loose VALUES (1)")))
			f.block() // an empty block keeps the AppHash: the proof still verifies
			for _, c := range []struct {
				name string
				req  api.ProofRequest
				rows int
			}{
				{"row", api.ProofRequest{Table: "acct", Key: intKey(t, 20)}, 1},
				{"absent between", api.ProofRequest{Table: "acct", Key: intKey(t, 21)}, 0},
				{"deleted", api.ProofRequest{Table: "acct", Key: intKey(t, 12)}, 0},
				{"absent below", api.ProofRequest{Table: "acct", Key: intKey(t, -5)}, 0},
				{"absent above", api.ProofRequest{Table: "acct", Key: intKey(t, 99)}, 0},
				{"empty range", api.ProofRequest{Table: "acct", Lo: intKey(t, 11), Hi: intKey(t, 17)}, 0},
				{"one-row range", api.ProofRequest{Table: "acct", Lo: intKey(t, 17), Hi: intKey(t, 19)}, 1},
				{"across deletes", api.ProofRequest{Table: "acct", Lo: intKey(t, 4), Hi: intKey(t, 24)}, 7},
				{"whole table", api.ProofRequest{Table: "acct", Hi: []byte{0xff, 0xff}}, 16},
			} {
				rows, err := proveAndVerify(t, f, c.req)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if len(rows) != c.rows {
					t.Fatalf("%s: %d rows verified, want %d", c.name, len(rows), c.rows)
				}
			}
			if _, err := proveAndVerify(t, f, api.ProofRequest{Table: "loose", Key: intKey(t, 1)}); !errors.Is(err, errTableAbsent) {
				t.Fatalf("a table without a primary key: %v, want a verified absence from the tables map", err)
			}
			if _, err := proveAndVerify(t, f, api.ProofRequest{Table: "nosuch", Key: intKey(t, 1)}); !errors.Is(err, errTableAbsent) {
				t.Fatalf("a table that does not exist: %v, want a verified absence from the tables map", err)
			}
		})
	}
}

// A request the node cannot answer is refused with a reason, never
// answered with something else: a height above the latest, a chain
// of version 3. A key that cannot be a key of the table (a text for an
// integer key) is absent from its tree: the answer is a proof of that.
func TestProofRequestsRefused(t *testing.T) {
	s := authStores()[0]
	f := mustNewFixture(t, s, authParams(s, protocol.V4))
	f.dialect = "postgres"
	f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY)"), stmt("INSERT INTO acct VALUES (1), (3)")))
	f.block(f.tx(stmt("INSERT INTO acct VALUES (5)")))
	ctx := context.Background()
	text, _ := rowcanon.Text("one")
	textKey, err := rowcanon.EncodeKey([]rowcanon.Value{text})
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := proveAndVerify(t, f, api.ProofRequest{Table: "acct", Key: textKey}); err != nil || len(rows) != 0 {
		t.Errorf("a text key for an integer key: %d rows, %v; want a verified absence", len(rows), err)
	}
	if _, err := f.ex.Prove(ctx, api.ProofRequest{Table: "acct", Key: intKey(t, 1), Height: 9}); !errors.Is(err, app.ErrHeightUnavailable) || !strings.Contains(err.Error(), "latest committed block is 2") {
		t.Errorf("a proof at a height not reached: %v, want a refusal", err)
	}
	old := mustNewFixture(t, authStores()[0], authParams(s, protocol.V3))
	old.block(old.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY)")))
	if _, err := old.ex.Prove(ctx, api.ProofRequest{Table: "acct", Key: intKey(t, 1)}); !errors.Is(err, app.ErrNoProofs) {
		t.Errorf("a proof on a chain of version 3: %v, want ErrNoProofs", err)
	}
}
