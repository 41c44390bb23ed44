package smallbank

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/internal/longtest"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) { workloadtest.Main(m) }

var dialects = []string{workload.SQLite, workload.Postgres, workload.MySQL}

func newWorkload(t *testing.T, o Options) *Workload {
	t.Helper()
	w, err := New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return w
}

// kindsOf counts the kinds the generators of Run produce (reads included,
// which Run does not return).
func kindsOf(w *Workload, dialect string, seed uint64, clients, n int) map[string]int {
	gens := make([]workload.Generator, clients)
	for i := range gens {
		gens[i] = w.Generator(dialect, seed, i)
	}
	counts := map[string]int{}
	for i := range n {
		counts[gens[i%clients].Next().Kind]++
	}
	return counts
}

func TestMixedRunKeepsMoneyConsistent(t *testing.T) {
	longtest.Require(t, "a mixed Smallbank run on every database")
	runs := []Options{{Distribution: Uniform}, {Distribution: Zipf}, {Distribution: Uniform, Keys: ByID}}
	for _, dialect := range dialects {
		for _, o := range runs {
			name := dialect + "/" + o.Distribution
			if o.Keys != "" {
				name += "/by-" + o.Keys
			}
			t.Run(name, func(t *testing.T) {
				o.Accounts = 1000
				w := newWorkload(t, o)
				c := workloadtest.NewChain(t, dialect)
				c.Setup(w)
				c.Check(w, nil)

				const seed, clients, n = 42, 4, 400
				for _, k := range Kinds {
					if kindsOf(w, dialect, seed, clients, n)[k] == 0 {
						t.Fatalf("the run has no %s", k)
					}
				}
				applied := c.Run(w, seed, clients, n, 25)
				committed := map[string]int{}
				var moved int64
				for _, a := range applied {
					if a.Code == api.CodeOK {
						committed[a.WL.Kind]++
						d, err := effect(a, dialect == workload.MySQL)
						if err != nil {
							t.Fatal(err)
						}
						moved += d
					}
				}
				for _, k := range Kinds {
					if k != Balance && committed[k] == 0 {
						t.Errorf("no %s committed (committed: %v)", k, committed)
					}
				}
				if moved == 0 {
					t.Fatal("the run did not change the total money: the check would not test the effects")
				}
				c.Check(w, applied)
			})
		}
	}
}

func TestCheckDetectsOutOfBandChanges(t *testing.T) {
	longtest.Require(t, "loads Smallbank on every database, once per tampering")
	tampers := []struct{ what, sql string }{
		{"balance changed", "UPDATE checking SET bal = bal + 1 WHERE custid = 17"},
		{"money moved to a missing customer", "UPDATE savings SET custid = 5000 WHERE custid = 3"},
		{"account deleted", "DELETE FROM accounts WHERE custid = 999"},
		{"account added", "INSERT INTO accounts (custid, name) VALUES (1001, 'customer1001')"},
		{"name changed", "UPDATE accounts SET name = 'mallory' WHERE custid = 12"},
	}
	for _, dialect := range dialects {
		for _, tc := range tampers {
			t.Run(dialect+"/"+tc.what, func(t *testing.T) {
				w := newWorkload(t, Options{Accounts: 1000})
				c := workloadtest.NewChain(t, dialect)
				c.Setup(w)
				applied := c.Run(w, 7, 2, 100, 50)
				c.Check(w, applied)
				if r := c.Block([]txn.Statement{{SQL: tc.sql}})[0]; r.Code != api.CodeOK {
					t.Fatalf("%s: code %d: %s", tc.sql, r.Code, r.Log)
				}
				err := w.Check(context.Background(), dialect, c, applied)
				if err == nil {
					t.Fatalf("Check passed after %s", tc.sql)
				}
				t.Logf("%v", err)
			})
		}
	}
}

