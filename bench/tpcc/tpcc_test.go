package tpcc_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) { workloadtest.Main(m) }

// dialects are those whose statements the tests below take apart by
// argument position; allDialects adds MySQL, whose statements are the
// SQLite form rewritten (gen_mysql.go).
var (
	dialects    = []string{workload.SQLite, workload.Postgres}
	allDialects = []string{workload.SQLite, workload.Postgres, workload.MySQL}
)

var allKinds = map[string]int{tpcc.NewOrder: 45, tpcc.Payment: 43, tpcc.OrderStatus: 12}

// tiny is a small scale: 2 warehouses of 3 districts, 60 customers and 30
// initial orders per district, 200 items.
func tiny(t *testing.T, mix map[string]int) *tpcc.Workload {
	t.Helper()
	w, err := tpcc.New(tpcc.Options{Warehouses: 2, Districts: 3, Customers: 60, Items: 200, Orders: 30, Mix: mix})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func setup(t *testing.T, dialect string, w *tpcc.Workload) *workloadtest.Chain {
	t.Helper()
	c := workloadtest.NewChain(t, dialect)
	start := time.Now()
	c.Setup(w)
	t.Logf("%s setup: %v", dialect, time.Since(start))
	return c
}

func query(t *testing.T, c *workloadtest.Chain, sql string) [][]any {
	t.Helper()
	rows, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

// one reads one integer.
func one(t *testing.T, c *workloadtest.Chain, sql string) int64 {
	t.Helper()
	rows := query(t, c, sql)
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: %v, want one value", sql, rows)
	}
	n, err := workload.Int(rows[0][0])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// cents is a money column (or sum) as integer cents on both dialects.
func cents(dialect, col string) string {
	if dialect == workload.Postgres {
		return "CAST(" + col + " * 100 AS BIGINT)"
	}
	return col
}

// exec runs statements as one bc-transaction in a block and fails the
// test unless it commits.
func exec(t *testing.T, c *workloadtest.Chain, sqls ...string) {
	t.Helper()
	stmts := make([]txn.Statement, len(sqls))
	for i, q := range sqls {
		stmts[i] = txn.Statement{SQL: q}
	}
	if r := c.Block(stmts)[0]; r.Code != api.CodeOK {
		t.Fatalf("%v: code %d: %s", sqls, r.Code, r.Log)
	}
}

func TestSetupPopulatesTheSpecifiedCardinalities(t *testing.T) {
	for _, d := range allDialects {
		t.Run(d, func(t *testing.T) {
			w := tiny(t, nil)
			c := setup(t, d, w)
			for table, want := range map[string]int64{
				"warehouse": 2, "district": 6, "customer": 360, "history": 360, "item": 200, "stock": 400,
				"orders": 180, "new_order": 6 * 9,
			} {
				if got := one(t, c, "SELECT count(*) FROM "+table); got != want {
					t.Errorf("%s: %d rows, want %d", table, got, want)
				}
			}
			if n := one(t, c, "SELECT count(*) FROM order_line"); n < 180*5 || n > 180*15 {
				t.Errorf("order_line: %d rows, want 5..15 per order", n)
			}
			if n := one(t, c, "SELECT count(*) FROM order_line WHERE ol_delivery_d IS NULL"); n != one(t, c, "SELECT sum(o_ol_cnt) FROM orders WHERE o_carrier_id IS NULL") {
				t.Errorf("%d undelivered order lines, want those of the undelivered orders", n)
			}
			if n := one(t, c, "SELECT count(*) FROM orders o JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id WHERE o.o_carrier_id IS NULL AND o.o_id > 21"); n != 54 {
				t.Errorf("%d undelivered orders 22..30 in new_order, want 54", n)
			}
			if n := one(t, c, "SELECT count(DISTINCT c_last) FROM customer"); n != 60 {
				t.Errorf("%d distinct C_LAST, want 60 (names 0..59)", n)
			}
			if n := one(t, c, "SELECT count(*) FROM customer WHERE c_id = 1 AND c_last = 'BARBARBAR'"); n != 6 {
				t.Errorf("customer 1 of each district named BARBARBAR: %d, want 6", n)
			}
			if n := one(t, c, "SELECT count(*) FROM customer WHERE c_id = 60 AND c_last = '"+tpcc.LastName(59)+"'"); n != 6 {
				t.Errorf("customer 60 of each district named %s: %d, want 6", tpcc.LastName(59), n)
			}
			if n := one(t, c, "SELECT count(DISTINCT o_c_id) FROM orders WHERE o_w_id = 1 AND o_d_id = 1"); n != 30 {
				t.Errorf("initial orders of district 1/1 have %d distinct customers, want 30 (a permutation of 60 customers' first 30 images)", n)
			}
			if n := one(t, c, "SELECT count(*) FROM item WHERE i_data LIKE '%ORIGINAL%'"); n < 5 || n > 50 {
				t.Errorf("%d of 200 items with ORIGINAL, want about 10 %%", n)
			}
			if n := one(t, c, "SELECT count(*) FROM customer WHERE c_credit = 'BC'"); n < 10 || n > 80 {
				t.Errorf("%d of 360 customers with bad credit, want about 10 %%", n)
			}
			if n := one(t, c, "SELECT count(*) FROM stock WHERE s_quantity < 10 OR s_quantity > 100 OR length(s_dist_07) <> 24"); n != 0 {
				t.Errorf("%d stock rows out of spec", n)
			}
			if n := one(t, c, "SELECT "+cents(d, "sum(w_ytd)")+" FROM warehouse"); n != 2*3*tpcc.InitialDYTD {
				t.Errorf("sum(W_YTD) = %d cents, want %d", n, 2*3*tpcc.InitialDYTD)
			}
			c.Check(w, nil)
		})
	}
}

// stats are sums over the state that the transactions change.
type stats struct {
	nextO, orders, lines, newOrders, history, sYTD, wYTD, balance int64
}

func readStats(t *testing.T, c *workloadtest.Chain) stats {
	d := c.Dialect
	return stats{
		nextO:     one(t, c, "SELECT sum(d_next_o_id) FROM district"),
		orders:    one(t, c, "SELECT count(*) FROM orders"),
		lines:     one(t, c, "SELECT count(*) FROM order_line"),
		newOrders: one(t, c, "SELECT count(*) FROM new_order"),
		history:   one(t, c, "SELECT count(*) FROM history"),
		sYTD:      one(t, c, "SELECT sum(s_ytd) FROM stock"),
		wYTD:      one(t, c, "SELECT "+cents(d, "sum(w_ytd)")+" FROM warehouse"),
		balance:   one(t, c, "SELECT "+cents(d, "sum(c_balance)")+" FROM customer"),
	}
}

// Argument positions of the generated statements, per dialect.
func olCnt(t *testing.T, d string, wl workload.WL) int64 {
	if d == workload.Postgres {
		return wl.Statements[0].Args[3].Int
	}
	return wl.Statements[2].Args[4].Int
}

func qtySum(t *testing.T, d string, wl workload.WL) int64 {
	var sum int64
	if d == workload.Postgres {
		for _, q := range strings.Split(wl.Statements[0].Args[8].Text, ",") {
			var n int64
			fmt.Sscan(q, &n)
			sum += n
		}
		return sum
	}
	args := wl.Statements[5].Args[1:]
	for i := 2; i < len(args); i += 3 {
		sum += args[i].Int
	}
	return sum
}

func paymentCents(d string, wl workload.WL) int64 {
	if d == workload.Postgres {
		return wl.Statements[0].Args[6].Int
	}
	return wl.Statements[0].Args[0].Int
}

func TestRunOfEveryKindAppliesExactlyTheCommittedTransactions(t *testing.T) {
	racetest.Heavy(t) // every kind of transaction in one stream: 23 s under -race
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			w := tiny(t, allKinds)
			c := setup(t, d, w)
			before := readStats(t, c)
			start := time.Now()
			applied := c.Run(w, 7, 4, 600, 20)
			t.Logf("%d writes in %v", len(applied), time.Since(start))
			want := before
			kinds := map[string]int{}
			rolledBack := 0
			for _, a := range applied {
				kinds[a.WL.Kind]++
				if a.Code != api.CodeOK {
					if a.WL.Kind != tpcc.NewOrder || !a.WL.MayFail {
						t.Errorf("%s failed (code %d) without MayFail", a.WL.Kind, a.Code)
					}
					rolledBack++
					continue
				}
				if a.WL.MayFail {
					t.Errorf("%s with an unused item committed", a.WL.Kind)
				}
				switch a.WL.Kind {
				case tpcc.NewOrder:
					want.nextO++
					want.orders++
					want.newOrders++
					want.lines += olCnt(t, d, a.WL)
					want.sYTD += qtySum(t, d, a.WL)
				case tpcc.Payment:
					want.history++
					want.wYTD += paymentCents(d, a.WL)
					want.balance -= paymentCents(d, a.WL)
				}
			}
			if kinds[tpcc.NewOrder] < 200 || kinds[tpcc.Payment] < 200 {
				t.Fatalf("writes by kind %v: want a few hundred of each", kinds)
			}
			if rolledBack == 0 {
				t.Errorf("no NewOrder rolled back among %d", kinds[tpcc.NewOrder])
			}
			if got := readStats(t, c); got != want {
				t.Errorf("state after the run:\n got %+v\nwant %+v (from the %d committed writes)", got, want, len(applied)-rolledBack)
			}
			t.Logf("kinds %v, %d NewOrders rolled back", kinds, rolledBack)
			c.Check(w, applied)
		})
	}
}

