package ycsb

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/internal/longtest"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) { workloadtest.Main(m) }

var dialects = []string{workload.SQLite, workload.Postgres, workload.MySQL}

const records = 2000

func newWorkload(t *testing.T, o Options) *Workload {
	t.Helper()
	w, err := New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return w
}

func TestWorkloadsRunAndKeepRecordsIntact(t *testing.T) {
	racetest.Heavy(t) // each workload in one stream: 19 s under -race
	for _, dialect := range dialects {
		t.Run(dialect, func(t *testing.T) {
			c := workloadtest.NewChain(t, dialect)
			loaded := false
			var applied []workload.Applied
			for i, name := range []string{"a", "b", "c", "f"} {
				dist := []string{Uniform, Zipfian, Latest, Zipfian}[i]
				w := newWorkload(t, Options{Records: records, Workload: name, Distribution: dist})
				if w.Name() != "ycsb-"+name {
					t.Fatalf("Name() = %q", w.Name())
				}
				if !loaded {
					c.Setup(w)
					c.Check(w, nil)
					loaded = true
				}
				got := c.Run(w, uint64(i+1), 3, 300, 30)
				writes := map[string]int{}
				for _, a := range got {
					if a.Code != api.CodeOK {
						t.Fatalf("ycsb-%s %s failed: code %d", name, a.WL.Kind, a.Code)
					}
					writes[a.WL.Kind]++
				}
				switch name {
				case "a":
					if writes[Update] < 100 || writes[Update] > 200 || len(writes) != 1 {
						t.Errorf("ycsb-a: writes %v in 300 wl-transactions, want about 150 updates", writes)
					}
				case "b":
					if writes[Update] == 0 || writes[Update] > 40 || len(writes) != 1 {
						t.Errorf("ycsb-b: writes %v in 300 wl-transactions, want about 15 updates", writes)
					}
				case "c":
					if len(got) != 0 {
						t.Errorf("ycsb-c wrote: %v", writes)
					}
				case "f":
					if writes[ReadModifyWrite] < 100 || writes[ReadModifyWrite] > 200 || len(writes) != 1 {
						t.Errorf("ycsb-f: writes %v in 300 wl-transactions, want about 150 read-modify-writes", writes)
					}
					for _, a := range got {
						if r := a.Results[0]; len(r.Rows) != 1 || len(r.Rows[0]) != 1+DefaultFields {
							t.Fatalf("read-modify-write read returned %v", r.Rows)
						}
					}
				}
				applied = append(applied, got...)
				// The check verifies the final values of every write so far.
				c.Check(w, applied)
			}
		})
	}
}

func TestCheckDetectsOutOfBandChanges(t *testing.T) {
	longtest.Require(t, "loads YCSB records on every database, once per tampering")
	w := newWorkload(t, Options{Records: records})
	k0, k1 := Key(0), Key(1)
	tampers := []struct{ what, sql, complaint string }{
		{"record deleted", "DELETE FROM usertable WHERE ycsb_key = '" + k0 + "'", "1999 records"},
		{"record added", "INSERT INTO usertable SELECT 'user1', field0, field1, field2, field3, field4, field5, field6, field7, field8, field9 FROM usertable WHERE ycsb_key = '" + k1 + "'", "2001 records"},
		{"field too short", "UPDATE usertable SET field3 = 'short' WHERE ycsb_key = '" + k0 + "'", "not 100 characters"},
		{"field too long", "UPDATE usertable SET field9 = field9 || 'x' WHERE ycsb_key = '" + k1 + "'", "not 100 characters"},
		{"field NULL", "UPDATE usertable SET field0 = NULL WHERE ycsb_key = '" + k1 + "'", "NULL"},
		{"key renamed", "UPDATE usertable SET ycsb_key = 'user0' WHERE ycsb_key = '" + k0 + "'", "unexpected key set"},
		{"updated field overwritten", "", "want the last value written"},
	}
	for _, dialect := range dialects {
		for _, tc := range tampers {
			t.Run(dialect+"/"+tc.what, func(t *testing.T) {
				c := workloadtest.NewChain(t, dialect)
				c.Setup(w)
				applied := c.Run(w, 5, 2, 200, 50)
				c.Check(w, applied)
				sql := tc.sql
				if dialect == workload.MySQL {
					sql = strings.ReplaceAll(sql, "field9 || 'x'", "CONCAT(field9, 'x')") // || is OR in MySQL
				}
				if sql == "" {
					// A value of the right length, but not the last one
					// written (the alphabet's letters are upper case).
					if len(applied) == 0 {
						t.Fatal("the run updated nothing")
					}
					upd := applied[len(applied)-1].WL.Statements[0]
					field := strings.Fields(upd.SQL)[3]
					sql = "UPDATE usertable SET " + field + " = lower(" + field + ") WHERE ycsb_key = '" + upd.Args[1].Text + "'"
				}
				if r := c.Block([]txn.Statement{{SQL: sql}})[0]; r.Code != api.CodeOK {
					t.Fatalf("%s: code %d: %s", sql, r.Code, r.Log)
				}
				err := w.Check(context.Background(), dialect, c, applied)
				if err == nil {
					t.Fatalf("Check passed after %s", sql)
				}
				if !strings.Contains(err.Error(), tc.complaint) {
					t.Fatalf("Check after %s: %v; want a complaint about %q", sql, err, tc.complaint)
				}
			})
		}
	}
}

