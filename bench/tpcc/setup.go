package tpcc

import (
	"fmt"
	"strings"

	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// Row counts one Setup statement generates at most: SQLite runs each
// statement on a deterministic budget of ~10^8 VM instructions.
const (
	itemsPerStatement = 50_000
	stockPerStatement = 25_000
)

// dialect builds the dialect-specific pieces of the Setup SQL. MySQL
// stores money and rates as integers, like SQLite, and runs the SQLite
// form of the transactions (see gen_mysql.go), in MySQL's syntax.
type dialect struct{ pg, my bool }

// dialects is each database's dialect by name (a test holds that every
// database has one).
var dialects = map[string]dialect{
	workload.SQLite:   {},
	workload.Postgres: {pg: true},
	workload.MySQL:    {my: true},
}

func newDialect(d string) (dialect, error) {
	s, err := workload.Lookup(dialects, "tpcc's dialects", d)
	if err != nil {
		return dialect{}, fmt.Errorf("tpcc: %w", err)
	}
	return s, nil
}

// cat concatenates strings: || except on MySQL, where || is OR.
func (s dialect) cat(parts ...string) string {
	if s.my {
		return "CONCAT(" + strings.Join(parts, ", ") + ")"
	}
	return strings.Join(parts, " || ")
}

// div is integer division (MySQL's / gives a decimal).
func (s dialect) div(a, b string) string {
	if s.my {
		return "(" + a + ") DIV " + b
	}
	return "(" + a + ") / " + b
}

// big widens an integer expression to 64 bits (PostgreSQL's
// generate_series yields int4; SQLite's integers are 64-bit).
func (s dialect) big(x string) string {
	if s.pg {
		return "(" + x + ")::bigint"
	}
	return "(" + x + ")"
}

// int narrows to int4 where PostgreSQL wants it (substr's arguments).
func (s dialect) int(x string) string {
	if s.pg {
		return "(" + x + ")::int"
	}
	return "(" + x + ")"
}

// h is a deterministic pseudo-random value in [0, 2^31-1) of the integer
// expression x (0 <= x < 10^14) and salt: an affine step, a square and a
// second affine step modulo the Mersenne prime 2^31-1, all within 64-bit
// integers. It stands in for random() in the initial population.
func (s dialect) h(x string, salt int) string {
	y := fmt.Sprintf("((%s * 48271 + %d) %% 2147483647)", s.big(x), 1_000_003*salt+12345)
	return fmt.Sprintf("((%s * %s %% 2147483647 * 69621 + %d) %% 2147483647)", y, y, 7919*salt)
}

// rnd is h mapped to lo..hi.
func (s dialect) rnd(x string, salt, lo, hi int) string {
	return fmt.Sprintf("(%d + %s %% %d)", lo, s.h(x, salt), hi-lo+1)
}

// astr is a pseudo-random alphanumeric string of min..max characters.
func (s dialect) astr(x string, salt, min, max int) string {
	n := fmt.Sprint(min)
	if max > min {
		n = s.rnd(x, salt+1, min, max)
	}
	return fmt.Sprintf("substr('%s', %s, %s)", alnum, s.int(s.rnd(x, salt, 1, len(alnum)-max+1)), s.int(n))
}

// nstr is a pseudo-random string of n digits.
func (s dialect) nstr(x string, salt, n int) string {
	return fmt.Sprintf("substr('%s', %s, %d)", digits, s.int(s.rnd(x, salt, 1, len(digits)-n+1)), n)
}

// data is I_DATA or S_DATA: 26..50 characters, 10 % of them holding
// "ORIGINAL" at a pseudo-random position (TPC-C 4.3.3.1).
func (s dialect) data(x string, salt int) string {
	return fmt.Sprintf("CASE WHEN %s %% 10 = 0 THEN %s ELSE %s END",
		s.h(x, salt), s.cat(s.astr(x, salt+1, 9, 20), "'ORIGINAL'", s.astr(x, salt+3, 9, 22)), s.astr(x, salt+5, 26, 50))
}

// money is an amount given in cents: NUMERIC(12,2) on PostgreSQL,
// integer cents on SQLite.
func (s dialect) money(cents string) string {
	if s.pg {
		return "((" + cents + ")::numeric / 100)"
	}
	return "(" + cents + ")"
}

// rate is a tax or discount given in ten-thousandths: NUMERIC(4,4) on
// PostgreSQL, integer ten-thousandths on SQLite.
func (s dialect) rate(e string) string {
	if s.pg {
		return "((" + e + ")::numeric / 10000)"
	}
	return "(" + e + ")"
}

// lastName is C_LAST of n (0..999) in SQL.
func (s dialect) lastName(n string) string {
	syl := func(k string) string {
		return fmt.Sprintf("rtrim(substr('%s', %s, 5))", syllables, s.int("1 + 5 * ("+k+")"))
	}
	return s.cat(syl(s.div(n, "100")), syl(s.div(n, "10")+" % 10"), syl("("+n+") % 10"))
}

// series is a set of named integer ranges to select from: each name is a
// relation with one column x.
type series []struct {
	name   string
	lo, hi int
}

func (ss series) with(s dialect) string {
	if s.pg || s.my || len(ss) == 0 {
		return ""
	}
	parts := make([]string, len(ss))
	for i, r := range ss {
		parts[i] = fmt.Sprintf("%[1]s(x) AS (SELECT %[2]d UNION ALL SELECT x + 1 FROM %[1]s WHERE x < %[3]d)", r.name, r.lo, r.hi)
	}
	return "WITH RECURSIVE " + strings.Join(parts, ", ") + " "
}

func (ss series) from(s dialect) string {
	parts := make([]string, len(ss))
	for i, r := range ss {
		switch {
		case s.pg:
			parts[i] = fmt.Sprintf("generate_series(%d, %d) AS %s(x)", r.lo, r.hi, r.name)
		case s.my:
			parts[i] = fmt.Sprintf("(SELECT x FROM (%s) AS g WHERE x <= %d) AS %s", workload.MySQLSeries(r.lo, r.hi-r.lo+1), r.hi, r.name)
		default:
			parts[i] = r.name
		}
	}
	return strings.Join(parts, ", ")
}

func ser(name string, lo, hi int) series {
	return series{{name, lo, hi}}
}

// insert is INSERT INTO target SELECT cols FROM <series>, extra [WHERE].
func (s dialect) insert(target string, ss series, cols []string, extraFrom, where string) string {
	from := ss.from(s)
	if extraFrom != "" {
		if from != "" {
			from += ", "
		}
		from += extraFrom
	}
	q := ss.with(s) + "INSERT INTO " + target + " SELECT " + strings.Join(cols, ", ") + " FROM " + from
	if where != "" {
		q += " WHERE " + where
	}
	return q
}

func (s dialect) vc(n int) string {
	if s.pg || s.my {
		return fmt.Sprintf("VARCHAR(%d)", n)
	}
	return "TEXT"
}

// schema is the nine tables and their secondary indexes.
func (s dialect) schema() []string {
	money, rate := "INTEGER", "INTEGER"
	switch {
	case s.pg:
		money, rate = "NUMERIC(12,2)", "NUMERIC(4,4)"
	case s.my:
		money = "BIGINT" // cents; MySQL's INTEGER is 32 bits
	}
	vc := s.vc
	return []string{
		`CREATE TABLE warehouse (w_id INTEGER NOT NULL PRIMARY KEY, w_name ` + vc(10) + ` NOT NULL, w_street_1 ` + vc(20) + ` NOT NULL, w_street_2 ` + vc(20) + ` NOT NULL, w_city ` + vc(20) + ` NOT NULL, w_state ` + vc(2) + ` NOT NULL, w_zip ` + vc(9) + ` NOT NULL, w_tax ` + rate + ` NOT NULL, w_ytd ` + money + ` NOT NULL)`,
		`CREATE TABLE district (d_w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, d_name ` + vc(10) + ` NOT NULL, d_street_1 ` + vc(20) + ` NOT NULL, d_street_2 ` + vc(20) + ` NOT NULL, d_city ` + vc(20) + ` NOT NULL, d_state ` + vc(2) + ` NOT NULL, d_zip ` + vc(9) + ` NOT NULL, d_tax ` + rate + ` NOT NULL, d_ytd ` + money + ` NOT NULL, d_next_o_id INTEGER NOT NULL, PRIMARY KEY (d_w_id, d_id))`,
		`CREATE TABLE customer (c_w_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_id INTEGER NOT NULL, c_first ` + vc(16) + ` NOT NULL, c_middle ` + vc(2) + ` NOT NULL, c_last ` + vc(16) + ` NOT NULL, c_street_1 ` + vc(20) + ` NOT NULL, c_street_2 ` + vc(20) + ` NOT NULL, c_city ` + vc(20) + ` NOT NULL, c_state ` + vc(2) + ` NOT NULL, c_zip ` + vc(9) + ` NOT NULL, c_phone ` + vc(16) + ` NOT NULL, c_since BIGINT NOT NULL, c_credit ` + vc(2) + ` NOT NULL, c_credit_lim ` + money + ` NOT NULL, c_discount ` + rate + ` NOT NULL, c_balance ` + money + ` NOT NULL, c_ytd_payment ` + money + ` NOT NULL, c_payment_cnt INTEGER NOT NULL, c_delivery_cnt INTEGER NOT NULL, c_data ` + vc(500) + ` NOT NULL, PRIMARY KEY (c_w_id, c_d_id, c_id))`,
		`CREATE INDEX customer_by_name ON customer (c_w_id, c_d_id, c_last, c_first, c_id)`,
		`CREATE TABLE history (h_id ` + vc(64) + ` NOT NULL PRIMARY KEY, h_c_id INTEGER NOT NULL, h_c_d_id INTEGER NOT NULL, h_c_w_id INTEGER NOT NULL, h_d_id INTEGER NOT NULL, h_w_id INTEGER NOT NULL, h_date BIGINT NOT NULL, h_amount ` + money + ` NOT NULL, h_data ` + vc(24) + ` NOT NULL)`,
		`CREATE TABLE orders (o_w_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_id INTEGER NOT NULL, o_c_id INTEGER NOT NULL, o_entry_d BIGINT NOT NULL, o_carrier_id INTEGER, o_ol_cnt INTEGER NOT NULL, o_all_local INTEGER NOT NULL, PRIMARY KEY (o_w_id, o_d_id, o_id))`,
		`CREATE INDEX orders_by_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)`,
		`CREATE TABLE new_order (no_w_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_o_id INTEGER NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id))`,
		`CREATE TABLE order_line (ol_w_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_o_id INTEGER NOT NULL, ol_number INTEGER NOT NULL, ol_i_id INTEGER NOT NULL, ol_supply_w_id INTEGER NOT NULL, ol_delivery_d BIGINT, ol_quantity INTEGER NOT NULL, ol_amount ` + money + ` NOT NULL, ol_dist_info ` + vc(24) + ` NOT NULL, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))`,
		`CREATE TABLE item (i_id INTEGER NOT NULL PRIMARY KEY, i_im_id INTEGER NOT NULL, i_name ` + vc(24) + ` NOT NULL, i_price ` + money + ` NOT NULL, i_data ` + vc(50) + ` NOT NULL)`,
		`CREATE TABLE stock (s_w_id INTEGER NOT NULL, s_i_id INTEGER NOT NULL, s_quantity INTEGER NOT NULL, ` + distCols(vc(24)+" NOT NULL") + `, s_ytd INTEGER NOT NULL, s_order_cnt INTEGER NOT NULL, s_remote_cnt INTEGER NOT NULL, s_data ` + vc(50) + ` NOT NULL, PRIMARY KEY (s_w_id, s_i_id))`,
	}
}

// distCols lists S_DIST_01..S_DIST_10, each followed by suffix.
func distCols(suffix string) string {
	cols := make([]string, 10)
	for i := range cols {
		cols[i] = fmt.Sprintf("s_dist_%02d %s", i+1, suffix)
	}
	return strings.Join(cols, ", ")
}

// loadStatementsPerTx bounds how many of a warehouse's load statements
// (tens of thousands of rows each) one setup bc-transaction holds, so that
// each runs well within a validator's default per-tx time limit
// ([block] tx_timeout, 30 s) even on MySQL, whose row capture makes bulk
// inserts slow, on a machine shared by four validators: a whole warehouse
// in one bc-transaction took over 30 s there on a 2-core machine, and
// three statements (customers, their history and 1,000 stock rows: 25,000
// rows) did too in CI beside another network. A validator refuses to vote
// for a proposal holding a tx it could not run in time, so one statement
// (at most 30,000 rows at the specification's scale) a bc-transaction.
const loadStatementsPerTx = 1

// Setup implements workload.Workload: the schema (and on PostgreSQL,
// unless Options.Statements, the NewOrder and Payment procedures), then items, warehouses and districts,
// then each warehouse's customers, history, stock, orders, new orders and
// order lines, loadStatementsPerTx statements per bc-transaction.
func (w *Workload) Setup(dialectName string) ([][]txn.Statement, error) {
	s, err := newDialect(dialectName)
	if err != nil {
		return nil, err
	}
	ddl := s.schema()
	if s.pg && !w.o.Statements {
		ddl = append(ddl, newOrderProc, paymentProc)
	}
	out := [][]txn.Statement{statements(ddl...), statements(w.firstLoad(s)...)}
	for wid := 1; wid <= w.o.Warehouses; wid++ {
		q := w.customerLoad(s, wid)
		q = append(q, w.stockLoad(s, wid)...)
		q = append(q, w.orderLoad(s, wid)...)
		for len(q) > 0 {
			n := min(loadStatementsPerTx, len(q))
			out = append(out, statements(q[:n]...))
			q = q[n:]
		}
	}
	return workload.DDLAlone(dialectName, out), nil
}

// statements turns SQL texts into statements without arguments.
func statements(sqls ...string) []txn.Statement {
	out := make([]txn.Statement, len(sqls))
	for i, q := range sqls {
		out[i] = txn.Statement{SQL: q}
	}
	return out
}

// firstLoad inserts the items, warehouses and districts.
func (w *Workload) firstLoad(s dialect) []string {
	o := w.o
	var first []string
	for lo := 1; lo <= o.Items; lo += itemsPerStatement {
		hi := min(lo+itemsPerStatement-1, o.Items)
		first = append(first, s.insert("item (i_id, i_im_id, i_name, i_price, i_data)", ser("si", lo, hi), []string{
			"si.x", s.rnd("si.x", 1, 1, 10000), s.astr("si.x", 2, 14, 24), s.money(s.rnd("si.x", 4, 100, 10000)), s.data("si.x", 5),
		}, "", ""))
	}
	first = append(first, s.insert("warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd)", ser("sw", 1, o.Warehouses), []string{
		"sw.x", s.astr("sw.x", 11, 6, 10), s.astr("sw.x", 13, 10, 20), s.astr("sw.x", 15, 10, 20), s.astr("sw.x", 17, 10, 20),
		"upper(" + s.astr("sw.x", 19, 2, 2) + ")", s.cat(s.nstr("sw.x", 21, 4), "'11111'"), s.rate(s.rnd("sw.x", 22, 0, 2000)),
		s.money(fmt.Sprint(o.Districts * InitialDYTD)),
	}, "", ""))
	dx := "sw.x * 16 + sd.x"
	first = append(first, s.insert("district (d_w_id, d_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id)",
		append(ser("sw", 1, o.Warehouses), ser("sd", 1, o.Districts)...), []string{
			"sw.x", "sd.x", s.astr(dx, 31, 6, 10), s.astr(dx, 33, 10, 20), s.astr(dx, 35, 10, 20), s.astr(dx, 37, 10, 20),
			"upper(" + s.astr(dx, 39, 2, 2) + ")", s.cat(s.nstr(dx, 41, 4), "'11111'"), s.rate(s.rnd(dx, 42, 0, 2000)),
			s.money(fmt.Sprint(InitialDYTD)), fmt.Sprint(o.Orders + 1),
		}, "", ""))
	return first
}

// customerLoad inserts warehouse wid's customers and their history rows.
func (w *Workload) customerLoad(s dialect, wid int) []string {
	o := w.o
	var q []string
	// Customers: C_LAST of the first 1,000 by id from the id, the
	// others NURand(255, 0, 999) (TPC-C 4.3.3.1).
	cx := fmt.Sprintf("(%d * 16 + sd.x) * 131072 + sc.x", wid)
	n := fmt.Sprintf("CASE WHEN sc.x <= 1000 THEN sc.x - 1 ELSE (((%s %% 256) | (%s %% 1000)) + %d) %% 1000 END",
		s.h(cx, 51), s.h(cx, 52), CLoad)
	cols := []string{
		fmt.Sprint(wid), "sd.x", "sc.x", s.astr(cx, 53, 8, 16), "'OE'", s.lastName(n),
		s.astr(cx, 55, 10, 20), s.astr(cx, 57, 10, 20), s.astr(cx, 59, 10, 20), "upper(" + s.astr(cx, 61, 2, 2) + ")",
		s.cat(s.nstr(cx, 63, 4), "'11111'"), s.nstr(cx, 64, 16), fmt.Sprint(LoadTime),
		fmt.Sprintf("CASE WHEN %s %% 10 = 0 THEN 'BC' ELSE 'GC' END", s.h(cx, 65)),
		s.money("5000000"), s.rate(s.rnd(cx, 66, 0, 5000)), s.money("-1000"), s.money("1000"), "1", "0",
		s.astr(cx, 67, 300, 500),
	}
	q = append(q, s.insert("customer (c_w_id, c_d_id, c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data)",
		append(ser("sd", 1, o.Districts), ser("sc", 1, o.Customers)...), cols, "", ""))
	q = append(q, s.insert("history (h_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)",
		append(ser("sd", 1, o.Districts), ser("sc", 1, o.Customers)...), []string{
			s.cat(fmt.Sprintf("'L-%d-'", wid), "sd.x", "'-'", "sc.x"), "sc.x", "sd.x", fmt.Sprint(wid), "sd.x", fmt.Sprint(wid),
			fmt.Sprint(LoadTime), s.money("1000"), s.astr(cx, 69, 12, 24),
		}, "", ""))
	return q
}

// stockLoad inserts warehouse wid's stock, stockPerStatement rows a
// statement.
func (w *Workload) stockLoad(s dialect, wid int) []string {
	o := w.o
	var q []string
	for lo := 1; lo <= o.Items; lo += stockPerStatement {
		hi := min(lo+stockPerStatement-1, o.Items)
		sx := fmt.Sprintf("%d * 1048576 + si.x", wid)
		cols := []string{fmt.Sprint(wid), "si.x", s.rnd(sx, 71, 10, 100)}
		for d := 1; d <= 10; d++ {
			cols = append(cols, s.astr(sx, 71+2*d, 24, 24))
		}
		cols = append(cols, "0", "0", "0", s.data(sx, 95))
		q = append(q, s.insert("stock (s_w_id, s_i_id, s_quantity, "+strings.ReplaceAll(distCols(""), " ,", ",")+", s_ytd, s_order_cnt, s_remote_cnt, s_data)",
			ser("si", lo, hi), cols, "", ""))
	}
	return q
}

// orderLoad inserts warehouse wid's orders, new orders and order lines.
func (w *Workload) orderLoad(s dialect, wid int) []string {
	o := w.o
	newFrom := o.Orders - w.NewOrdersPerDistrict() // orders above are undelivered
	var q []string
	// Orders: O_C_ID a permutation of the customers per district.
	ox := fmt.Sprintf("(%d * 16 + sd.x) * 131072 + so.x", wid)
	q = append(q, s.insert("orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)",
		append(ser("sd", 1, o.Districts), ser("so", 1, o.Orders)...), []string{
			fmt.Sprint(wid), "sd.x", "so.x",
			fmt.Sprintf("(%s * %d + %s) %% %d + 1", s.big("so.x - 1"), w.permMul, s.h(fmt.Sprintf("%d * 16 + sd.x", wid), 81), o.Customers),
			fmt.Sprint(LoadTime),
			fmt.Sprintf("CASE WHEN so.x > %d THEN NULL ELSE %s END", newFrom, s.rnd(ox, 83, 1, 10)),
			s.rnd(ox, 85, 5, 15), "1",
		}, "", ""))
	q = append(q, fmt.Sprintf("INSERT INTO new_order (no_w_id, no_d_id, no_o_id) SELECT o_w_id, o_d_id, o_id FROM orders WHERE o_w_id = %d AND o_id > %d", wid, newFrom))
	for d := 1; d <= o.Districts; d++ {
		lx := fmt.Sprintf("((%d * 16 + o_d_id) * 131072 + o_id) * 16 + sn.x", wid)
		q = append(q, s.insert("order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)",
			ser("sn", 1, 15), []string{
				"o_w_id", "o_d_id", "o_id", "sn.x", s.rnd(lx, 91, 1, o.Items), "o_w_id",
				fmt.Sprintf("CASE WHEN o_id > %d THEN NULL ELSE o_entry_d END", newFrom), "5",
				fmt.Sprintf("CASE WHEN o_id > %d THEN %s ELSE %s END", newFrom, s.money(s.rnd(lx, 93, 1, 999999)), s.money("0")),
				s.astr(lx, 97, 24, 24),
			}, "orders", fmt.Sprintf("o_w_id = %d AND o_d_id = %d AND sn.x <= o_ol_cnt", wid, d)))
	}
	return q
}