func TestNewOrderWithAnUnusedItemRollsBackEntirely(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			w := tiny(t, map[string]int{tpcc.NewOrder: 1})
			c := setup(t, d, w)
			g := w.Generator(d, 1, 0)
			var bad, good workload.WL
			for bad.Kind == "" || good.Kind == "" {
				wl := g.Next()
				if wl.MayFail && bad.Kind == "" {
					bad = wl
				} else if !wl.MayFail && good.Kind == "" {
					good = wl
				}
			}
			before := readStats(t, c)
			r := c.Block(bad.Statements, good.Statements)
			if r[0].Code == api.CodeOK {
				t.Fatalf("NewOrder with an unused item committed")
			}
			wantLog := "NOT NULL constraint failed: order_line.ol_amount"
			if d == workload.Postgres {
				wantLog = fmt.Sprintf("tpcc: item number %d is not valid", w.Options().Items+1)
			}
			if !strings.Contains(r[0].Log, wantLog) {
				t.Errorf("rollback log %q, want it to say %q", r[0].Log, wantLog)
			}
			if r[1].Code != api.CodeOK {
				t.Fatalf("valid NewOrder in the same block failed: %s", r[1].Log)
			}
			want := before
			want.nextO++
			want.orders++
			want.newOrders++
			want.lines += olCnt(t, d, good)
			want.sYTD += qtySum(t, d, good)
			if got := readStats(t, c); got != want {
				t.Errorf("after one rolled back and one committed NewOrder:\n got %+v\nwant %+v", got, want)
			}
			c.Check(w, nil)
		})
	}
}