func TestCheckCountsEveryCommittedEffect(t *testing.T) {
	w := newWorkload(t, Options{Accounts: 1000, Mix: map[string]int{DepositChecking: 1}})
	c := workloadtest.NewChain(t, workload.SQLite)
	c.Setup(w)
	applied := c.Run(w, 1, 1, 10, 5)
	c.Check(w, applied)
	if err := w.Check(context.Background(), workload.SQLite, c, applied[1:]); err == nil {
		t.Fatal("Check passed with a committed deposit left out of the applied list")
	}
	failed := append([]workload.Applied(nil), applied...)
	failed[0].Code = 1
	if err := w.Check(context.Background(), workload.SQLite, c, failed); err == nil {
		t.Fatal("Check passed with a committed deposit reported as failed")
	}
}

// one returns the first wl-transaction of kind from a generator, with
// numbered placeholders and one argument each even on MySQL (run
// converts it), so that tests can change its arguments by number.
func one(t *testing.T, dialect, kind string, accounts int) workload.WL {
	t.Helper()
	w := newWorkload(t, Options{Accounts: accounts, Mix: map[string]int{kind: 1}})
	return w.Generator(dialect, 3, 0).(*generator).next()
}

func run(t *testing.T, c *workloadtest.Chain, wl workload.WL) (workload.Applied, string) {
	t.Helper()
	wl = workload.ForDialect(c.Dialect, wl)
	r := c.Block(wl.Statements)[0]
	return workload.Applied{WL: wl, Code: r.Code, Results: r.Results}, r.Log
}

func TestBusinessRulesFailInsideTheDatabase(t *testing.T) {
	for _, dialect := range dialects {
		t.Run(dialect, func(t *testing.T) {
			w := newWorkload(t, Options{Accounts: 100})
			c := workloadtest.NewChain(t, dialect)
			c.Setup(w)
			var applied []workload.Applied

			// A payment larger than the sender's checking balance fails
			// and rolls back both updates.
			pay := one(t, dialect, SendPayment, 100)
			for i := range pay.Statements {
				pay.Statements[i].Args[0] = txn.Int(1_000_000_000)
			}
			if !pay.MayFail {
				t.Error("SendPayment is not marked MayFail")
			}
			a, log := run(t, c, pay)
			if a.Code == api.CodeOK {
				t.Fatal("SendPayment with insufficient funds committed")
			}
			if !strings.Contains(strings.ToLower(log), "null") {
				t.Errorf("SendPayment with insufficient funds failed with %q, want the NOT NULL violation", log)
			}
			applied = append(applied, a)
			c.Check(w, applied)

			// A withdrawal larger than the savings balance fails.
			ts := one(t, dialect, TransactSavings, 100)
			ts.Statements[0].Args[0] = txn.Int(-1_000_000_000)
			if !ts.MayFail {
				t.Error("TransactSavings is not marked MayFail")
			}
			a, log = run(t, c, ts)
			if a.Code == api.CodeOK {
				t.Fatal("TransactSavings overdrawing savings committed")
			}
			if l := strings.ToLower(log); !strings.Contains(l, "check") && !strings.Contains(l, "constraint") {
				t.Errorf("TransactSavings overdrawing savings failed with %q, want the CHECK violation", log)
			}
			applied = append(applied, a)

			// A check larger than the total balance is paid with the
			// overdraft penalty, and the results tell it.
			wc := one(t, dialect, WriteCheck, 100)
			const big = 1_000_000_000
			wc.Statements[1].Args[0] = txn.Int(big)
			a, _ = run(t, c, wc)
			if a.Code != api.CodeOK {
				t.Fatalf("WriteCheck overdraft failed: code %d", a.Code)
			}
			if d, err := Effect(a); err != nil || d != -big-OverdraftPenalty {
				t.Fatalf("WriteCheck overdraft effect = %d, %v; want %d", d, err, -big-OverdraftPenalty)
			}
			applied = append(applied, a)
			c.Check(w, applied)

			// A covered check costs exactly its amount.
			wc = one(t, dialect, WriteCheck, 100)
			wc.Statements[1].Args[0] = txn.Int(5)
			wc.Statements[0].Args[0] = txn.Text(Name(50))
			wc.Statements[1].Args[1] = txn.Text(Name(50))
			a, _ = run(t, c, wc)
			if d, err := Effect(a); a.Code != api.CodeOK || err != nil || d != -5 {
				t.Fatalf("covered WriteCheck: code %d, effect %d, %v; want effect -5", a.Code, d, err)
			}
			applied = append(applied, a)

			// Amalgamate empties the source into the destination's checking.
			am := one(t, dialect, Amalgamate, 100)
			src, dst := am.Statements[0].Args[0].Int, am.Statements[0].Args[1].Int
			before := totals(t, c, src, dst)
			a, _ = run(t, c, am)
			if a.Code != api.CodeOK {
				t.Fatalf("Amalgamate failed: code %d", a.Code)
			}
			applied = append(applied, a)
			after := totals(t, c, src, dst)
			if after[0] != 0 || after[1] != before[0]+before[1] {
				t.Fatalf("Amalgamate %d into %d: totals %v before, %v after", src, dst, before, after)
			}
			c.Check(w, applied)
		})
	}
}

