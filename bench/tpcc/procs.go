package tpcc

// PostgreSQL functions for NewOrder and Payment, created by Setup through
// the chain (their bodies pass relchain's gate). Lists of order lines are
// passed as comma-separated text: statement arguments have no arrays.

// newOrderProc is NewOrder (TPC-C 2.4.2). It returns the order's total
// amount, sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX). An
// unused item number raises an exception, which rolls the whole
// wl-transaction back (TPC-C 2.4.2.3).
const newOrderProc = `CREATE OR REPLACE FUNCTION public.tpcc_new_order(p_w_id integer, p_d_id integer, p_c_id integer, p_ol_cnt integer, p_all_local integer, p_entry_d bigint, p_items text, p_supply text, p_qty text)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
	v_o_id integer;
	v_w_tax numeric;
	v_d_tax numeric;
	v_c_discount numeric;
	v_c_last varchar;
	v_c_credit varchar;
	v_i_id integer;
	v_supply integer;
	v_qty integer;
	v_price numeric;
	v_dist varchar;
	v_total numeric := 0;
BEGIN
	SELECT w_tax INTO STRICT v_w_tax FROM warehouse WHERE w_id = p_w_id;
	UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id
		RETURNING d_next_o_id - 1, d_tax INTO STRICT v_o_id, v_d_tax;
	SELECT c_discount, c_last, c_credit INTO STRICT v_c_discount, v_c_last, v_c_credit
		FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
	INSERT INTO orders (o_w_id, o_d_id, o_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
		VALUES (p_w_id, p_d_id, v_o_id, p_c_id, p_entry_d, NULL, p_ol_cnt, p_all_local);
	INSERT INTO new_order (no_w_id, no_d_id, no_o_id) VALUES (p_w_id, p_d_id, v_o_id);
	FOR i IN 1..p_ol_cnt LOOP
		v_i_id := split_part(p_items, ',', i)::integer;
		v_supply := split_part(p_supply, ',', i)::integer;
		v_qty := split_part(p_qty, ',', i)::integer;
		SELECT (SELECT i_price FROM item WHERE i_id = v_i_id) INTO STRICT v_price;
		IF v_price IS NULL THEN
			RAISE EXCEPTION 'tpcc: item number % is not valid', v_i_id;
		END IF;
		UPDATE stock SET
			s_quantity = CASE WHEN s_quantity >= v_qty + 10 THEN s_quantity - v_qty ELSE s_quantity - v_qty + 91 END,
			s_ytd = s_ytd + v_qty,
			s_order_cnt = s_order_cnt + 1,
			s_remote_cnt = s_remote_cnt + CASE WHEN v_supply <> p_w_id THEN 1 ELSE 0 END
			WHERE s_w_id = v_supply AND s_i_id = v_i_id
			RETURNING CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05
				WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
			INTO STRICT v_dist;
		INSERT INTO order_line (ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
			VALUES (p_w_id, p_d_id, v_o_id, i, v_i_id, v_supply, NULL, v_qty, v_qty * v_price, v_dist);
		v_total := v_total + v_qty * v_price;
	END LOOP;
	RETURN round(v_total * (1 - v_c_discount) * (1 + v_w_tax + v_d_tax), 2);
END
$$`

// paymentProc is Payment (TPC-C 2.5.2). p_c_id = 0 selects the customer
// by last name: the one at position ceil(n/2) of those named p_c_last,
// sorted by C_FIRST (C_ID breaks ties so the order is total). It returns
// the customer's new balance.
const paymentProc = `CREATE OR REPLACE FUNCTION public.tpcc_payment(p_w_id integer, p_d_id integer, p_c_w_id integer, p_c_d_id integer, p_c_id integer, p_c_last text, p_cents bigint, p_h_id text, p_h_date bigint)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
	v_amount numeric(12,2) := p_cents::numeric / 100;
	v_w_name varchar;
	v_d_name varchar;
	v_c_id integer := p_c_id;
	v_n integer;
	v_balance numeric;
BEGIN
	UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w_id RETURNING w_name INTO STRICT v_w_name;
	UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w_id AND d_id = p_d_id RETURNING d_name INTO STRICT v_d_name;
	IF v_c_id = 0 THEN
		SELECT count(*) INTO STRICT v_n FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
		SELECT c_id INTO STRICT v_c_id FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last
			ORDER BY c_first, c_id LIMIT 1 OFFSET (v_n - 1) / 2;
	END IF;
	UPDATE customer SET
		c_balance = c_balance - v_amount,
		c_ytd_payment = c_ytd_payment + v_amount,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC'
			THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || p_d_id || ' ' || p_w_id || ' ' || v_amount || ' ' || c_data, 500)
			ELSE c_data END
		WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id
		RETURNING c_balance INTO STRICT v_balance;
	INSERT INTO history (h_id, h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		VALUES (p_h_id, v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, p_h_date, v_amount, v_w_name || '    ' || v_d_name);
	RETURN v_balance;
END
$$`