func TestCheckDetectsEachViolatedCondition(t *testing.T) {
	racetest.Heavy(t) // one stream, then each condition broken in turn: 14 s under -race
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			w := tiny(t, nil)
			c := setup(t, d, w)
			c.Run(w, 3, 2, 60, 10)
			c.Check(w, nil)
			for _, tc := range []struct {
				name, break_, repair string
				want                 []string
			}{
				{"W_YTD changed", "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 2", "UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 2",
					[]string{"condition 1 violated: warehouse 2: W_YTD"}},
				{"D_NEXT_O_ID changed", "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 2",
					"UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 2",
					[]string{"condition 2 violated: warehouse 1 district 2: D_NEXT_O_ID - 1 = "}},
				{"new order missing in the middle", "DELETE FROM new_order WHERE no_w_id = 2 AND no_d_id = 3 AND no_o_id = 25",
					"INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (2, 3, 25)",
					[]string{"condition 3 violated: warehouse 2 district 3: max(NO_O_ID) - min(NO_O_ID) + 1 = "}},
				{"order line missing", "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 5",
					"", []string{"condition 4 violated: warehouse 1 district 1: sum(O_OL_CNT) = "}},
			} {
				exec(t, c, tc.break_)
				err := w.Check(context.Background(), d, c, nil)
				if err == nil {
					t.Fatalf("%s: Check passed", tc.name)
				}
				for _, s := range tc.want {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("%s: Check error %q does not say %q", tc.name, err, s)
					}
				}
				t.Logf("%s: %v", tc.name, err)
				if tc.repair != "" {
					exec(t, c, tc.repair)
					c.Check(w, nil)
				}
			}
		})
	}
}

// Names of the runs of PostgreSQL's statement form (Options.Statements).
const (
	stmtsOnPG     = "postgres statements"
	stmtsOnSQLite = "postgres statements, postgres dialect on sqlite"
)

