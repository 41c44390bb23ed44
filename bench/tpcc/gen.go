package tpcc

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// RunTime is the Unix time (seconds) the generated transactions start
// from: each client's k-th wl-transaction is stamped RunTime + k. The
// workload's SQL never reads a clock.
const RunTime = LoadTime + 86_400

// Generator implements workload.Workload. The stream depends on seed and
// client only (not on the dialect): both dialects get the same
// transactions with the same parameters.
func (w *Workload) Generator(dialect string, seed uint64, client int) workload.Generator {
	s := workload.MustLookup(dialects, "tpcc's dialects", dialect)
	return &generator{
		w:      w,
		pg:     s.pg,
		my:     s.my,
		r:      rand.New(rand.NewPCG(seed, 0x7470636300000000^uint64(client))),
		seed:   seed,
		client: client,
	}
}

type generator struct {
	w      *Workload
	pg     bool
	my     bool // MySQL: gen_mysql.go's forms, anonymous placeholders
	r      *rand.Rand
	seed   uint64
	client int
	seq    int64
}

// uniform returns a value in lo..hi.
func (g *generator) uniform(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// nurand is TPC-C's NURand(A, x, y) with constant c (2.1.6).
func (g *generator) nurand(a, c, x, y int) int {
	return ((g.uniform(0, a)|g.uniform(x, y))+c)%(y-x+1) + x
}

// customerID is NURand(1023, 1, C).
func (g *generator) customerID() int { return g.nurand(1023, CCustomer, 1, g.w.o.Customers) }

// itemID is NURand(8191, 1, I).
func (g *generator) itemID() int { return g.nurand(8191, CItem, 1, g.w.o.Items) }

// lastName is a C_LAST by NURand(255, 0, 999); when a district has fewer
// than 1,000 customers the range shrinks to the names that exist (the
// first min(C, 1000) customers carry names 0..C-1).
func (g *generator) lastName() string {
	return LastName(g.nurand(255, CRun, 0, min(999, g.w.o.Customers-1)))
}

// otherWarehouse returns a warehouse other than w (W > 1).
func (g *generator) otherWarehouse(w int) int {
	o := g.uniform(1, g.w.o.Warehouses-1)
	if o >= w {
		o++
	}
	return o
}

// Next implements workload.Generator.
func (g *generator) Next() workload.WL {
	if g.my {
		return workload.ForDialect(workload.MySQL, g.next())
	}
	return g.next()
}

func (g *generator) next() workload.WL {
	g.seq++
	kind := g.w.mix.Pick(g.r)
	switch kind {
	case NewOrder:
		return g.newOrder()
	case Payment:
		return g.payment()
	default:
		return g.orderStatus()
	}
}

// orderInput are one NewOrder's inputs (TPC-C 2.4.1).
type orderInput struct {
	W, D, C  int
	Items    []int // distinct; the last one unused (Items+1) when Rollback
	Supply   []int
	Qty      []int
	AllLocal bool
	EntryD   int64
	Rollback bool
}

func (g *generator) newOrderParams() orderInput {
	o := g.w.o
	p := orderInput{W: g.uniform(1, o.Warehouses), D: g.uniform(1, o.Districts), C: g.customerID(), AllLocal: true, EntryD: RunTime + g.seq}
	n := g.uniform(5, 15)
	p.Rollback = g.uniform(1, 100) == 1
	seen := make(map[int]bool, n)
	for i := range n {
		var item int
		if p.Rollback && i == n-1 {
			item = o.Items + 1 // an unused item number (TPC-C 2.4.1.5)
		} else {
			for item = g.itemID(); seen[item]; item = g.itemID() {
			}
			seen[item] = true
		}
		supply := p.W
		if o.Warehouses > 1 && g.uniform(1, 100) == 1 {
			supply = g.otherWarehouse(p.W)
			p.AllLocal = false
		}
		p.Items = append(p.Items, item)
		p.Supply = append(p.Supply, supply)
		p.Qty = append(p.Qty, g.uniform(1, 10))
	}
	return p
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func ints(v ...int) []txn.Arg {
	a := make([]txn.Arg, len(v))
	for i, x := range v {
		a[i] = txn.Int(int64(x))
	}
	return a
}

// distCase is S_DIST_xx for district d (a parameter) in SQL.
func distCase(d string) string {
	var b strings.Builder
	b.WriteString("CASE " + d)
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, " WHEN %d THEN s_dist_%02d", i, i)
	}
	b.WriteString(" ELSE s_dist_10 END")
	return b.String()
}

