// Package smallbank is the Smallbank benchmark (Alomari et al., ICDE 2008;
// the H-Store/OLTPBench version the relational-blockchain paper cites) as a
// relchain workload: bank customers with a savings and a checking account,
// and five short write transactions that move money between them.
//
// # Schema
//
//	accounts (custid BIGINT PRIMARY KEY, name TEXT NOT NULL UNIQUE)
//	savings  (custid BIGINT PRIMARY KEY, bal BIGINT NOT NULL CHECK (bal >= 0))
//	checking (custid BIGINT PRIMARY KEY, bal BIGINT NOT NULL)
//
// Customers are 1..N (Options.Accounts, default 100,000), named
// "customer<id>". Balances are integer cents, so that sums are exact and
// behave the same on SQLite and PostgreSQL. The initial balances are a
// function of the id (InitialSavings, InitialChecking: savings $10,000.00
// to $19,999.99, checking $5,000.00 to $9,999.99), so InitialTotal is
// known without reading the database and Setup needs no randomness.
//
// # Setup
//
// One bc-transaction creates the tables; then one bc-transaction per
// RowsPerStatement (25,000) customers holds three INSERT ... SELECT
// statements whose rows the database generates itself: from
// generate_series(lo, hi) with constant bounds on PostgreSQL (the gate
// allows at most 1,000,000 rows), from a recursive CTE
// WITH RECURSIVE s(x) AS (SELECT lo UNION ALL SELECT x + 1 FROM s WHERE x < hi)
// on SQLite (25,000 rows stay far below SQLite's deterministic work budget
// of ~10^8 VM instructions per statement). 100,000 customers are 5
// bc-transactions of a few hundred bytes; on SQLite through the in-process
// harness they load in about 2 s.
//
// # Transactions
//
// The standard mix (DefaultMix) is 25 % SendPayment and 15 % each of the
// others; Options.Mix restricts it. Accounts are chosen uniformly or by a
// Zipf distribution with s = 1.1 (customer 1 hottest); transactions on two
// customers use two distinct ones. Amounts are 1..MaxAmount cents
// (TransactSavings: -MaxAmount..MaxAmount). Placeholders are ?n on SQLite
// and $n on PostgreSQL; the statements are otherwise identical.
//
//   - Balance(name), read-only, served by the query path:
//     SELECT a.custid, s.bal + c.bal FROM accounts a JOIN savings s ...
//     JOIN checking c ... WHERE a.name = ?1
//   - DepositChecking(name, v):
//     UPDATE checking SET bal = bal + ?1 WHERE custid = (SELECT custid FROM accounts WHERE name = ?2)
//   - TransactSavings(name, v), a deposit (v > 0) or withdrawal (v < 0):
//     UPDATE savings SET bal = bal + ?1 WHERE custid = (SELECT ... name = ?2).
//     A withdrawal larger than the balance violates savings' CHECK
//     (bal >= 0), so the statement fails and the wl-transaction rolls
//     back (MayFail).
//   - SendPayment(src, dst, v): UPDATE checking SET bal = CASE WHEN
//     bal >= ?1 THEN bal - ?1 END WHERE custid = ?2, then UPDATE checking
//     SET bal = bal + ?1 WHERE custid = ?2 (dst). Insufficient funds make
//     the CASE NULL, which violates NOT NULL: the first statement fails and
//     nothing is paid (MayFail). Checking itself may be negative (see
//     WriteCheck), so a CHECK constraint cannot express this rule; the
//     NOT NULL violation is the portable way to raise an error from a
//     condition in a plain statement (SQLite has RAISE only in triggers).
//   - WriteCheck(name, v): the Balance SELECT, then UPDATE checking SET
//     bal = bal - ?1 - CASE WHEN bal + (SELECT s.bal FROM savings s WHERE
//     s.custid = checking.custid) < ?1 THEN 100 ELSE 0 END WHERE custid =
//     (SELECT ... name = ?2): a check the total balance does not cover
//     costs an overdraft penalty of $1. The leading SELECT is there so that
//     the wl-transaction's own results tell whether the penalty applied
//     (both statements run in the same savepoint, one after the other).
//   - Amalgamate(src, dst): UPDATE checking SET bal = bal +
//     (SELECT s.bal + c.bal FROM savings s JOIN checking c ... WHERE
//     s.custid = ?1) WHERE custid = ?2, then set src's savings and
//     checking to 0.
//
// # Customers by id
//
// Options.Keys = ByID (relchain-bench's workload smallbank-id) names every
// customer by custid, as chainifyDB's Smallbank does: DepositChecking,
// TransactSavings and WriteCheck take the id where the statements above
// look the name up (... WHERE custid = ?2), and Balance reads
// SELECT s.custid, s.bal + c.bal FROM savings s JOIN checking c ON
// c.custid = s.custid WHERE s.custid = ?1. Results, failures and the
// consistency check are the same. It exists for parallel execution (issue
// 38): a block whose statements name a table's rows both by id and by a
// name lookup cannot be split by their text, one whose statements all
// give the key can.
//
// With the default balances and uniform accounts about 0.1 % of
// SendPayment and TransactSavings fail (5 of 5,000 wl-transactions over
// 100,000 customers). Under Zipf the hot customers are soon amalgamated to
// zero, and about a fifth of their payments and withdrawals fail: that is
// Smallbank's logic under skew, not an error.
//
// All statements pass relchain's determinism gate unchanged: no clock, no
// random(), no LIMIT, single-row updates by primary key.
//
// # Consistency check
//
// Check verifies that accounts, savings and checking each hold exactly the
// customers 1..N (counts, distinct ids, minimum and maximum, and their
// join), that every name is customer<id>, that no savings balance is
// negative, and that the total money sum(savings.bal) + sum(checking.bal)
// equals InitialTotal plus the Effect of every committed write
// wl-transaction: +v for DepositChecking and TransactSavings, -v (or
// -v - 100 when the leading SELECT showed a total below v) for WriteCheck,
// 0 for SendPayment and Amalgamate. Effect also requires every UPDATE of a
// committed wl-transaction to have changed exactly one row. Failed
// wl-transactions (rolled back) contribute nothing.
package smallbank