func TestSetupLoadsInFewLargeBCTransactions(t *testing.T) {
	racetest.Heavy(t) // generates the full scale's setup: 62 s under -race
	w := newWorkload(t, Options{})
	for _, dialect := range dialects {
		bcs, err := w.Setup(dialect)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for i, st := range bcs[1:] {
			n := len(txn.Encode(&txn.Tx{ChainID: "a-long-chain-id-for-good-measure", Statements: st}))
			if n > workload.MaxSetupBytes || len(st) > workload.MaxSetupStatements {
				t.Fatalf("%s: bc-transaction %d: %d statements, %d bytes", dialect, i+1, len(st), n)
			}
			if i < len(bcs)-2 && n < workload.MaxSetupBytes*9/10 {
				t.Errorf("%s: bc-transaction %d holds only %d bytes", dialect, i+1, n)
			}
			for _, s := range st {
				if len(s.Args) > txn.MaxArgs {
					t.Fatalf("%s: statement with %d arguments", dialect, len(s.Args))
				}
				rows += len(s.Args) / 11
			}
		}
		if rows != DefaultRecords {
			t.Errorf("%s: setup inserts %d records, want %d", dialect, rows, DefaultRecords)
		}
		if len(bcs) < 100 || len(bcs) > 130 {
			t.Errorf("%s: %d setup bc-transactions for 100,000 records, want about 120", dialect, len(bcs))
		}
		t.Logf("%s: %d bc-transactions", dialect, len(bcs))
	}
}

func TestValuesAreDeterministicPrintableASCII(t *testing.T) {
	w := newWorkload(t, Options{Records: records, FieldLength: 37, Fields: 3})
	again := newWorkload(t, Options{Records: records, FieldLength: 37, Fields: 3})
	if w.InitialValue(5, 2) != again.InitialValue(5, 2) || w.InitialValue(5, 2) == w.InitialValue(5, 1) || w.InitialValue(5, 2) == w.InitialValue(6, 2) {
		t.Fatal("initial values are not a deterministic function of record and field")
	}
	g := w.Generator(workload.SQLite, 1, 0)
	vals := []string{w.InitialValue(0, 0)}
	for range 200 {
		if wl := g.Next(); !wl.ReadOnly {
			vals = append(vals, wl.Statements[0].Args[0].Text)
		}
	}
	for _, v := range vals {
		if len(v) != 37 {
			t.Fatalf("value %q has %d characters, want 37", v, len(v))
		}
		for _, c := range []byte(v) {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("value %q holds byte %#x", v, c)
			}
		}
	}
}

