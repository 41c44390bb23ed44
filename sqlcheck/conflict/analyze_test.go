package conflict

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fakeCatalog is a Catalog over a fixed set of tables and routines.
type fakeCatalog struct {
	tables   map[string]Table
	routines map[string]bool
}

func (c fakeCatalog) Table(name string) (Table, bool) {
	t, ok := c.tables[name]
	return t, ok
}

func (c fakeCatalog) Routine(name string) bool { return c.routines[name] }

func intKey(names ...string) []Column {
	var cols []Column
	for _, n := range names {
		cols = append(cols, Column{Name: n, Kind: KindInt})
	}
	return cols
}

// testCatalog: Smallbank's accounts/savings/checking, a TPC-C-like
// district/stock/orders/order_line, and hazards.
func testCatalog() fakeCatalog {
	ts := []Table{
		{Name: "accounts", PrimaryKey: []Column{{Name: "name", Kind: KindText}}, KeyIsOnlyUnique: true},
		{Name: "savings", PrimaryKey: intKey("custid"), KeyIsOnlyUnique: true},
		{Name: "checking", PrimaryKey: intKey("custid"), KeyIsOnlyUnique: true},
		{Name: "district", PrimaryKey: intKey("d_w_id", "d_id"), KeyIsOnlyUnique: true},
		{Name: "stock", PrimaryKey: intKey("s_w_id", "s_i_id"), KeyIsOnlyUnique: true},
		{Name: "orders", PrimaryKey: intKey("o_w_id", "o_d_id", "o_id"), KeyIsOnlyUnique: true, Related: []string{"order_line"}},
		{Name: "order_line", PrimaryKey: intKey("ol_w_id", "ol_d_id", "ol_o_id", "ol_number"), KeyIsOnlyUnique: true, Related: []string{"orders"}},
		{Name: "history", PrimaryKey: intKey("h_id"), KeyIsOnlyUnique: true, Sequences: []string{"history_h_id_seq"}},
		{Name: "uniq", PrimaryKey: intKey("id"), KeyIsOnlyUnique: false},
		{Name: "nokey", KeyIsOnlyUnique: true},
		{Name: "opaque", PrimaryKey: intKey("id"), KeyIsOnlyUnique: true, Opaque: true},
		{Name: "floaty", PrimaryKey: []Column{{Name: "id", Kind: KindOther}}, KeyIsOnlyUnique: true},
		{Name: "parent", PrimaryKey: intKey("id"), KeyIsOnlyUnique: true, Related: []string{"child"}},
		{Name: "child", PrimaryKey: intKey("id"), KeyIsOnlyUnique: true, Related: []string{"grandchild", "parent"}},
		{Name: "grandchild", PrimaryKey: intKey("id"), KeyIsOnlyUnique: true, Related: []string{"child"}},
		{Name: "tofrozen", PrimaryKey: intKey("id"), KeyIsOnlyUnique: true, Related: []string{"opaque"}},
		{Name: "other.t", PrimaryKey: intKey("id"), KeyIsOnlyUnique: true},
		{Name: "Quoted", PrimaryKey: intKey("id"), KeyIsOnlyUnique: true},
		{Name: "customers", PrimaryKey: intKey("custid"), Unique: []Column{{Name: "name", Kind: KindText}, {Name: "code", Kind: KindInt}}},
	}
	c := fakeCatalog{tables: map[string]Table{}, routines: map[string]bool{"lower": true, "f": true}}
	for _, t := range ts {
		c.tables[t.Name] = t
	}
	return c
}

func row(rel string, vals ...string) Key { return Key{Rel: "t:" + rel, Row: rowKey(vals)} }
func whole(rel string) Key               { return Key{Rel: "t:" + rel} }

// found is the row of rel whose key is column to of the customers row
// whose column by holds v.
func found(rel, by, to, v string) Key {
	return Key{Rel: "t:" + rel, Via: rowKey([]string{"customers", by, to}), Row: rowKey([]string{v})}
}
func seq(name string) Key        { return Key{Rel: "s:" + name} }
func keys(ks ...Key) []Key       { return ks }
func reads(ks ...Key) Access     { return Access{Reads: ks} }
func writes(ks ...Key) Access    { return Access{Writes: ks} }
func rw(r []Key, w []Key) Access { return Access{Reads: r, Writes: w} }
func args(vs ...any) []any       { return vs }

