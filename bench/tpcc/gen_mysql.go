package tpcc

import (
	"fmt"
	"strings"

	"github.com/relchain/relchain/txn"
)

// MySQL runs the SQLite form of NewOrder and Payment (relchain's MySQL gate
// refuses stored procedures), rewritten where MySQL differs: no UPDATE ...
// RETURNING (a SELECT follows the UPDATE), no VALUES table with column1
// names (a UNION ALL derived table), UPDATE ... JOIN instead of UPDATE ...
// FROM, CONCAT instead of ||, no printf, LIMIT/OFFSET only constant (the
// customer by name is the one with as many namesakes before it as
// (count - 1) DIV 2), and no subquery on the table being updated except
// through a derived table (error 1093). Placeholders are numbered here;
// Next makes them MySQL's anonymous '?' (workload.Positional).

// customerMySQL is customerSQL without a non-constant OFFSET: the
// customer of the district named c with (count - 1) DIV 2 namesakes before
// it by (c_first, c_id), TPC-C's middle one (2.5.2.2), as SQLite's OFFSET
// picks it.
func customerMySQL(byName bool, w, d, c string) string {
	if !byName {
		return c
	}
	same := func(a string) string {
		return a + ".c_w_id = " + w + " AND " + a + ".c_d_id = " + d + " AND " + a + ".c_last = " + c
	}
	return "(SELECT t.c_id FROM (SELECT m.c_id FROM customer m WHERE " + same("m") +
		" AND (SELECT count(*) FROM customer b WHERE " + same("b") + " AND (b.c_first < m.c_first OR (b.c_first = m.c_first AND b.c_id < m.c_id)))" +
		" = ((SELECT count(*) FROM customer n WHERE " + same("n") + ") - 1) DIV 2) AS t)"
}

// valuesMySQL is a derived table of rows of placeholders, numbered from
// first, with the given column names: MySQL 8 and MariaDB spell VALUES
// tables differently, UNION ALL works on both.
func valuesMySQL(rows int, cols []string, first int, constFirst bool) string {
	var b strings.Builder
	k := first
	for r := range rows {
		if r > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString("SELECT ")
		for i, c := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			if constFirst && i == 0 {
				fmt.Fprintf(&b, "%d", r+1)
			} else {
				fmt.Fprintf(&b, "?%d", k)
				k++
			}
			if r == 0 {
				b.WriteString(" AS " + c)
			}
		}
	}
	return "(" + b.String() + ")"
}

func newOrderMySQL(p orderInput) []txn.Statement {
	wd := ints(p.W, p.D)
	const next = "FROM district WHERE d_w_id = ?1 AND d_id = ?2"
	olArgs, stArgs := ints(p.W, p.D), ints(p.W)
	for i := range p.Items {
		olArgs = append(olArgs, ints(p.Items[i], p.Supply[i], p.Qty[i])...)
		stArgs = append(stArgs, ints(p.Items[i], p.Supply[i], p.Qty[i])...)
	}
	n := len(p.Items)
	return []txn.Statement{
		{SQL: "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ?1 AND d_id = ?2", Args: wd},
		{SQL: "SELECT d_next_o_id - 1, d_tax " + next, Args: wd},
		{SQL: "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ?1 AND c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3",
			Args: ints(p.W, p.D, p.C)},
		{SQL: "INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) SELECT ?1, ?2, d_next_o_id - 1, ?3, ?4, NULL, ?5, ?6 " + next,
			Args: append(ints(p.W, p.D, p.C), txn.Int(p.EntryD), txn.Int(int64(n)), txn.Int(b2i(p.AllLocal)))},
		{SQL: "INSERT INTO new_order (no_w_id, no_d_id, no_o_id) SELECT ?1, ?2, d_next_o_id - 1 " + next, Args: wd},
		{SQL: "INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) " +
			"SELECT ?1, ?2, d.d_next_o_id - 1, l.n, l.i, l.s, NULL, l.q, " +
			"l.q * (SELECT i_price FROM item WHERE i_id = l.i), " +
			"(SELECT " + distCase("?2") + " FROM stock WHERE s_w_id = l.s AND s_i_id = l.i) " +
			"FROM district d, " + valuesMySQL(n, []string{"n", "i", "s", "q"}, 3, true) + " AS l WHERE d.d_w_id = ?1 AND d.d_id = ?2",
			Args: olArgs},
		{SQL: "SELECT ol_number, ol_i_id, ol_amount FROM order_line WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = (SELECT d_next_o_id - 1 " + next + ") ORDER BY ol_number",
			Args: wd},
		// The gate wants the columns of an UPDATE that joins a derived
		// table qualified.
		{SQL: "UPDATE stock JOIN " + valuesMySQL(n, []string{"i", "s", "q"}, 2, false) + " AS l ON stock.s_w_id = l.s AND stock.s_i_id = l.i " +
			"SET stock.s_quantity = CASE WHEN stock.s_quantity >= l.q + 10 THEN stock.s_quantity - l.q ELSE stock.s_quantity - l.q + 91 END, " +
			"stock.s_ytd = stock.s_ytd + l.q, stock.s_order_cnt = stock.s_order_cnt + 1, stock.s_remote_cnt = stock.s_remote_cnt + (l.s <> ?1)",
			Args: stArgs},
	}
}

