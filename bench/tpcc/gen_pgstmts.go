package tpcc

import (
	"fmt"
	"strings"

	"github.com/relchain/relchain/txn"
)

// The postgres dialect's statement form (Options.Statements): NewOrder and
// Payment as SQLite's multi-statement wl-transactions (gen.go), written in
// PostgreSQL's SQL on the PostgreSQL schema (NUMERIC money), doing what
// the PL/pgSQL functions (procs.go) do, row for row (TestDialectsReachTheSameState).
// The differences from SQLite's text: placeholders are $n; parameters in
// a VALUES list are cast (PostgreSQL types an uncast one text); money is
// the cents argument as NUMERIC(12,2), as the Payment function's
// v_amount; a remote supply counts by CASE (PostgreSQL has no integer +
// boolean); C_DATA uses left() and the amount's NUMERIC text.

// newOrderPG is NewOrder (TPC-C 2.4.2) in six statements. An unused item
// has no price: ORDER_LINE.OL_AMOUNT (NOT NULL) fails the INSERT and the
// wl-transaction rolls back, as the function's RAISE does.
func newOrderPG(p orderInput) []txn.Statement {
	wd := ints(p.W, p.D)
	const next = "FROM district WHERE d_w_id = $1 AND d_id = $2"
	var lines, stock []string
	olArgs, stArgs := ints(p.W, p.D), ints(p.W)
	for i := range p.Items {
		k := 3 + 3*i
		lines = append(lines, fmt.Sprintf("(%d, $%d::integer, $%d::integer, $%d::integer)", i+1, k, k+1, k+2))
		olArgs = append(olArgs, ints(p.Items[i], p.Supply[i], p.Qty[i])...)
		k = 2 + 3*i
		stock = append(stock, fmt.Sprintf("($%d::integer, $%d::integer, $%d::integer)", k, k+1, k+2))
		stArgs = append(stArgs, ints(p.Items[i], p.Supply[i], p.Qty[i])...)
	}
	return []txn.Statement{
		{SQL: "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_next_o_id - 1, d_tax", Args: wd},
		{SQL: "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3",
			Args: ints(p.W, p.D, p.C)},
		{SQL: "INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) " +
			"SELECT $1::integer, $2::integer, d_next_o_id - 1, $3::integer, $4::bigint, NULL, $5::integer, $6::integer " + next,
			Args: append(ints(p.W, p.D, p.C), txn.Int(p.EntryD), txn.Int(int64(len(p.Items))), txn.Int(b2i(p.AllLocal)))},
		{SQL: "INSERT INTO new_order (no_w_id, no_d_id, no_o_id) SELECT $1::integer, $2::integer, d_next_o_id - 1 " + next, Args: wd},
		{SQL: "INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) " +
			"SELECT $1::integer, $2::integer, d.d_next_o_id - 1, l.column1, l.column2, l.column3, NULL, l.column4, " +
			"l.column4 * (SELECT i_price FROM item WHERE i_id = l.column2), " +
			"(SELECT " + distCase("$2::integer") + " FROM stock WHERE s_w_id = l.column3 AND s_i_id = l.column2) " +
			"FROM district d, (VALUES " + strings.Join(lines, ", ") + ") AS l WHERE d.d_w_id = $1 AND d.d_id = $2 " +
			"RETURNING ol_number, ol_i_id, ol_amount",
			Args: olArgs},
		{SQL: "UPDATE stock SET s_quantity = CASE WHEN s_quantity >= l.column3 + 10 THEN s_quantity - l.column3 ELSE s_quantity - l.column3 + 91 END, " +
			"s_ytd = s_ytd + l.column3, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + CASE WHEN l.column2 <> $1 THEN 1 ELSE 0 END " +
			"FROM (VALUES " + strings.Join(stock, ", ") + ") AS l WHERE s_w_id = l.column2 AND s_i_id = l.column1",
			Args: stArgs},
	}
}

// amountPG is placeholder n (cents) as the Payment function's v_amount.
func amountPG(n int) string {
	return fmt.Sprintf("CAST(CAST($%d::bigint AS numeric) / 100 AS numeric(12,2))", n)
}

// paymentPG is Payment (TPC-C 2.5.2) in four statements. A customer that
// is not found leaves H_C_ID (NOT NULL) NULL and fails the wl-transaction,
// as the function's INTO STRICT does.
func paymentPG(p paymentInput, cust txn.Arg) []txn.Statement {
	byName := p.C == 0
	amount := txn.Int(p.Cents)
	a1 := amountPG(1)
	return []txn.Statement{
		{SQL: "UPDATE warehouse SET w_ytd = w_ytd + " + a1 + " WHERE w_id = $2 RETURNING w_name", Args: []txn.Arg{amount, txn.Int(int64(p.W))}},
		{SQL: "UPDATE district SET d_ytd = d_ytd + " + a1 + " WHERE d_w_id = $2 AND d_id = $3 RETURNING d_name", Args: append([]txn.Arg{amount}, ints(p.W, p.D)...)},
		{SQL: "UPDATE customer SET c_balance = c_balance - " + a1 + ", c_ytd_payment = c_ytd_payment + " + a1 + ", c_payment_cnt = c_payment_cnt + 1, " +
			"c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || $4::integer || ' ' || $5::integer || ' ' || " + a1 + " || ' ' || c_data, 500) ELSE c_data END " +
			"WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = " + customerSQL(byName, "$2", "$3", "$6") +
			" RETURNING c_id, c_first, c_middle, c_last, c_credit, c_balance",
			Args: append(append([]txn.Arg{amount}, ints(p.CW, p.CD, p.D, p.W)...), cust)},
		{SQL: "INSERT INTO history (h_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) " +
			"SELECT $1::text, " + customerSQL(byName, "$2", "$3", "$4") + ", $3::integer, $2::integer, $5::integer, $6::integer, $7::bigint, " + amountPG(8) + ", w_name || '    ' || d_name " +
			"FROM warehouse, district WHERE w_id = $6 AND d_w_id = $6 AND d_id = $5",
			Args: append(append([]txn.Arg{txn.Text(p.HID)}, ints(p.CW, p.CD)...), cust, txn.Int(int64(p.D)), txn.Int(int64(p.W)), txn.Int(p.HDate), amount)},
	}
}