func stream(w *Workload, dialect string, seed uint64, client, n int) []workload.WL {
	g := w.Generator(dialect, seed, client)
	out := make([]workload.WL, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

func TestGeneratorIsDeterministicPerSeedAndClient(t *testing.T) {
	for _, dist := range []string{Uniform, Zipfian, Latest} {
		w := newWorkload(t, Options{Records: records, Workload: "f", Distribution: dist})
		a := stream(w, workload.SQLite, 3, 0, 200)
		if !reflect.DeepEqual(a, stream(w, workload.SQLite, 3, 0, 200)) {
			t.Fatalf("%s: same seed and client, different streams", dist)
		}
		if reflect.DeepEqual(a, stream(w, workload.SQLite, 3, 1, 200)) {
			t.Fatalf("%s: clients 0 and 1 gave the same stream", dist)
		}
		if reflect.DeepEqual(a, stream(w, workload.SQLite, 4, 0, 200)) {
			t.Fatalf("%s: seeds 3 and 4 gave the same stream", dist)
		}
	}
}

// draws counts the record numbers that n requests of dist pick.
func draws(t *testing.T, dist string, n int) []int {
	w := newWorkload(t, Options{Records: records, Workload: "c", Distribution: dist})
	rec := map[string]int{}
	for i := range records {
		rec[Key(int64(i))] = i
	}
	counts := make([]int, records)
	g := w.Generator(workload.SQLite, 77, 0)
	for range n {
		k := g.Next().Statements[0].Args[0].Text
		i, ok := rec[k]
		if !ok {
			t.Fatalf("%s: request for unknown key %q", dist, k)
		}
		counts[i]++
	}
	return counts
}

func TestRequestDistributions(t *testing.T) {
	const n = 50_000
	top := func(c []int, k int) float64 {
		s := slices.Clone(c)
		slices.Sort(s)
		slices.Reverse(s)
		sum := 0
		for _, x := range s[:k] {
			sum += x
		}
		return float64(sum) / n
	}
	covered := func(c []int) int {
		k := 0
		for _, x := range c {
			if x > 0 {
				k++
			}
		}
		return k
	}

	uni := draws(t, Uniform, n)
	if covered(uni) != records {
		t.Errorf("uniform: %d of %d records requested in %d requests", covered(uni), records, n)
	}
	if got := top(uni, 20); got > 0.02 {
		t.Errorf("uniform: the 1 %% most requested records got %.3f of the requests", got)
	}
	first, second := 0, 0
	for i, x := range uni {
		if i < records/2 {
			first += x
		} else {
			second += x
		}
	}
	if d := float64(first-second) / n; d > 0.03 || d < -0.03 {
		t.Errorf("uniform: halves got %d and %d requests", first, second)
	}

	zipf := draws(t, Zipfian, n)
	// Zipf 0.99 over YCSB's 10^10 items: the hottest item alone has
	// 1/zeta ≈ 3.8 % of the mass; scrambled, it is some record.
	if got := top(zipf, 1); got < 0.03 {
		t.Errorf("zipfian: the most requested record got %.3f of the requests, want > 0.03", got)
	}
	if got := top(zipf, 20); got < 0.15 {
		t.Errorf("zipfian: the 1 %% most requested records got %.3f of the requests, want > 0.15", got)
	}
	if hot := slices.Index(zipf, slices.Max(zipf)); hot == 0 || hot == records-1 {
		t.Errorf("zipfian: the hottest record is %d, not scrambled", hot)
	}

	latest := draws(t, Latest, n)
	if hot := slices.Index(latest, slices.Max(latest)); hot != records-1 {
		t.Errorf("latest: the hottest record is %d, want the last inserted %d", hot, records-1)
	}
	if latest[records-1] <= latest[records-2] || latest[records-2] <= latest[records-10] || latest[records-10] <= latest[records/2] {
		t.Errorf("latest: requests of records n-1, n-2, n-10, n/2 = %d, %d, %d, %d: not decreasing with age",
			latest[records-1], latest[records-2], latest[records-10], latest[records/2])
	}
	recent := 0
	for _, x := range latest[records-records/100:] {
		recent += x
	}
	if got := float64(recent) / n; got < 0.3 {
		t.Errorf("latest: the newest 1 %% of records got %.3f of the requests, want > 0.3", got)
	}
}

func TestWorkloadMixes(t *testing.T) {
	for name, want := range map[string]struct {
		reads float64
		kind  string
	}{"a": {0.5, Update}, "b": {0.95, Update}, "c": {1, ""}, "f": {0.5, ReadModifyWrite}} {
		w := newWorkload(t, Options{Records: records, Workload: name})
		const n = 10_000
		reads := 0
		for _, wl := range stream(w, workload.Postgres, 1, 0, n) {
			switch {
			case wl.Kind == Read && wl.ReadOnly && len(wl.Statements) == 1:
				reads++
			case wl.Kind != want.kind || wl.ReadOnly:
				t.Fatalf("ycsb-%s: unexpected %s (read-only %v)", name, wl.Kind, wl.ReadOnly)
			}
		}
		if got := float64(reads) / n; got < want.reads-0.02 || got > want.reads+0.02 {
			t.Errorf("ycsb-%s: %.3f reads, want %.2f", name, got, want.reads)
		}
	}
}

// TestMixOverridesTheLetter: the Fabric-vs-Cassandra study's mixes (95/5,
// 50/50, 5/95) from weights of Read and the letter's write kind.
func TestMixOverridesTheLetter(t *testing.T) {
	for _, c := range []struct {
		name  string
		mix   map[string]int
		reads float64
	}{
		{"a", map[string]int{Read: 5, Update: 95}, 0.05},
		{"a", map[string]int{Update: 1}, 0},
		{"f", map[string]int{Read: 95, ReadModifyWrite: 5}, 0.95},
	} {
		w := newWorkload(t, Options{Records: records, Workload: c.name, Mix: c.mix})
		const n = 10_000
		reads := 0
		for _, wl := range stream(w, workload.Postgres, 1, 0, n) {
			if wl.Kind == Read {
				reads++
			}
		}
		if got := float64(reads) / n; got < c.reads-0.02 || got > c.reads+0.02 {
			t.Errorf("ycsb-%s mix %v: %.3f reads, want %.2f", c.name, c.mix, got, c.reads)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Workload: "a", Mix: map[string]int{ReadModifyWrite: 1}},
		{Workload: "a", Mix: map[string]int{"Insert": 1}},
		{Workload: "e"},
		{Distribution: "hotspot"},
		{Records: 1},
		{Fields: txn.MaxArgs},
		{FieldLength: workload.MaxSetupBytes},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestKeysFollowYCSB(t *testing.T) {
	// YCSB's Utils.fnvhash64(0) and (1), as its CoreWorkload names them.
	if got := Key(0); got != "user6284781860667377211" {
		t.Errorf("Key(0) = %s", got)
	}
	if Key(1) == Key(0) || !strings.HasPrefix(Key(1), "user") {
		t.Errorf("Key(1) = %s", Key(1))
	}
}

func TestCustomRecordShape(t *testing.T) {
	for _, dialect := range dialects {
		t.Run(dialect, func(t *testing.T) {
			w := newWorkload(t, Options{Records: 500, Fields: 3, FieldLength: 10, Workload: "f", Distribution: Latest})
			c := workloadtest.NewChain(t, dialect)
			c.Setup(w)
			applied := c.Run(w, 1, 2, 100, 25)
			if len(applied) == 0 {
				t.Fatal("no read-modify-write ran")
			}
			if r := applied[0].Results[0]; len(r.Rows) != 1 || len(r.Rows[0]) != 4 {
				t.Fatalf("read of a 3-field record returned %v", r.Rows)
			}
			c.Check(w, applied)
			if r := c.Block([]txn.Statement{{SQL: "UPDATE usertable SET field2 = '0123456789x' WHERE ycsb_key = '" + Key(7) + "'"}})[0]; r.Code != api.CodeOK {
				t.Fatalf("tamper: code %d: %s", r.Code, r.Log)
			}
			if err := w.Check(context.Background(), dialect, c, applied); err == nil || !strings.Contains(err.Error(), "not 10 characters") {
				t.Fatalf("Check after an 11-character field: %v", err)
			}
		})
	}
}