// The same stream on every dialect reaches the same state: SQLite's
// statements, PostgreSQL's procedures, MySQL's statements and
// PostgreSQL's statement form, on PostgreSQL and translated onto SQLite,
// do the same thing.
func TestDialectsReachTheSameState(t *testing.T) {
	racetest.Heavy(t) // one stream on each database in turn: 29 s under -race
	w := tiny(t, allKinds)
	tables := map[string]string{
		"warehouse":  "w_id, w_name, w_street_1, w_zip, $w_tax, $$w_ytd",
		"district":   "d_w_id, d_id, d_name, d_city, $d_tax, $$d_ytd, d_next_o_id",
		"customer":   "c_w_id, c_d_id, c_id, c_first, c_last, c_phone, c_credit, $c_discount, $$c_balance, $$c_ytd_payment, c_payment_cnt, c_data",
		"history":    "h_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, $$h_amount, h_data",
		"orders":     "o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local",
		"new_order":  "no_w_id, no_d_id, no_o_id",
		"order_line": "ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, $$ol_amount, ol_dist_info",
		"item":       "i_id, i_im_id, i_name, $$i_price, i_data",
		"stock":      "s_w_id, s_i_id, s_quantity, s_dist_01, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data",
	}
	keys := map[string]string{}
	for _, tb := range w.Tables() {
		keys[tb.Name] = strings.Join(tb.Key, ", ")
	}
	stmts, err := tpcc.New(tpcc.Options{Warehouses: 2, Districts: 3, Customers: 60, Items: 200, Orders: 30, Mix: allKinds, Statements: true})
	if err != nil {
		t.Fatal(err)
	}
	// Each run: SQLite's statements, PostgreSQL's functions, MySQL's
	// statements, and PostgreSQL's statement form (Options.Statements) on
	// PostgreSQL and in the postgres dialect on SQLite (translated).
	type run struct {
		name, d string
		c       func() *workloadtest.Chain
		w       *tpcc.Workload
	}
	runs := []run{{name: stmtsOnPG, d: workload.Postgres, w: stmts, c: func() *workloadtest.Chain { return setup(t, workload.Postgres, stmts) }},
		{name: stmtsOnSQLite, d: workload.Postgres, w: stmts, c: func() *workloadtest.Chain {
			c := workloadtest.NewChainSpeaking(t, workload.SQLite, workload.Postgres)
			c.Setup(stmts)
			return c
		}}}
	for _, d := range allDialects {
		runs = append(runs, run{name: d, d: d, w: w, c: func() *workloadtest.Chain { return setup(t, d, w) }})
	}
	states := map[string]map[string][][]any{}
	for _, r := range runs {
		d, w := r.d, r.w
		c := r.c()
		c.Run(w, 11, 3, 300, 25)
		c.Check(w, nil)
		st := map[string][][]any{}
		for table, cols := range tables {
			var sel []string
			for _, col := range strings.Split(cols, ", ") {
				switch {
				case strings.HasPrefix(col, "$$"):
					sel = append(sel, cents(d, col[2:]))
				case strings.HasPrefix(col, "$") && d == workload.Postgres:
					sel = append(sel, "CAST("+col[1:]+" * 10000 AS BIGINT)")
				default:
					sel = append(sel, strings.TrimPrefix(col, "$"))
				}
			}
			st[table] = query(t, c, "SELECT "+strings.Join(sel, ", ")+" FROM "+table+" ORDER BY "+keys[table])
		}
		states[r.name] = st
		if n := one(t, c, "SELECT count(*) FROM customer WHERE c_payment_cnt > 1 AND c_credit = 'BC' AND c_data LIKE '% % % % % %.% %'"); n == 0 {
			t.Fatalf("%s: no bad-credit customer paid: the comparison would not cover C_DATA", r.name)
		}
	}
	for _, other := range append(allDialects[1:], stmtsOnPG, stmtsOnSQLite) {
		for table := range tables {
			a, b := states[workload.SQLite][table], states[other][table]
			if len(a) == 0 {
				t.Errorf("%s: empty", table)
			}
			if len(a) != len(b) {
				t.Errorf("%s: %d rows on SQLite, %d on %s", table, len(a), len(b), other)
				continue
			}
			diffs := 0
			for i := range a {
				if !reflect.DeepEqual(a[i], b[i]) {
					if diffs++; diffs <= 3 {
						t.Errorf("%s row %d:\n sqlite   %v\n %-8s %v", table, i, a[i], other, b[i])
					}
				}
			}
			if diffs > 3 {
				t.Errorf("%s: %d rows differ on %s", table, diffs, other)
			}
		}
	}
}