func (g *generator) newOrder() workload.WL {
	p := g.newOrderParams()
	wl := workload.WL{Kind: NewOrder, MayFail: p.Rollback}
	if g.my {
		wl.Statements = newOrderMySQL(p)
		return wl
	}
	if g.pg && g.w.o.Statements {
		wl.Statements = newOrderPG(p)
		return wl
	}
	if g.pg {
		wl.Statements = []txn.Statement{{
			SQL: "SELECT public.tpcc_new_order($1::integer, $2::integer, $3::integer, $4::integer, $5::integer, $6::bigint, $7::text, $8::text, $9::text)",
			Args: append(ints(p.W, p.D, p.C, len(p.Items)), txn.Int(b2i(p.AllLocal)), txn.Int(p.EntryD),
				txn.Text(joinInts(p.Items)), txn.Text(joinInts(p.Supply)), txn.Text(joinInts(p.Qty))),
		}}
		return wl
	}
	wd := ints(p.W, p.D)
	const next = "FROM district WHERE d_w_id = ?1 AND d_id = ?2"
	// Order lines: one VALUES row (number, item, supply, quantity) each.
	var lines, stock []string
	olArgs, stArgs := ints(p.W, p.D), ints(p.W)
	for i := range p.Items {
		k := 3 + 3*i
		lines = append(lines, fmt.Sprintf("(%d, ?%d, ?%d, ?%d)", i+1, k, k+1, k+2))
		olArgs = append(olArgs, ints(p.Items[i], p.Supply[i], p.Qty[i])...)
		k = 2 + 3*i
		stock = append(stock, fmt.Sprintf("(?%d, ?%d, ?%d)", k, k+1, k+2))
		stArgs = append(stArgs, ints(p.Items[i], p.Supply[i], p.Qty[i])...)
	}
	wl.Statements = []txn.Statement{
		{SQL: "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ?1 AND d_id = ?2 RETURNING d_next_o_id - 1, d_tax", Args: wd},
		{SQL: "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ?1 AND c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3",
			Args: ints(p.W, p.D, p.C)},
		{SQL: "INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) SELECT ?1, ?2, d_next_o_id - 1, ?3, ?4, NULL, ?5, ?6 " + next,
			Args: append(ints(p.W, p.D, p.C), txn.Int(p.EntryD), txn.Int(int64(len(p.Items))), txn.Int(b2i(p.AllLocal)))},
		{SQL: "INSERT INTO new_order (no_w_id, no_d_id, no_o_id) SELECT ?1, ?2, d_next_o_id - 1 " + next, Args: wd},
		// OL_AMOUNT is NOT NULL: an unused item has no price, the
		// INSERT fails and the wl-transaction rolls back.
		{SQL: "INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) " +
			"SELECT ?1, ?2, d.d_next_o_id - 1, l.column1, l.column2, l.column3, NULL, l.column4, " +
			"l.column4 * (SELECT i_price FROM item WHERE i_id = l.column2), " +
			"(SELECT " + distCase("?2") + " FROM stock WHERE s_w_id = l.column3 AND s_i_id = l.column2) " +
			"FROM district d, (VALUES " + strings.Join(lines, ", ") + ") AS l WHERE d.d_w_id = ?1 AND d.d_id = ?2 " +
			"RETURNING ol_number, ol_i_id, ol_amount",
			Args: olArgs},
		{SQL: "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= l.column3 + 10 THEN s_quantity - l.column3 ELSE s_quantity - l.column3 + 91 END, " +
			"s_ytd = s_ytd + l.column3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (l.column2 <> ?1) " +
			"FROM (VALUES " + strings.Join(stock, ", ") + ") AS l WHERE s_w_id = l.column2 AND s_i_id = l.column1",
			Args: stArgs},
	}
	return wl
}

// paymentInput are one Payment's inputs (TPC-C 2.5.1). C = 0 selects
// the customer by CLast.
type paymentInput struct {
	W, D, CW, CD, C int
	CLast           string
	Cents           int64
	HID             string
	HDate           int64
}

func (g *generator) paymentParams() paymentInput {
	o := g.w.o
	p := paymentInput{W: g.uniform(1, o.Warehouses), D: g.uniform(1, o.Districts)}
	p.CW, p.CD = p.W, p.D
	if o.Warehouses > 1 && g.uniform(1, 100) <= 15 {
		p.CW, p.CD = g.otherWarehouse(p.W), g.uniform(1, o.Districts)
	}
	if g.uniform(1, 100) <= 60 {
		p.CLast = g.lastName()
	} else {
		p.C = g.customerID()
	}
	p.Cents = int64(g.uniform(100, 500_000))
	p.HID = fmt.Sprintf("P-%d-%d-%d", g.seed, g.client, g.seq)
	p.HDate = RunTime + g.seq
	return p
}

// customerSQL selects C_ID by id (a parameter) or by last name: the
// customer at position ceil(n/2) sorted by C_FIRST (TPC-C 2.5.2.2), with
// C_ID making the order total. w, d and c are placeholders.
func customerSQL(byName bool, w, d, c string) string {
	if !byName {
		return c
	}
	where := "c_w_id = " + w + " AND c_d_id = " + d + " AND c_last = " + c
	return "(SELECT c_id FROM customer WHERE " + where + " ORDER BY c_first, c_id LIMIT 1 OFFSET ((SELECT count(*) FROM customer WHERE " + where + ") - 1) / 2)"
}