// totals returns the total balances of customers a and b.
func totals(t *testing.T, c *workloadtest.Chain, a, b int64) [2]int64 {
	t.Helper()
	var out [2]int64
	for i, id := range []int64{a, b} {
		q, args, err := workload.QueryArgs(c.Dialect, "SELECT s.bal + c.bal FROM savings s JOIN checking c ON c.custid = s.custid WHERE s.custid = "+workload.Placeholder(c.Dialect, 1), []any{id})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := c.Query(context.Background(), q, args...)
		if err != nil {
			t.Fatal(err)
		}
		v, err := workload.Int(rows[0][0])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
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
	for _, dist := range []string{Uniform, Zipf} {
		w := newWorkload(t, Options{Distribution: dist})
		a := stream(w, workload.Postgres, 9, 1, 300)
		if !reflect.DeepEqual(a, stream(w, workload.Postgres, 9, 1, 300)) {
			t.Fatalf("%s: the same seed and client gave different streams", dist)
		}
		if reflect.DeepEqual(a, stream(w, workload.Postgres, 9, 2, 300)) {
			t.Fatalf("%s: clients 1 and 2 gave the same stream", dist)
		}
		if reflect.DeepEqual(a, stream(w, workload.Postgres, 10, 1, 300)) {
			t.Fatalf("%s: seeds 9 and 10 gave the same stream", dist)
		}
		s := stream(w, workload.SQLite, 9, 1, 300)
		for i := range s {
			if !reflect.DeepEqual(s[i].Statements[0].Args, a[i].Statements[0].Args) || s[i].Kind != a[i].Kind {
				t.Fatalf("%s: wl-transaction %d differs between dialects beyond the placeholders", dist, i)
			}
			if strings.Contains(s[i].Statements[0].SQL, "$") || strings.Contains(a[i].Statements[0].SQL, "?") {
				t.Fatalf("%s: wrong placeholders: %q / %q", dist, s[i].Statements[0].SQL, a[i].Statements[0].SQL)
			}
		}
	}
}

func TestMixFollowsWeights(t *testing.T) {
	w := newWorkload(t, Options{})
	const n = 20_000
	counts := kindsOf(w, workload.SQLite, 5, 3, n)
	for k, pct := range DefaultMix {
		got := float64(counts[k]) / n * 100
		if got < float64(pct)-1.5 || got > float64(pct)+1.5 {
			t.Errorf("%s: %.1f %% of the mix, want %d %%", k, got, pct)
		}
	}
	w = newWorkload(t, Options{Mix: map[string]int{SendPayment: 3, Balance: 1}})
	counts = kindsOf(w, workload.SQLite, 5, 1, 1000)
	if len(counts) != 2 || counts[SendPayment] < 2*counts[Balance] {
		t.Fatalf("mix {SendPayment: 3, Balance: 1} gave %v", counts)
	}
}

// accountsDrawn counts the customers that Balance wl-transactions name.
func accountsDrawn(t *testing.T, dist string, n int) map[string]int {
	w := newWorkload(t, Options{Accounts: 1000, Distribution: dist, Mix: map[string]int{Balance: 1}})
	counts := map[string]int{}
	g := w.Generator(workload.SQLite, 11, 0)
	for range n {
		counts[g.Next().Statements[0].Args[0].Text]++
	}
	return counts
}

func TestZipfIsSkewedTowardLowIDs(t *testing.T) {
	const n = 20_000
	uni, zipf := accountsDrawn(t, Uniform, n), accountsDrawn(t, Zipf, n)
	// Zipf s = 1.1 over 1,000 ranks: rank 1 has ~1/zeta ≈ 1/7.9 of the mass.
	if got := float64(zipf[Name(1)]) / n; got < 0.08 {
		t.Errorf("zipf: customer 1 drawn %.3f of the time, want > 0.08", got)
	}
	if zipf[Name(1)] <= zipf[Name(2)] || zipf[Name(2)] <= zipf[Name(10)] {
		t.Errorf("zipf: counts of customers 1, 2, 10 = %d, %d, %d: not decreasing", zipf[Name(1)], zipf[Name(2)], zipf[Name(10)])
	}
	if got := float64(uni[Name(1)]) / n; got > 0.005 {
		t.Errorf("uniform: customer 1 drawn %.3f of the time", got)
	}
	if len(uni) < 990 {
		t.Errorf("uniform: only %d of 1,000 customers drawn in %d draws", len(uni), n)
	}
	if len(zipf) > len(uni) {
		t.Errorf("zipf drew %d distinct customers, uniform %d", len(zipf), len(uni))
	}
}

func TestTwoAccountKindsUseDistinctAccounts(t *testing.T) {
	for _, dist := range []string{Uniform, Zipf} {
		w := newWorkload(t, Options{Accounts: 2, Distribution: dist, Mix: map[string]int{SendPayment: 1, Amalgamate: 1}})
		g := w.Generator(workload.SQLite, 1, 0)
		for range 500 {
			wl := g.Next()
			var a, b int64
			if wl.Kind == SendPayment {
				a, b = wl.Statements[0].Args[1].Int, wl.Statements[1].Args[1].Int
			} else {
				a, b = wl.Statements[0].Args[0].Int, wl.Statements[0].Args[1].Int
			}
			if a == b || a < 1 || b < 1 || a > 2 || b > 2 {
				t.Fatalf("%s %s: accounts %d and %d", dist, wl.Kind, a, b)
			}
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Accounts: 1},
		{Distribution: "gaussian"},
		{Mix: map[string]int{"NewOrder": 1}},
		{Mix: map[string]int{Balance: -1, SendPayment: 2}},
		{Mix: map[string]int{Balance: 0}},
		{Keys: "email"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func TestDefaultSetupFitsTheLimits(t *testing.T) {
	w := newWorkload(t, Options{})
	for _, dialect := range dialects {
		bcs, err := w.Setup(dialect)
		if err != nil {
			t.Fatal(err)
		}
		if len(bcs) > 10 {
			t.Errorf("%s: %d setup bc-transactions for 100,000 accounts", dialect, len(bcs))
		}
		for i, st := range bcs {
			if n := len(txn.Encode(&txn.Tx{Statements: st})); n > workload.MaxSetupBytes || len(st) > workload.MaxSetupStatements {
				t.Errorf("%s: bc-transaction %d: %d statements, %d bytes", dialect, i, len(st), n)
			}
		}
	}
}

func TestDefaultScaleSetupOnSQLite(t *testing.T) {
	racetest.Heavy(t) // one stream of setup blocks: 103 s under -race
	w := newWorkload(t, Options{})
	c := workloadtest.NewChain(t, workload.SQLite)
	start := time.Now()
	c.Setup(w)
	t.Logf("setup of %d accounts on SQLite: %v", w.Accounts(), time.Since(start))
	c.Check(w, nil)
}