var all = Access{All: true}

func TestAnalyze(t *testing.T) {
	cat := testCatalog()
	cases := []struct {
		name string
		sql  string
		args []any
		want Access
	}{
		// Smallbank.
		{"smallbank deposit", "UPDATE checking SET bal = bal + $1 WHERE custid = $2", args(10.5, int64(7)), writes(row("checking", "7"))},
		{"smallbank balance", "SELECT bal FROM savings WHERE custid = $1", args(int64(3)), reads(row("savings", "3"))},
		{"smallbank by name", "SELECT custid FROM accounts WHERE name = $1", args("alice"), reads(row("accounts", "alice"))},
		{"pk on the right", "UPDATE savings SET bal = 0 WHERE $1 = custid", args(int64(3)), writes(row("savings", "3"))},
		{"qualified by table", "DELETE FROM savings WHERE savings.custid = 4", nil, writes(row("savings", "4"))},
		{"qualified by alias", "SELECT * FROM savings s WHERE s.custid = 4 AND s.bal > 0", nil, reads(row("savings", "4"))},
		{"table name hidden by alias", "SELECT * FROM savings s WHERE savings.custid = 4", nil, reads(whole("savings"))},
		{"alias renames the columns", "SELECT * FROM savings AS s(bal, custid) WHERE custid = 4", nil, reads(whole("savings"))},
		{"alias renames the columns, qualified", "SELECT * FROM savings AS s(bal, custid) WHERE s.custid = 4", nil, reads(whole("savings"))},
		{"join renaming columns", "SELECT * FROM savings s(bal, custid) JOIN checking c ON c.custid = s.custid WHERE s.custid = 4", nil, reads(whole("checking"), whole("savings"))},
		{"lookup renaming columns", "UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers AS c(code, custid) WHERE code = 3)", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"public qualifier", "SELECT * FROM public.savings WHERE custid = 4", nil, reads(row("savings", "4"))},
		{"other schema", "SELECT * FROM other.t WHERE id = 4", nil, reads(row("other.t", "4"))},
		{"quoted name", `SELECT * FROM "Quoted" WHERE id = 4`, nil, reads(row("Quoted", "4"))},
		{"unquoted folds", `SELECT * FROM QUOTED WHERE id = 4`, nil, all},
		{"zero", "SELECT * FROM savings WHERE custid = 0", nil, reads(row("savings", "0"))},
		{"negative", "SELECT * FROM savings WHERE custid = -5", nil, reads(row("savings", "-5"))},
		{"int8 literal", "SELECT * FROM savings WHERE custid = 9000000000", nil, reads(row("savings", "9000000000"))},
		{"beyond int8", "SELECT * FROM savings WHERE custid = 90000000000000000000", nil, reads(whole("savings"))},
		{"IN list", "SELECT * FROM savings WHERE custid IN (1, $1, '3')", args(int64(2)), reads(row("savings", "1"), row("savings", "2"), row("savings", "3"))},
		{"IN list with an expression", "SELECT * FROM savings WHERE custid IN (1, 1 + 1)", nil, reads(whole("savings"))},
		{"NOT IN", "SELECT * FROM savings WHERE custid NOT IN (1, 2)", nil, reads(whole("savings"))},
		{"OR at top", "SELECT * FROM savings WHERE custid = 1 OR custid = 2", nil, reads(whole("savings"))},
		{"OR beside a pin", "SELECT * FROM savings WHERE custid = 1 AND (bal = 2 OR bal = 3)", nil, reads(row("savings", "1"))},
		{"NOT", "SELECT * FROM savings WHERE NOT (custid = 1)", nil, reads(whole("savings"))},
		{"no WHERE", "SELECT * FROM savings", nil, reads(whole("savings"))},
		{"other operator", "SELECT * FROM savings WHERE custid >= 1 AND custid <= 1", nil, reads(whole("savings"))},
		{"expression value", "UPDATE savings SET bal = 0 WHERE custid = $1 + 1", args(int64(1)), writes(whole("savings"))},
		{"column value", "UPDATE savings SET bal = 0 WHERE custid = bal", nil, writes(whole("savings"))},
		// Values and casts.
		{"cast keeps int", "SELECT * FROM savings WHERE custid = $1::bigint", args(int64(5)), reads(row("savings", "5"))},
		{"string arg canonical", "SELECT * FROM savings WHERE custid = $1", args("12"), reads(row("savings", "12"))},
		{"string arg leading zero", "SELECT * FROM savings WHERE custid = $1", args("012"), reads(whole("savings"))},
		{"string arg plus", "SELECT * FROM savings WHERE custid = $1", args("+12"), reads(whole("savings"))},
		{"string arg space", "SELECT * FROM savings WHERE custid = $1", args(" 12"), reads(whole("savings"))},
		{"string arg underscore", "SELECT * FROM savings WHERE custid = $1", args("1_2"), reads(whole("savings"))},
		{"string arg hex", "SELECT * FROM savings WHERE custid = $1", args("0x1F"), reads(whole("savings"))},
		{"string literal hex", "SELECT * FROM savings WHERE custid = '0x1F'", nil, reads(whole("savings"))},
		{"string literal under int cast", "SELECT * FROM savings WHERE custid = '07'::int", nil, reads(whole("savings"))},
		{"float arg", "SELECT * FROM savings WHERE custid = $1", args(5.0), reads(whole("savings"))},
		{"float literal", "SELECT * FROM savings WHERE custid = 5.0", nil, reads(whole("savings"))},
		{"bool arg", "SELECT * FROM savings WHERE custid = $1", args(true), reads(whole("savings"))},
		{"bytes arg", "SELECT * FROM accounts WHERE name = $1", args([]byte("a")), reads(whole("accounts"))},
		{"null arg", "SELECT * FROM savings WHERE custid = $1", args(nil), reads(whole("savings"))},
		{"null literal", "SELECT * FROM savings WHERE custid = NULL", nil, reads(whole("savings"))},
		{"missing arg", "SELECT * FROM savings WHERE custid = $2", args(int64(1)), reads(whole("savings"))},
		{"cast to numeric", "SELECT * FROM savings WHERE custid = $1::numeric", args(int64(5)), reads(whole("savings"))},
		{"cast to text on int key", "SELECT * FROM savings WHERE custid = $1::text", args("5"), reads(whole("savings"))},
		{"int arg on text key", "SELECT * FROM accounts WHERE name = $1", args(int64(5)), reads(whole("accounts"))},
		{"varchar(n) truncates", "SELECT * FROM accounts WHERE name = $1::varchar(3)", args("abcdef"), reads(whole("accounts"))},
		{"char pads", "SELECT * FROM accounts WHERE name = $1::char(3)", args("ab"), reads(whole("accounts"))},
		{"text cast", "SELECT * FROM accounts WHERE name = $1::text", args("ab "), reads(row("accounts", "ab "))},
		{"collate", "SELECT * FROM accounts WHERE name = 'a' COLLATE \"C\"", nil, reads(whole("accounts"))},
		{"KindOther key", "SELECT * FROM floaty WHERE id = 1", nil, reads(whole("floaty"))},
		{"no key", "SELECT * FROM nokey WHERE id = 1", nil, reads(whole("nokey"))},
		{"qualified operator", "SELECT * FROM savings WHERE custid OPERATOR(pg_catalog.=) 1", nil, reads(whole("savings"))},
		// Multi-column keys (TPC-C NewOrder).
		{"district for update", "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = $1 AND d_id = $2 FOR UPDATE", args(int64(1), int64(12)), writes(row("district", "1", "12"))},
		{"district update", "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = $2 AND d_w_id = $1", args(int64(1), int64(12)), writes(row("district", "1", "12"))},
		{"part of the key", "SELECT * FROM district WHERE d_w_id = 1", nil, reads(whole("district"))},
		{"IN on a composite key", "SELECT * FROM district WHERE d_w_id = 1 AND d_id IN (1, 2)", nil, reads(whole("district"))},
		{"stock", "UPDATE stock SET s_quantity = $1 WHERE s_i_id = $2 AND s_w_id = $3", args(int64(5), int64(100), int64(1)), writes(row("stock", "1", "100"))},
		{"insert orders (FK)", "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id) VALUES ($1, $2, $3, $4)", args(int64(3001), int64(1), int64(1), int64(7)), writes(whole("order_line"), whole("orders"))},
		// INSERT.
		{"insert by key", "INSERT INTO savings (custid, bal) VALUES ($1, 0), (2, 1)", args(int64(1)), writes(row("savings", "1"), row("savings", "2"))},
		{"insert text key", "INSERT INTO accounts (name, custid) VALUES ('bob', 1)", nil, writes(row("accounts", "bob"))},
		{"insert on conflict", "INSERT INTO savings (custid, bal) VALUES (1, 0) ON CONFLICT (custid) DO UPDATE SET bal = savings.bal + 1", nil, writes(row("savings", "1"))},
		{"insert on conflict sets key", "INSERT INTO savings (custid, bal) VALUES (1, 0) ON CONFLICT (custid) DO UPDATE SET custid = 2", nil, writes(whole("savings"))},
		{"insert key omitted", "INSERT INTO savings (bal) VALUES (1)", nil, writes(whole("savings"))},
		{"insert without columns", "INSERT INTO savings VALUES (1, 1)", nil, writes(whole("savings"))},
		{"insert DEFAULT key", "INSERT INTO savings (custid, bal) VALUES (DEFAULT, 1)", nil, writes(whole("savings"))},
		{"insert one bad row", "INSERT INTO savings (custid, bal) VALUES (1, 1), ($1, 2)", args(1.5), writes(whole("savings"))},
		{"insert select", "INSERT INTO savings (custid, bal) SELECT custid, bal FROM checking WHERE custid = 1", nil, rw(keys(whole("checking")), keys(whole("savings")))},
		{"insert values subquery", "INSERT INTO savings (custid, bal) VALUES (1, (SELECT bal FROM checking WHERE custid = 2))", nil, rw(keys(whole("checking")), keys(row("savings", "1")))},
		{"insert serial", "INSERT INTO history (h_data) VALUES ('x')", nil, writes(seq("history_h_id_seq"), whole("history"))},
		{"insert serial with key", "INSERT INTO history (h_id, h_data) VALUES (5, 'x')", nil, writes(seq("history_h_id_seq"), row("history", "5"))},
		{"insert other unique", "INSERT INTO uniq (id) VALUES (1)", nil, writes(whole("uniq"))},
		// UPDATE and DELETE.
		{"update sets key", "UPDATE savings SET custid = 9 WHERE custid = 1", nil, writes(whole("savings"))},
		{"update sets key by row", "UPDATE savings SET (bal, custid) = (1, 9) WHERE custid = 1", nil, writes(whole("savings"))},
		{"update from", "UPDATE savings SET bal = c.bal FROM checking c WHERE savings.custid = 1 AND c.custid = 1", nil, rw(keys(whole("checking")), keys(whole("savings")))},
		{"update subquery", "UPDATE savings SET bal = (SELECT bal FROM checking WHERE custid = 1) WHERE custid = 1", nil, rw(keys(row("checking", "1")), keys(row("savings", "1")))},
		{"update self subquery", "UPDATE savings SET bal = 0 WHERE custid = 1 AND bal < (SELECT max(bal) FROM savings)", nil, rw(keys(whole("savings")), keys(row("savings", "1")))},
		{"update DEFAULT draws sequence", "UPDATE history SET h_id = DEFAULT WHERE h_id = 1", nil, writes(seq("history_h_id_seq"), whole("history"))},
		{"delete using", "DELETE FROM savings USING checking WHERE savings.custid = checking.custid AND savings.custid = 1", nil, rw(keys(whole("checking")), keys(whole("savings")))},
		{"delete other unique", "DELETE FROM uniq WHERE id = 1", nil, writes(whole("uniq"))},
		{"delete cascades transitively", "DELETE FROM parent WHERE id = 1", nil, writes(whole("child"), whole("grandchild"), whole("parent"))},
		{"cascade into opaque", "DELETE FROM tofrozen WHERE id = 1", nil, all},
		{"read of FK table stays by row", "SELECT * FROM parent WHERE id = 1", nil, reads(row("parent", "1"))},
		{"merge", "MERGE INTO savings s USING checking c ON s.custid = c.custid WHEN MATCHED THEN UPDATE SET bal = c.bal", nil, rw(keys(whole("checking")), keys(whole("savings")))},
		// Joins, subqueries, CTEs, locks.
		{"join", "SELECT * FROM savings s JOIN checking c ON s.custid = c.custid WHERE s.custid = 1", nil, reads(row("checking", "1"), row("savings", "1"))},
		{"union", "SELECT custid FROM savings WHERE custid = 1 UNION SELECT custid FROM checking WHERE custid = 1", nil, reads(whole("checking"), whole("savings"))},
		{"subquery in WHERE", "SELECT * FROM savings WHERE custid = 1 AND EXISTS (SELECT 1 FROM checking)", nil, reads(whole("checking"), row("savings", "1"))},
		{"CTE", "WITH x AS (SELECT * FROM checking) SELECT * FROM x WHERE custid = 1", nil, reads(whole("checking"))},
		{"CTE shadows a table", "WITH savings AS (SELECT * FROM checking) SELECT * FROM savings WHERE custid = 1", nil, reads(whole("checking"))},
		{"CTE out of scope is the table", "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM savings) SELECT * FROM a", nil, all},
		{"CTE name inside its body", "WITH savings AS (SELECT * FROM savings) SELECT * FROM savings", nil, reads(whole("savings"))},
		{"data-modifying CTE", "WITH d AS (DELETE FROM checking WHERE custid = 1 RETURNING *) SELECT * FROM d", nil, writes(whole("checking"))},
		{"CTE then key update", "WITH x AS (SELECT 5 AS v) UPDATE savings SET bal = (SELECT v FROM x) WHERE custid = 1", nil, writes(row("savings", "1"))},
		{"for share", "SELECT * FROM savings WHERE custid = 1 FOR SHARE", nil, writes(row("savings", "1"))},
		{"for update of a join", "SELECT * FROM savings s JOIN checking c USING (custid) FOR UPDATE OF s", nil, writes(whole("checking"), whole("savings"))},
		{"lock in subquery", "SELECT * FROM savings WHERE custid = (SELECT custid FROM checking WHERE custid = 1 FOR KEY SHARE)", nil, writes(whole("checking"), whole("savings"))},
		// Lookups: keys found through a unique column (Smallbank by name).
		{"deposit by name", "UPDATE checking SET bal = bal + $1 WHERE custid = (SELECT custid FROM customers WHERE name = $2)", args(int64(5), "alice"),
			rw(keys(whole("customers")), keys(found("checking", "name", "custid", "alice")))},
		{"balance by name", "SELECT a.custid, s.bal + c.bal FROM customers a JOIN savings s ON s.custid = a.custid JOIN checking c ON c.custid = a.custid WHERE a.name = $1", args("bob"),
			reads(found("checking", "name", "custid", "bob"), whole("customers"), found("savings", "name", "custid", "bob"))},
		{"write check by name", "UPDATE checking SET bal = bal - $1 - CASE WHEN bal + (SELECT s.bal FROM savings s WHERE s.custid = checking.custid) < $1 THEN 1 ELSE 0 END WHERE custid = (SELECT custid FROM customers WHERE name = $2)", args(int64(5), "carol"),
			rw(keys(whole("customers"), found("savings", "name", "custid", "carol")), keys(found("checking", "name", "custid", "carol")))},
		{"amalgamate", "UPDATE checking SET bal = bal + (SELECT s.bal + c.bal FROM savings s JOIN checking c ON c.custid = s.custid WHERE s.custid = $1) WHERE custid = $2", args(int64(1), int64(2)),
			rw(keys(row("checking", "1"), row("savings", "1")), keys(row("checking", "2")))},
		{"chained join", "SELECT * FROM customers a, savings s, checking c WHERE c.custid = s.custid AND s.custid = a.custid AND a.name = 'x'", nil,
			reads(found("checking", "name", "custid", "x"), whole("customers"), found("savings", "name", "custid", "x"))},
		{"lookup by another unique column", "DELETE FROM savings WHERE custid = (SELECT custid FROM customers WHERE code = 7)", nil,
			rw(keys(whole("customers")), keys(found("savings", "code", "custid", "7")))},
		{"lookup of a unique column by the key", "SELECT * FROM customers a JOIN customers b ON b.code = a.code WHERE a.custid = 3", nil,
			reads(whole("customers"))},
		{"lookup by the key itself", "UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers WHERE custid = 3)", nil,
			rw(keys(whole("customers")), keys(row("checking", "3")))},
		{"insert a looked-up key", "INSERT INTO savings (custid, bal) VALUES ((SELECT custid FROM customers WHERE name = 'x'), 0)", nil,
			rw(keys(whole("customers")), keys(found("savings", "name", "custid", "x")))},
		{"write to the looked-up table", "UPDATE customers SET name = 'y' WHERE custid = 3", nil, writes(whole("customers"))},
		{"lookup by a column not unique", "UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers WHERE bal = 7)", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"lookup of a column not unique", "UPDATE checking SET bal = 0 WHERE custid = (SELECT bal FROM customers WHERE name = 'x')", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"lookup of another kind", "UPDATE checking SET bal = 0 WHERE custid = (SELECT name FROM customers WHERE custid = 1)", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"lookup with ORDER BY and LIMIT", "UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers WHERE name = 'x' ORDER BY custid LIMIT 1)", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"lookup locking", "UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers WHERE name = 'x' FOR UPDATE)", nil, writes(whole("checking"), whole("customers"))},
		{"lookup of an expression", "UPDATE checking SET bal = 0 WHERE custid = (SELECT custid + 1 FROM customers WHERE name = 'x')", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"lookup by a looked-up value", "UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers WHERE code = (SELECT code FROM customers WHERE name = 'x'))", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"IN a subquery", "UPDATE checking SET bal = 0 WHERE custid IN (SELECT custid FROM customers WHERE name = 'x')", nil, rw(keys(whole("customers")), keys(whole("checking")))},
		{"lookup from a CTE", "WITH customers AS (SELECT 1 AS custid, 'x' AS name) UPDATE checking SET bal = 0 WHERE custid = (SELECT custid FROM customers WHERE name = 'x')", nil, writes(whole("checking"))},
		{"left join", "SELECT * FROM customers a LEFT JOIN savings s ON s.custid = a.custid WHERE a.name = 'x'", nil, reads(whole("customers"), whole("savings"))},
		{"join on a column not unique", "SELECT * FROM customers a JOIN savings s ON s.custid = a.bal WHERE a.name = 'x'", nil, reads(whole("customers"), whole("savings"))},
		{"join by bare names", "SELECT * FROM savings s JOIN checking c ON custid = c.custid WHERE s.custid = 1", nil, reads(whole("checking"), row("savings", "1"))},
		{"join of the most tables", "SELECT * FROM savings s0" + joinChain(maxJoinItems), nil, reads(row("savings", "1"))},
		{"join of too many tables", "SELECT * FROM savings s0" + joinChain(maxJoinItems+1), nil, reads(whole("savings"))},
		{"join with an alias", "SELECT * FROM (savings s JOIN checking c ON c.custid = s.custid) AS j WHERE s.custid = 1", nil, reads(whole("checking"), whole("savings"))},
		{"target key in a WHERE subquery", "UPDATE checking SET bal = 0 WHERE custid = 1 AND bal > (SELECT bal FROM savings s WHERE s.custid = checking.custid)", nil, rw(keys(whole("savings")), keys(row("checking", "1")))},
		{"target key hidden by an alias", "UPDATE checking SET bal = (SELECT c.bal FROM savings checking, checking c WHERE c.custid = checking.custid) WHERE custid = 1", nil, rw(keys(whole("checking"), whole("savings")), keys(row("checking", "1")))},
		{"target of several keys", "UPDATE checking SET bal = (SELECT bal FROM savings s WHERE s.custid = checking.custid) WHERE custid IN (1, 2)", nil, rw(keys(whole("savings")), keys(row("checking", "1"), row("checking", "2")))},
		{"target key in RETURNING", "UPDATE checking SET bal = 0 WHERE custid = 4 RETURNING (SELECT bal FROM savings s WHERE s.custid = checking.custid)", nil, rw(keys(row("savings", "4")), keys(row("checking", "4")))},
		// Refusals.
		{"DDL", "CREATE TABLE z (id int PRIMARY KEY)", nil, all},
		{"ALTER", "ALTER TABLE savings ADD COLUMN z int", nil, all},
		{"TRUNCATE", "TRUNCATE savings", nil, all},
		{"LOCK", "LOCK TABLE savings", nil, all},
		{"CALL", "CALL public.p(1)", nil, all},
		{"SET CONSTRAINTS", "SET CONSTRAINTS ALL DEFERRED", nil, all},
		{"unknown table", "SELECT * FROM nowhere WHERE id = 1", nil, all},
		{"view or catalog", "SELECT * FROM pg_class", nil, all},
		{"opaque read", "SELECT * FROM opaque WHERE id = 1", nil, all},
		{"opaque write", "INSERT INTO opaque (id) VALUES (1)", nil, all},
		{"user function", "SELECT public.f(1)", nil, all},
		{"unqualified name of a user routine", "SELECT lower(name) FROM accounts WHERE name = 'a'", nil, all},
		{"builtin", "SELECT upper(name) FROM accounts WHERE name = 'a'", nil, reads(row("accounts", "a"))},
		{"pg_catalog builtin", "SELECT pg_catalog.lower(name) FROM accounts WHERE name = 'a'", nil, reads(row("accounts", "a"))},
		{"other schema function", "SELECT x.f(1)", nil, all},
		{"advisory lock", "SELECT pg_advisory_xact_lock(1)", nil, all},
		{"two statements", "SELECT 1; SELECT 2", nil, all},
		{"unparseable", "SELEC 1", nil, all},
		{"recursive", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r", nil, all},
		// Sequences.
		{"nextval", "SELECT nextval('Seq1')", nil, writes(seq("seq1"))},
		{"nextval quoted", `SELECT nextval('public."Seq1"')`, nil, writes(seq("Seq1"))},
		{"nextval other schema", "SELECT nextval('other.s')", nil, writes(seq("other.s"))},
		{"setval", "SELECT setval('s', 10)", nil, writes(seq("s"))},
		{"relchain's rewrite", "SELECT relchain.nextval('s')", nil, writes(seq("s"))},
		{"nextval of an argument", "SELECT nextval($1)", args("s"), all},
		{"nextval of a bad name", `SELECT nextval('a.b.c')`, nil, all},
		{"currval reads", "SELECT currval('s')", nil, reads(seq("s"))},
		{"lastval touches nothing", "SELECT lastval()", nil, Access{}},
		{"nothing", "SELECT 1 + 1", nil, Access{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Analyze(c.sql, c.args, cat)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Analyze(%q, %v)\n got %+v\nwant %+v", c.sql, c.args, got, c.want)
			}
		})
	}
}