func TestOrderStatusIsOneReadOnlySelect(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			w := tiny(t, map[string]int{tpcc.OrderStatus: 1})
			c := setup(t, d, w)
			g := w.Generator(d, 5, 1)
			withLines := 0
			for range 50 {
				wl := g.Next()
				if wl.Kind != tpcc.OrderStatus || !wl.ReadOnly || len(wl.Statements) != 1 || !strings.HasPrefix(wl.Statements[0].SQL, "SELECT ") {
					t.Fatalf("OrderStatus %+v: want one read-only SELECT", wl)
				}
				st := wl.Statements[0]
				args := make([]any, len(st.Args))
				for i, a := range st.Args {
					args[i] = a.Value()
				}
				rows, err := c.Query(context.Background(), st.SQL, args...)
				if err != nil {
					t.Fatalf("OrderStatus %v: %v", args, err)
				}
				if len(rows) == 0 {
					t.Fatalf("OrderStatus %v: no customer found", args)
				}
				if rows[0][5] != nil {
					withLines++
					if len(rows) < 5 || len(rows) > 15 {
						t.Errorf("OrderStatus %v: %d order lines of the last order, want 5..15", args, len(rows))
					}
				}
			}
			if withLines == 0 {
				t.Errorf("no OrderStatus found a customer's last order")
			}
		})
	}
}

func TestGeneratorIsDeterministicPerSeedAndClient(t *testing.T) {
	w := tiny(t, allKinds)
	draw := func(d string, seed uint64, client int) []workload.WL {
		g := w.Generator(d, seed, client)
		out := make([]workload.WL, 300)
		for i := range out {
			out[i] = g.Next()
		}
		return out
	}
	for _, d := range dialects {
		a, b := draw(d, 42, 3), draw(d, 42, 3)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two generators of seed 42, client 3 differ", d)
		}
		if reflect.DeepEqual(a, draw(d, 42, 4)) {
			t.Errorf("%s: clients 3 and 4 draw the same stream", d)
		}
		if reflect.DeepEqual(a, draw(d, 43, 3)) {
			t.Errorf("%s: seeds 42 and 43 draw the same stream", d)
		}
	}
	// The stream does not depend on the dialect: same kinds, same
	// rollbacks, same history keys.
	s, p := draw(workload.SQLite, 9, 0), draw(workload.Postgres, 9, 0)
	for i := range s {
		if s[i].Kind != p[i].Kind || s[i].MayFail != p[i].MayFail || s[i].ReadOnly != p[i].ReadOnly {
			t.Fatalf("wl-transaction %d: sqlite %s/%v, postgres %s/%v", i, s[i].Kind, s[i].MayFail, p[i].Kind, p[i].MayFail)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []tpcc.Options{
		{Districts: 11},
		{Items: 14},
		{Warehouses: -1},
		{Mix: map[string]int{"Delivery": 1}},
		{Mix: map[string]int{tpcc.NewOrder: 0}},
		{Mix: map[string]int{tpcc.Payment: -1}},
	} {
		if _, err := tpcc.New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	w, err := tpcc.New(tpcc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := w.Options()
	if o.Warehouses != 10 || o.Districts != 10 || o.Customers != 3000 || o.Items != 100_000 || o.Orders != 3000 || w.NewOrdersPerDistrict() != 900 {
		t.Errorf("defaults %+v, %d new orders per district", o, w.NewOrdersPerDistrict())
	}
	if _, err := w.Setup("oracle"); err == nil {
		t.Errorf("Setup of an unknown dialect accepted")
	}
}

func TestSetupFitsTheChainLimitsAtDefaultScale(t *testing.T) {
	w, err := tpcc.New(tpcc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range allDialects {
		bcs, err := w.Setup(d)
		if err != nil {
			t.Fatal(err)
		}
		// A warehouse loads in 18 statements, one per bc-transaction, so
		// that each runs within a validator's default tx_timeout.
		want := 2 + 10*18
		if d == workload.MySQL {
			want = 11 + 1 + 10*18 // each of the 9 CREATE TABLEs and 2 CREATE INDEXes alone
		}
		if len(bcs) != want {
			t.Errorf("%s: %d setup bc-transactions, want %d (schema, items/warehouses/districts, 18 per warehouse)", d, len(bcs), want)
		}
		for i, stmts := range bcs {
			n := len(txn.Encode(&txn.Tx{ChainID: "x", Statements: stmts}))
			if len(stmts) > workload.MaxSetupStatements || n > workload.MaxSetupBytes {
				t.Errorf("%s bc-transaction %d: %d statements, %d bytes", d, i, len(stmts), n)
			}
			for _, s := range stmts {
				low := strings.ToLower(s.SQL)
				if strings.Contains(low, "random(") || strings.Contains(low, "now()") || strings.Contains(low, "current_") {
					t.Errorf("%s: setup statement reads a clock or random(): %.80s", d, s.SQL)
				}
			}
		}
	}
}