func paymentMySQL(p paymentInput, cust txn.Arg) []txn.Statement {
	byName := p.C == 0
	amount := txn.Int(p.Cents)
	// The UPDATE reads customer only through a derived table (error 1093).
	c := customerMySQL(byName, "?2", "?3", "?6")
	return []txn.Statement{
		{SQL: "UPDATE warehouse SET w_ytd = w_ytd + ?1 WHERE w_id = ?2", Args: []txn.Arg{amount, txn.Int(int64(p.W))}},
		{SQL: "SELECT w_name FROM warehouse WHERE w_id = ?1", Args: ints(p.W)},
		{SQL: "UPDATE district SET d_ytd = d_ytd + ?1 WHERE d_w_id = ?2 AND d_id = ?3", Args: append([]txn.Arg{amount}, ints(p.W, p.D)...)},
		{SQL: "SELECT d_name FROM district WHERE d_w_id = ?1 AND d_id = ?2", Args: ints(p.W, p.D)},
		{SQL: "UPDATE customer SET c_balance = c_balance - ?1, c_ytd_payment = c_ytd_payment + ?1, c_payment_cnt = c_payment_cnt + 1, " +
			"c_data = CASE WHEN c_credit = 'BC' THEN SUBSTR(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', ?4, ' ', ?5, ' ', ?1 DIV 100, '.', LPAD(?1 % 100, 2, '0'), ' ', c_data), 1, 500) ELSE c_data END " +
			"WHERE c_w_id = ?2 AND c_d_id = ?3 AND c_id = " + c,
			Args: append(append([]txn.Arg{amount}, ints(p.CW, p.CD, p.D, p.W)...), cust)},
		{SQL: "SELECT c_id, c_first, c_middle, c_last, c_credit, c_balance FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = " + customerMySQL(byName, "?1", "?2", "?3"),
			Args: append(ints(p.CW, p.CD), cust)},
		{SQL: "INSERT INTO history (h_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) " +
			"SELECT ?1, " + customerMySQL(byName, "?2", "?3", "?4") + ", ?3, ?2, ?5, ?6, ?7, ?8, CONCAT(w_name, '    ', d_name) " +
			"FROM warehouse, district WHERE w_id = ?6 AND d_w_id = ?6 AND d_id = ?5",
			Args: append(append([]txn.Arg{txn.Text(p.HID)}, ints(p.CW, p.CD)...), cust, txn.Int(int64(p.D)), txn.Int(int64(p.W)), txn.Int(p.HDate), amount)},
	}
}
