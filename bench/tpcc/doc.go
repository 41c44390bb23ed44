// Package tpcc is the TPC-C workload as the paper runs it (BTW 2023,
// sections 4-5): the nine TPC-C tables, the writing transactions NewOrder
// and Payment, and the read-only OrderStatus, which the paper uses to
// measure the query path. The paper ran them on PostgreSQL as stored
// procedures; here PostgreSQL gets PL/pgSQL functions created by Setup
// through the chain, and SQLite gets each transaction as a parameterised
// multi-statement wl-transaction. With Options.Statements the postgres
// dialect gets SQLite's form in PostgreSQL's SQL instead (gen_pgstmts.go,
// NUMERIC money): the form a network of the postgres dialect on SQLite
// runs, whose translator has no PL/pgSQL. MySQL, whose gate refuses stored
// procedures, gets the SQLite form in MySQL's syntax (gen_mysql.go), with
// integer money like SQLite. All dialects execute the same stream of
// transactions with the same parameters and reach the same rows (the
// tests compare every table).
//
// # Scale
//
// tpcc.New(tpcc.Options{}) is the paper's 10 warehouses at the
// specification's cardinalities (4.3.3.1): 10 districts per warehouse,
// 3,000 customers per district (one history row each), 100,000 items,
// 100,000 stock rows per warehouse, 3,000 initial orders per district with
// 5-15 lines each, the last 900 of them undelivered and in new_order.
// Options scale districts, customers, items and initial orders down for
// tests; the undelivered share stays 30 % (rounded up).
//
// # Schema
//
// warehouse (w_id), district (d_w_id, d_id), customer (c_w_id, c_d_id,
// c_id) with an index on (c_w_id, c_d_id, c_last, c_first, c_id) for the
// selection by last name, history (h_id), new_order (no_w_id, no_d_id,
// no_o_id), orders (o_w_id, o_d_id, o_id) with an index on (o_w_id,
// o_d_id, o_c_id, o_id) for OrderStatus, order_line (ol_w_id, ol_d_id,
// ol_o_id, ol_number), item (i_id), stock (s_w_id, s_i_id). The table of
// orders is called orders (ORDER is a keyword). Columns are the
// specification's (1.3).
//
// Money is exact on both dialects: NUMERIC(12,2) on PostgreSQL and
// integer cents on SQLite; taxes and discounts are NUMERIC(4,4) on
// PostgreSQL and integer ten-thousandths on SQLite. Dates (C_SINCE,
// O_ENTRY_D, OL_DELIVERY_D, H_DATE) are BIGINT Unix seconds on both,
// supplied by the generator (LoadTime for the population, RunTime + k for
// a client's k-th transaction): no statement reads a clock, so the raw
// baseline database reaches exactly the same rows from the same
// statements.
//
// History has no key in the specification; here h_id is a text key the
// client supplies: "L-w-d-c" for the population, "P-seed-client-k" for the
// k-th transaction of a client's generator. A second run with the same
// seed on the same database would repeat keys: use a new seed.
//
// # Setup
//
// Setup is plain SQL, generated inside the database: INSERT ... SELECT over
// generate_series on PostgreSQL and over WITH RECURSIVE counters on SQLite
// (PostgreSQL's gate refuses WITH RECURSIVE; SQLite has no
// generate_series). Pseudo-random attributes come from a hash-like
// function of the row's ids, h(x) = ((y*y mod p)*69621 + s) mod p with y =
// (x*48271 + s) mod p and p = 2^31-1, in 64-bit integer arithmetic, with a
// different salt s per attribute; random strings are cut out of a fixed
// pseudo-random 800-character string at an h-chosen offset and length. No
// random(), so every node and the raw baseline generate the same rows.
// C_LAST is the syllable name of c_id-1 for the first 1,000 customers of a
// district, and of NURand(255, 0, 999) with C = CLoad (computed with h) for
// the others; initial O_C_ID is a permutation of the customers (an affine
// map modulo the number of customers); I_DATA and S_DATA hold "ORIGINAL" in
// 10 % of the rows; customers have bad credit ("BC") in 10 %.
//
// The bc-transactions: the schema (and on PostgreSQL the two functions);
// items, warehouses and districts; then one per load statement of each
// warehouse (customers, history, stock, orders, new_order, and order lines
// per district: 18 per warehouse, so that each runs within a validator's
// tx_timeout). That is 182 at the default scale, each within workload.MaxSetupStatements and
// MaxSetupBytes. Statements are split (items in 50,000s, stock in 25,000s,
// order lines per district) to stay well inside SQLite's deterministic
// budget of ~10^8 VM instructions per statement and PostgreSQL's limit of
// 1,000,000 generate_series rows per statement. Measured through the
// in-process chain (workloadtest, state digests included) on 2 shared
// cores (BenchmarkSetup, TPCC_WAREHOUSES=n): one warehouse at full scale
// takes about 11 s on SQLite and 24 s on PostgreSQL, the default 10
// warehouses 106 s and 114 s. About 40 % of SQLite's time is the chain's
// per-row state digest.
//
// # Transactions
//
// The generator of (seed, client) is a PCG stream (math/rand/v2); it does
// not depend on the dialect. Each transaction picks its warehouse and
// district uniformly, as the paper does (the specification pins a terminal
// to a home warehouse). Customer ids are NURand(1023, 1, C), item ids
// NURand(8191, 1, I), last names NURand(255, 0, 999) (restricted to the
// names that exist when a district has fewer than 1,000 customers), with
// the constants CCustomer, CItem and CRun (CRun - CLoad = 85, as 2.1.6.1
// requires).
//
// NewOrder (2.4): 5-15 lines of distinct items, quantity 1-10; each line's
// supply warehouse is another one with probability 1 % when there are
// several; in 1 % of NewOrders the last item is the unused number I+1 and
// the whole transaction must roll back (WL.MayFail). On PostgreSQL it is
// one statement,
//
//	SELECT public.tpcc_new_order(w, d, c, ol_cnt, all_local, entry_d, '7,42,..', '1,1,..', '5,3,..')
//
// with the lines as comma-separated text (statement arguments have no
// arrays, and the gate refuses string_to_array). The function reads W_TAX,
// increments D_NEXT_O_ID (UPDATE ... RETURNING INTO STRICT), reads the
// customer, inserts orders and new_order, and per line reads I_PRICE
// (SELECT (SELECT i_price ...) INTO STRICT), raises "tpcc: item number N
// is not valid" when it is NULL, updates stock and inserts the order line;
// it returns the order's total. On SQLite it is six statements: UPDATE
// district SET d_next_o_id = d_next_o_id + 1 ... RETURNING (the new order's
// id is D_NEXT_O_ID - 1 in the following statements, read by subqueries:
// the client cannot know it); SELECT of the customer's discount, name and
// credit and W_TAX; INSERT INTO orders ... SELECT ... FROM district;
// INSERT INTO new_order ... SELECT ... FROM district; one INSERT INTO
// order_line ... SELECT ... FROM (VALUES (line, item, supply, qty), ...)
// whose OL_AMOUNT (NOT NULL) is quantity * (SELECT i_price ...), so an
// unused item fails the statement with "NOT NULL constraint failed:
// order_line.ol_amount" and the wl-transaction rolls back; and one UPDATE
// stock ... FROM (VALUES ...) for all lines (the items are distinct).
//
// Payment (2.5): amount 1.00-5000.00; the customer is of another
// warehouse (and a random district) with probability 15 % when there are
// several, selected by last name with probability 60 %: the customer at
// position ceil(n/2) of those with that name ordered by C_FIRST (C_ID
// breaks ties so the order is total, which the gate's LIMIT rule needs).
// On PostgreSQL it is SELECT public.tpcc_payment(w, d, c_w, c_d, c_id (0 =
// by name), c_last, cents, h_id, h_date); on SQLite four statements:
// UPDATE warehouse, UPDATE district, UPDATE customer (balance, YTD payment,
// payment count, and for bad credit C_DATA prefixed with the payment and
// cut to 500 characters) and INSERT INTO history ... SELECT, the customer
// chosen by a subquery (... ORDER BY c_first, c_id LIMIT 1 OFFSET (count -
// 1) / 2).
//
// OrderStatus (2.6) is read-only, one SELECT on both dialects: the
// customer (by id or by last name as in Payment) LEFT JOIN its order of
// highest O_ID LEFT JOIN that order's lines, ordered by OL_NUMBER.
//
// # Mix
//
// DefaultMix is the paper's "uniform mixture of writing wl-transactions":
// NewOrder and Payment half each. The paper measures OrderStatus on its
// own; Options.Mix sets any weights, e.g. the specification's 45/43/4
// (normalized over these three kinds).
//
// # Consistency
//
// Check verifies the specification's consistency conditions 1-4
// (3.3.2.1-3.3.2.4) in SQL, exactly: W_YTD = sum(D_YTD) per warehouse;
// D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district; max(NO_O_ID) -
// min(NO_O_ID) + 1 = count(new_order) per district; sum(O_OL_CNT) =
// count(order_line) per district. A violation is reported with the
// warehouse, the district and the values.
//
// # Departures from the specification
//
//   - Delivery and StockLevel are not implemented (the paper runs neither).
//   - Warehouse and district are uniform per transaction, not a terminal's
//     home warehouse; there are no keying or think times.
//   - The items of one NewOrder are distinct (the SQLite form updates all
//     stock rows in one statement).
//   - The NURand constants are fixed, not drawn per run; the population's
//     randomness is a hash of the ids, not a random number generator.
//   - Dates are Unix seconds supplied by the client, money on SQLite is
//     integer cents, and history has a client-supplied key.
//   - The SQLite NewOrder does not compute the order's total (the
//     PostgreSQL function returns it); its statements return the order
//     id, the customer's data and the lines' amounts.
//   - C_DATA for bad credit gets "c_id c_d_id c_w_id d_id w_id amount " in
//     front, cut to 500 characters.
package tpcc
