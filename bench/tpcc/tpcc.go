package tpcc

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"

	"github.com/relchain/relchain/bench/workload"
)

// Transaction kinds.
const (
	NewOrder    = "NewOrder"
	Payment     = "Payment"
	OrderStatus = "OrderStatus"
)

// Kinds lists every transaction kind, sorted by name.
var Kinds = []string{NewOrder, OrderStatus, Payment}

// DefaultMix is the paper's mix: "a uniform mixture of writing
// wl-transactions", NewOrder and Payment half each. The paper measures the
// read-only OrderStatus on its own (Mix{OrderStatus: 1}).
var DefaultMix = map[string]int{NewOrder: 1, Payment: 1}

// Default scale: the paper's 10 warehouses and the specification's
// cardinalities (TPC-C 4.3.3.1).
const (
	DefaultWarehouses = 10
	DefaultDistricts  = 10
	DefaultCustomers  = 3000
	DefaultItems      = 100_000
	DefaultOrders     = 3000
)

// Constants of the generated data and transactions.
const (
	// LoadTime is the Unix time (seconds) of the initial population:
	// C_SINCE, O_ENTRY_D, H_DATE and OL_DELIVERY_D of the loaded rows.
	// 2026-01-01 00:00:00 UTC.
	LoadTime = 1_767_225_600
	// CLoad and CRun are the NURand constants C for C_LAST at load and at
	// run time (their difference, 85, is in the range TPC-C 2.1.6.1
	// requires); CCustomer and CItem are C for customer and item ids.
	CLoad     = 88
	CRun      = 173
	CCustomer = 259
	CItem     = 7911
	// InitialDYTD is the initial D_YTD in cents (30,000.00); the initial
	// W_YTD is that times the districts (300,000.00 for 10).
	InitialDYTD = 3_000_000
)

// Options configures the workload; zero fields take the defaults.
type Options struct {
	// Warehouses (default 10, as in the paper).
	Warehouses int
	// Districts per warehouse, 1..10 (default 10).
	Districts int
	// Customers per district (default 3,000).
	Customers int
	// Items (default 100,000); at least 15.
	Items int
	// Orders per district in the initial population (default 3,000);
	// the last 30 % (900 of 3,000) are undelivered, in new_order.
	Orders int
	// Mix maps transaction kinds to relative weights; kinds not named do
	// not occur. Empty means DefaultMix.
	Mix map[string]int
	// Statements runs NewOrder and Payment in the postgres dialect as
	// multi-statement wl-transactions (gen_pgstmts.go: SQLite's form in
	// PostgreSQL's SQL, NUMERIC money) instead of the PL/pgSQL functions:
	// the form the postgres dialect on SQLite runs, whose translator has
	// no PL/pgSQL. Other dialects run statements anyway.
	Statements bool
}

// Workload is the TPC-C workload.
type Workload struct {
	o   Options
	mix workload.Mix
	// permMul is coprime with o.Customers: the initial orders' O_C_ID are
	// a permutation of the customers, ((o-1)*permMul + offset) % C + 1.
	permMul int
}

// New returns the workload for o.
func New(o Options) (*Workload, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Warehouses, DefaultWarehouses)
	def(&o.Districts, DefaultDistricts)
	def(&o.Customers, DefaultCustomers)
	def(&o.Items, DefaultItems)
	def(&o.Orders, DefaultOrders)
	switch {
	case o.Warehouses < 1 || o.Warehouses > 10_000:
		return nil, fmt.Errorf("tpcc: %d warehouses: want 1..10000", o.Warehouses)
	case o.Districts < 1 || o.Districts > 10:
		return nil, fmt.Errorf("tpcc: %d districts: want 1..10 (stock has S_DIST_01..10)", o.Districts)
	case o.Customers < 1 || o.Customers > 100_000:
		return nil, fmt.Errorf("tpcc: %d customers per district: want 1..100000", o.Customers)
	case o.Items < 15 || o.Items > 1_000_000:
		return nil, fmt.Errorf("tpcc: %d items: want 15..1000000 (an order has up to 15 distinct items)", o.Items)
	case o.Orders < 1 || o.Orders > 100_000:
		return nil, fmt.Errorf("tpcc: %d initial orders per district: want 1..100000", o.Orders)
	}
	w := &Workload{o: o}
	mix := o.Mix
	if len(mix) == 0 {
		mix = DefaultMix
	}
	m, err := workload.NewMix("tpcc", mix, Kinds)
	if err != nil {
		return nil, err
	}
	w.mix = m
	w.permMul = coprime(o.Customers)
	return w, nil
}

// coprime returns a multiplier near 0.618 n that is coprime with n.
func coprime(n int) int {
	gcd := func(a, b int) int {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	for m := n*618/1000 + 1; ; m++ {
		if gcd(m, n) == 1 {
			return m
		}
	}
}

// Options returns the workload's options with the defaults filled in.
func (w *Workload) Options() Options {
	o := w.o
	o.Mix = maps.Clone(o.Mix)
	return o
}

// NewOrdersPerDistrict is the number of undelivered initial orders per
// district (900 of 3,000 by the specification: the last 30 %, rounded up).
func (w *Workload) NewOrdersPerDistrict() int { return (w.o.Orders*3 + 9) / 10 }

// Name implements workload.Workload.
func (w *Workload) Name() string { return "tpcc" }

// Tables implements workload.Workload.
func (w *Workload) Tables() []workload.Table {
	return []workload.Table{
		{Name: "warehouse", Key: []string{"w_id"}},
		{Name: "district", Key: []string{"d_w_id", "d_id"}},
		{Name: "customer", Key: []string{"c_w_id", "c_d_id", "c_id"}},
		{Name: "history", Key: []string{"h_id"}},
		{Name: "new_order", Key: []string{"no_w_id", "no_d_id", "no_o_id"}},
		{Name: "orders", Key: []string{"o_w_id", "o_d_id", "o_id"}},
		{Name: "order_line", Key: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}},
		{Name: "item", Key: []string{"i_id"}},
		{Name: "stock", Key: []string{"s_w_id", "s_i_id"}},
	}
}

// syllables are C_LAST's syllables (TPC-C 4.3.2.3), padded to 5 bytes so
// SQL can cut them out of one string.
const syllables = "BAR  OUGHTABLE PRI  PRES ESE  ANTI CALLYATIONEING "

// LastName returns C_LAST for n in 0..999 (TPC-C 4.3.2.3).
func LastName(n int) string {
	s := func(k int) string { return strings.TrimRight(syllables[5*k:5*k+5], " ") }
	return s(n/100) + s(n/10%10) + s(n%10)
}

// alnum and digits are the fixed pseudo-random strings the population's
// random texts are cut from (TPC-C's a-strings and n-strings).
var alnum, digits = func() (string, string) {
	r := rand.New(rand.NewPCG(0x74706363, 1))
	const set = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	a := make([]byte, 800)
	for i := range a {
		a[i] = set[r.IntN(len(set))]
	}
	d := make([]byte, 100)
	for i := range d {
		d[i] = byte('0' + r.IntN(10))
	}
	return string(a), string(d)
}()