func (g *generator) payment() workload.WL {
	p := g.paymentParams()
	wl := workload.WL{Kind: Payment}
	cust := txn.Int(int64(p.C))
	if p.C == 0 {
		cust = txn.Text(p.CLast)
	}
	if g.my {
		wl.Statements = paymentMySQL(p, cust)
		return wl
	}
	if g.pg && g.w.o.Statements {
		wl.Statements = paymentPG(p, cust)
		return wl
	}
	if g.pg {
		wl.Statements = []txn.Statement{{
			SQL:  "SELECT public.tpcc_payment($1::integer, $2::integer, $3::integer, $4::integer, $5::integer, $6::text, $7::bigint, $8::text, $9::bigint)",
			Args: append(ints(p.W, p.D, p.CW, p.CD, p.C), txn.Text(p.CLast), txn.Int(p.Cents), txn.Text(p.HID), txn.Int(p.HDate)),
		}}
		return wl
	}
	byName := p.C == 0
	amount := txn.Int(p.Cents)
	wl.Statements = []txn.Statement{
		{SQL: "UPDATE warehouse SET w_ytd = w_ytd + ?1 WHERE w_id = ?2 RETURNING w_name", Args: []txn.Arg{amount, txn.Int(int64(p.W))}},
		{SQL: "UPDATE district SET d_ytd = d_ytd + ?1 WHERE d_w_id = ?2 AND d_id = ?3 RETURNING d_name", Args: append([]txn.Arg{amount}, ints(p.W, p.D)...)},
		{SQL: "UPDATE customer SET c_balance = c_balance - ?1, c_ytd_payment = c_ytd_payment + ?1, c_payment_cnt = c_payment_cnt + 1, " +
			"c_data = CASE WHEN c_credit = 'BC' THEN substr(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || ?4 || ' ' || ?5 || ' ' || printf('%d.%02d', ?1 / 100, ?1 % 100) || ' ' || c_data, 1, 500) ELSE c_data END " +
			"WHERE c_w_id = ?2 AND c_d_id = ?3 AND c_id = " + customerSQL(byName, "?2", "?3", "?6") +
			" RETURNING c_id, c_first, c_middle, c_last, c_credit, c_balance",
			Args: append(append([]txn.Arg{amount}, ints(p.CW, p.CD, p.D, p.W)...), cust)},
		// H_C_ID is NOT NULL: a customer that is not found fails the
		// wl-transaction.
		{SQL: "INSERT INTO history (h_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) " +
			"SELECT ?1, " + customerSQL(byName, "?2", "?3", "?4") + ", ?3, ?2, ?5, ?6, ?7, ?8, w_name || '    ' || d_name " +
			"FROM warehouse, district WHERE w_id = ?6 AND d_w_id = ?6 AND d_id = ?5",
			Args: append(append([]txn.Arg{txn.Text(p.HID)}, ints(p.CW, p.CD)...), cust, txn.Int(int64(p.D)), txn.Int(int64(p.W)), txn.Int(p.HDate), amount)},
	}
	return wl
}

func (g *generator) orderStatus() workload.WL {
	o := g.w.o
	w, d := g.uniform(1, o.Warehouses), g.uniform(1, o.Districts)
	var cust txn.Arg
	byName := g.uniform(1, 100) <= 60
	if byName {
		cust = txn.Text(g.lastName())
	} else {
		cust = txn.Int(int64(g.customerID()))
	}
	p := func(n int) string {
		return workload.Placeholder(map[bool]string{true: workload.Postgres, false: workload.SQLite}[g.pg], n)
	}
	custSQL := customerSQL
	if g.my {
		custSQL = customerMySQL
	}
	sql := "SELECT c.c_id, c.c_balance, c.c_first, c.c_middle, c.c_last, o.o_id, o.o_entry_d, o.o_carrier_id, " +
		"ol.ol_number, ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount, ol.ol_delivery_d " +
		"FROM customer c " +
		"LEFT JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id AND o.o_id = " +
		"(SELECT max(o_id) FROM orders WHERE o_w_id = c.c_w_id AND o_d_id = c.c_d_id AND o_c_id = c.c_id) " +
		"LEFT JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id " +
		"WHERE c.c_w_id = " + p(1) + " AND c.c_d_id = " + p(2) + " AND c.c_id = " + custSQL(byName, p(1), p(2), p(3)) +
		" ORDER BY ol.ol_number"
	return workload.WL{Kind: OrderStatus, ReadOnly: true, Statements: []txn.Statement{
		{SQL: sql, Args: append(ints(w, d), cust)},
	}}
}