func TestAccessAdd(t *testing.T) {
	var a Access
	a.Add(reads(row("t", "2"), row("t", "1")))
	a.Add(writes(row("t", "1")))
	a.Add(reads(row("u", "1"), whole("u")))
	want := rw(keys(row("t", "2"), whole("u")), keys(row("t", "1")))
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("got %+v, want %+v", a, want)
	}
	a.Add(all)
	a.Add(reads(row("t", "1")))
	if !reflect.DeepEqual(a, all) {
		t.Fatalf("after All: %+v", a)
	}
}

func TestRowKeyUnambiguous(t *testing.T) {
	if rowKey([]string{"1:2", "3"}) == rowKey([]string{"1", "2:3"}) || rowKey([]string{"ab", ""}) == rowKey([]string{"a", "b"}) {
		t.Fatal("two tuples share an encoding")
	}
}

// joinChain is n-1 more savings tables joined to s0 (a FROM list), each
// by key to the next, the last pinned: the order in which the search finds
// one table a round (the most rounds). Within the bounds every one would
// be read by key.
func joinChain(n int) string {
	var b strings.Builder
	var where []string
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ", savings s%d", i)
		where = append(where, fmt.Sprintf("s%d.custid = s%d.custid", i-1, i))
	}
	where = append(where, fmt.Sprintf("s%d.custid = 1", n-1))
	return b.String() + " WHERE " + strings.Join(where, " AND ")
}
