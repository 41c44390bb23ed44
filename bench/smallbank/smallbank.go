package smallbank

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// Transaction kinds.
const (
	Amalgamate      = "Amalgamate"
	Balance         = "Balance"
	DepositChecking = "DepositChecking"
	SendPayment     = "SendPayment"
	TransactSavings = "TransactSavings"
	WriteCheck      = "WriteCheck"
)

// Kinds lists every transaction kind, sorted by name.
var Kinds = []string{Amalgamate, Balance, DepositChecking, SendPayment, TransactSavings, WriteCheck}

// DefaultMix is the standard Smallbank mix, in percent.
var DefaultMix = map[string]int{
	Amalgamate:      15,
	Balance:         15,
	DepositChecking: 15,
	SendPayment:     25,
	TransactSavings: 15,
	WriteCheck:      15,
}

// How a transaction names its customers (Options.Keys).
const (
	// ByName: Balance, DepositChecking, TransactSavings and WriteCheck find
	// the customer by accounts.name; SendPayment and Amalgamate take ids
	// (the H-Store and OLTPBench procedures; the default).
	ByName = "name"
	// ByID: every transaction takes customer ids, as chainifyDB's
	// Smallbank does (the workload of its parallel execution): the
	// statements are ByName's with the name lookup replaced by the id
	// (Balance reads savings and checking by custid).
	ByID = "id"
)

// Account distributions.
const (
	Uniform = "uniform"
	Zipf    = "zipf"
)

// Defaults and constants of the workload.
const (
	DefaultAccounts = 100_000
	// ZipfS is the exponent of the Zipf account distribution.
	ZipfS = 1.1
	// MaxAmount bounds the amounts of the generated transactions, in
	// cents: deposits, payments and checks are 1..MaxAmount,
	// TransactSavings -MaxAmount..MaxAmount.
	MaxAmount = 10_000
	// OverdraftPenalty is what WriteCheck charges, in cents, when the
	// customer's total balance does not cover the check.
	OverdraftPenalty = 100
	// RowsPerStatement is how many accounts one Setup INSERT generates.
	RowsPerStatement = 25_000
)

// Options configures the workload; the zero value means the defaults.
type Options struct {
	// Accounts is the number of customers (default 100,000).
	Accounts int
	// Mix maps transaction kinds to relative weights; kinds not named do
	// not occur. Empty means DefaultMix.
	Mix map[string]int
	// Distribution chooses accounts: "uniform" (default) or "zipf"
	// (s = 1.1, customer 1 the hottest).
	Distribution string
	// Keys is how transactions name customers: ByName (default) or ByID.
	Keys string
}

// Workload is the Smallbank workload.
type Workload struct {
	accounts int
	dist     string
	byID     bool
	mix      workload.Mix
}

var _ workload.Workload = (*Workload)(nil)

// New returns a Smallbank workload.
func New(o Options) (*Workload, error) {
	w := &Workload{accounts: o.Accounts, dist: o.Distribution}
	if w.accounts == 0 {
		w.accounts = DefaultAccounts
	}
	if w.accounts < 2 {
		return nil, fmt.Errorf("smallbank: %d accounts: need at least 2", w.accounts)
	}
	switch w.dist {
	case "":
		w.dist = Uniform
	case Uniform, Zipf:
	default:
		return nil, fmt.Errorf("smallbank: unknown distribution %q (want %q or %q)", o.Distribution, Uniform, Zipf)
	}
	switch o.Keys {
	case "", ByName:
	case ByID:
		w.byID = true
	default:
		return nil, fmt.Errorf("smallbank: unknown keys %q (want %q or %q)", o.Keys, ByName, ByID)
	}
	mix := o.Mix
	if len(mix) == 0 {
		mix = DefaultMix
	}
	m, err := workload.NewMix("smallbank", mix, Kinds)
	if err != nil {
		return nil, err
	}
	w.mix = m
	return w, nil
}

// Accounts returns the number of customers.
func (w *Workload) Accounts() int { return w.accounts }

// Name implements workload.Workload.
func (w *Workload) Name() string {
	if w.byID {
		return "smallbank-id"
	}
	return "smallbank"
}

// Tables implements workload.Workload.
func (w *Workload) Tables() []workload.Table {
	return []workload.Table{
		{Name: "accounts", Key: []string{"custid"}},
		{Name: "savings", Key: []string{"custid"}},
		{Name: "checking", Key: []string{"custid"}},
	}
}

// Initial balances in cents, a function of the customer id: savings
// $10,000.00 to $19,999.99, checking $5,000.00 to $9,999.99. The SQL of
// Setup computes the same expressions.
const (
	savingsBase  = 1_000_000
	savingsMul   = 7_919
	checkingBase = 500_000
	checkingMul  = 104_729
)

// InitialSavings is customer id's initial savings balance in cents.
func InitialSavings(id int64) int64 { return savingsBase + id*savingsMul%savingsBase }

// InitialChecking is customer id's initial checking balance in cents.
func InitialChecking(id int64) int64 { return checkingBase + id*checkingMul%checkingBase }

// InitialTotal is the money of all customers after Setup, in cents.
func (w *Workload) InitialTotal() int64 {
	var t int64
	for id := int64(1); id <= int64(w.accounts); id++ {
		t += InitialSavings(id) + InitialChecking(id)
	}
	return t
}

// Name of customer id, as stored in accounts.name.
func Name(id int64) string { return fmt.Sprintf("customer%d", id) }

// Setup implements workload.Workload: one bc-transaction with the schema,
// then one per RowsPerStatement customers, each three INSERT ... SELECT
// statements whose rows the database generates itself.
func (w *Workload) Setup(dialect string) ([][]txn.Statement, error) {
	sp, err := workload.Lookup(spellings, "smallbank's spellings", dialect)
	if err != nil {
		return nil, fmt.Errorf("smallbank: %w", err)
	}
	bcs := [][]txn.Statement{{
		{SQL: "CREATE TABLE accounts (custid BIGINT PRIMARY KEY, name " + sp.nameType + " NOT NULL UNIQUE)"},
		{SQL: "CREATE TABLE savings (custid BIGINT PRIMARY KEY, bal BIGINT NOT NULL CHECK (bal >= 0))"},
		{SQL: "CREATE TABLE checking (custid BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"},
	}}
	for lo := 1; lo <= w.accounts; lo += RowsPerStatement {
		hi := min(lo+RowsPerStatement-1, w.accounts)
		bcs = append(bcs, []txn.Statement{
			{SQL: sp.genInsert(lo, hi, "accounts (custid, name)", "x, "+sp.nameOf("x"))},
			{SQL: sp.genInsert(lo, hi, "savings (custid, bal)", fmt.Sprintf("x, %d + x * %d %% %d", savingsBase, savingsMul, savingsBase))},
			{SQL: sp.genInsert(lo, hi, "checking (custid, bal)", fmt.Sprintf("x, %d + x * %d %% %d", checkingBase, checkingMul, checkingBase))},
		})
	}
	return workload.DDLAlone(dialect, bcs), nil
}

// spelling is how one database spells what Smallbank's SQL needs.
type spelling struct {
	// nameType is accounts.name's type (MySQL cannot index TEXT without a
	// prefix length).
	nameType string
	// nameOf is the SQL of Name(id) for the integer expression id.
	nameOf func(id string) string
	// genInsert returns an INSERT of one row per x in lo..hi (a BIGINT),
	// with the select list cols, through the one row generator the
	// database's gate admits.
	genInsert func(lo, hi int, target, cols string) string
	// derivedSelf: the database refuses a subquery on the table being
	// updated (MySQL's error 1093) unless it reads a derived table.
	derivedSelf bool
	// changedOnly: RowsAffected counts the rows an UPDATE changed, not
	// those it matched (MySQL), so a no-op update may report 0.
	changedOnly bool
	// text is the type a CAST to text names.
	text string
}

// spellings is each database's spelling by dialect name (a test holds
// that every database has one).
var spellings = map[string]spelling{
	workload.SQLite:   {nameType: "TEXT", nameOf: catName, genInsert: cteInsert, text: "TEXT"},
	workload.Postgres: {nameType: "TEXT", nameOf: catName, genInsert: seriesInsert, text: "TEXT"},
	workload.MySQL: {nameType: "VARCHAR(64)", nameOf: concatName, genInsert: digitsInsert,
		derivedSelf: true, changedOnly: true, text: "CHAR"},
}

// catName spells Name(id) with ||.
func catName(id string) string { return "'customer' || CAST(" + id + " AS TEXT)" }

// concatName spells Name(id) with CONCAT, where || is OR (MySQL).
func concatName(id string) string { return "CONCAT('customer', " + id + ")" }

// cteInsert generates x with a recursive CTE (SQLite: no generate_series).
func cteInsert(lo, hi int, target, cols string) string {
	return fmt.Sprintf("WITH RECURSIVE s(x) AS (SELECT %d UNION ALL SELECT x + 1 FROM s WHERE x < %d) INSERT INTO %s SELECT %s FROM s", lo, hi, target, cols)
}

// seriesInsert generates x with generate_series (PostgreSQL: no WITH
// RECURSIVE).
func seriesInsert(lo, hi int, target, cols string) string {
	return fmt.Sprintf("INSERT INTO %s SELECT %s FROM (SELECT CAST(g AS BIGINT) AS x FROM generate_series(%d, %d) AS g) AS s", target, cols, lo, hi)
}

// digitsInsert generates x as lo plus a number spelled by a cross join of
// ten-row digit tables, cut at hi (MySQL: neither of the others).
func digitsInsert(lo, hi int, target, cols string) string {
	return fmt.Sprintf("INSERT INTO %s SELECT %s FROM (%s) AS s WHERE x <= %d", target, cols, workload.MySQLSeries(lo, hi-lo+1), hi)
}

// Generator implements workload.Workload.
func (w *Workload) Generator(dialect string, seed uint64, client int) workload.Generator {
	r := rand.New(rand.NewPCG(seed, 0x736d616c6c62616e^uint64(client)))
	g := &generator{w: w, r: r, p: func(n int) string { return workload.Placeholder(dialect, n) },
		dialect: dialect, sp: workload.MustLookup(spellings, "smallbank's spellings", dialect)}
	if w.dist == Zipf {
		g.zipf = rand.NewZipf(r, ZipfS, 1, uint64(w.accounts-1))
	}
	return g
}

type generator struct {
	w    *Workload
	r    *rand.Rand
	zipf *rand.Zipf
	p    func(int) string
	// dialect is the database's name: its statements go through
	// workload.ForDialect.
	dialect string
	sp      spelling
}

func (g *generator) account() int64 {
	if g.zipf != nil {
		return int64(g.zipf.Uint64()) + 1
	}
	return g.r.Int64N(int64(g.w.accounts)) + 1
}

func (g *generator) twoAccounts() (int64, int64) {
	a := g.account()
	for {
		if b := g.account(); b != a {
			return a, b
		}
	}
}

func (g *generator) amount() int64 { return g.r.Int64N(MaxAmount) + 1 }

// Next implements workload.Generator.
func (g *generator) Next() workload.WL {
	return workload.ForDialect(g.dialect, g.next())
}

func (g *generator) next() workload.WL {
	kind := g.w.mix.Pick(g.r)
	p := g.p
	// custid is the customer p(2) names: looked up by name, or the id.
	custid := "(SELECT custid FROM accounts WHERE name = " + p(2) + ")"
	if g.w.byID {
		custid = p(2)
	}
	switch kind {
	case Balance:
		return workload.WL{Kind: kind, ReadOnly: true, Statements: []txn.Statement{
			{SQL: g.balanceSQL(), Args: []txn.Arg{g.customer()}},
		}}
	case DepositChecking:
		return workload.WL{Kind: kind, Statements: []txn.Statement{
			{SQL: "UPDATE checking SET bal = bal + " + p(1) + " WHERE custid = " + custid,
				Args: []txn.Arg{txn.Int(g.amount()), g.customer()}},
		}}
	case TransactSavings:
		v := g.r.Int64N(2*MaxAmount+1) - MaxAmount
		return workload.WL{Kind: kind, MayFail: true, Statements: []txn.Statement{
			{SQL: "UPDATE savings SET bal = bal + " + p(1) + " WHERE custid = " + custid,
				Args: []txn.Arg{txn.Int(v), g.customer()}},
		}}
	case WriteCheck:
		who := g.customer()
		v := txn.Int(g.amount())
		return workload.WL{Kind: kind, Statements: []txn.Statement{
			{SQL: g.balanceSQL(), Args: []txn.Arg{who}},
			{SQL: fmt.Sprintf("UPDATE checking SET bal = bal - %[1]s - CASE WHEN bal + (SELECT s.bal FROM savings s WHERE s.custid = checking.custid) < %[1]s THEN %[3]d ELSE 0 END WHERE custid = %[2]s",
				p(1), custid, OverdraftPenalty),
				Args: []txn.Arg{v, who}},
		}}
	case SendPayment:
		src, dst := g.twoAccounts()
		v := txn.Int(g.amount())
		return workload.WL{Kind: kind, MayFail: true, Statements: []txn.Statement{
			{SQL: "UPDATE checking SET bal = CASE WHEN bal >= " + p(1) + " THEN bal - " + p(1) + " END WHERE custid = " + p(2),
				Args: []txn.Arg{v, txn.Int(src)}},
			{SQL: "UPDATE checking SET bal = bal + " + p(1) + " WHERE custid = " + p(2),
				Args: []txn.Arg{v, txn.Int(dst)}},
		}}
	default: // Amalgamate
		src, dst := g.twoAccounts()
		a, b := txn.Int(src), txn.Int(dst)
		total := "SELECT s.bal + c.bal FROM savings s JOIN checking c ON c.custid = s.custid WHERE s.custid = " + p(1)
		if g.sp.derivedSelf {
			// MySQL refuses a subquery on the table being updated (error
			// 1093) unless it reads a derived table, which it materializes.
			total = "SELECT t.v FROM (" + strings.Replace(total, "s.bal + c.bal", "s.bal + c.bal AS v", 1) + ") AS t"
		}
		return workload.WL{Kind: Amalgamate, Statements: []txn.Statement{
			{SQL: "UPDATE checking SET bal = bal + (" + total + ") WHERE custid = " + p(2),
				Args: []txn.Arg{a, b}},
			{SQL: "UPDATE savings SET bal = 0 WHERE custid = " + p(1), Args: []txn.Arg{a}},
			{SQL: "UPDATE checking SET bal = 0 WHERE custid = " + p(1), Args: []txn.Arg{a}},
		}}
	}
}

// customer is one customer chosen as Options.Keys names it: its name, or
// its id.
func (g *generator) customer() txn.Arg {
	if g.w.byID {
		return txn.Int(g.account())
	}
	return txn.Text(Name(g.account()))
}

// balanceSQL reads a customer's id and total balance by the customer
// p(1) names.
func (g *generator) balanceSQL() string {
	if g.w.byID {
		return "SELECT s.custid, s.bal + c.bal FROM savings s JOIN checking c ON c.custid = s.custid WHERE s.custid = " + g.p(1)
	}
	return "SELECT a.custid, s.bal + c.bal FROM accounts a JOIN savings s ON s.custid = a.custid JOIN checking c ON c.custid = a.custid WHERE a.name = " + g.p(1)
}

// Effect returns the change of the total money, in cents, of a committed
// write wl-transaction, from its statements' arguments and results.
func Effect(a workload.Applied) (int64, error) { return effect(a, false) }

// effect is Effect; changedOnly: rows affected counts changed rows only
// (MySQL, whose backend and baseline do not set CLIENT_FOUND_ROWS), so an
// UPDATE that leaves its row as it was (Amalgamate of an empty account,
// TransactSavings of 0) reports 0. The money total then still catches an
// UPDATE that missed its row.
func effect(a workload.Applied, changedOnly bool) (int64, error) {
	st := a.WL.Statements
	need := map[string]int{DepositChecking: 1, TransactSavings: 1, WriteCheck: 2, SendPayment: 2, Amalgamate: 3}[a.WL.Kind]
	if need == 0 {
		return 0, fmt.Errorf("unknown write kind %q", a.WL.Kind)
	}
	if len(st) != need || len(a.Results) != need {
		return 0, fmt.Errorf("%s: %d statements and %d results, want %d", a.WL.Kind, len(st), len(a.Results), need)
	}
	affected := func(i int) error {
		if n := a.Results[i].RowsAffected; n != 1 && !(changedOnly && n == 0) {
			return fmt.Errorf("%s statement %d updated %d rows, want 1", a.WL.Kind, i+1, n)
		}
		return nil
	}
	for i := range need {
		if a.WL.Kind == WriteCheck && i == 0 {
			continue // the SELECT
		}
		if err := affected(i); err != nil {
			return 0, err
		}
	}
	switch a.WL.Kind {
	case DepositChecking, TransactSavings:
		return st[0].Args[0].Int, nil
	case WriteCheck:
		v := st[1].Args[0].Int
		rows := a.Results[0].Rows
		if len(rows) != 1 || len(rows[0]) != 2 {
			return 0, fmt.Errorf("WriteCheck: balance SELECT returned %d rows, want 1 row of 2 columns", len(rows))
		}
		total, err := workload.Int(rows[0][1])
		if err != nil {
			return 0, fmt.Errorf("WriteCheck: total balance: %w", err)
		}
		if total < v {
			return -v - OverdraftPenalty, nil
		}
		return -v, nil
	}
	return 0, nil // SendPayment and Amalgamate move money
}

// Check implements workload.Workload: every customer still has exactly
// one account, savings and checking row, savings are not negative, and
// the total money is the initial total plus the effect of every committed
// wl-transaction.
func (w *Workload) Check(ctx context.Context, dialect string, q workload.Querier, applied []workload.Applied) error {
	sp, err := workload.Lookup(spellings, "smallbank's spellings", dialect)
	if err != nil {
		return fmt.Errorf("smallbank check: %w", err)
	}
	want := w.InitialTotal()
	for i, a := range applied {
		if a.Code != api.CodeOK {
			continue
		}
		d, err := effect(a, sp.changedOnly)
		if err != nil {
			return fmt.Errorf("smallbank check: applied wl-transaction %d: %w", i, err)
		}
		want += d
	}
	n := int64(w.accounts)
	for _, t := range []string{"accounts", "savings", "checking"} {
		rows, err := q.Query(ctx, fmt.Sprintf("SELECT count(*), count(DISTINCT custid), min(custid), max(custid) FROM %s", t))
		if err != nil {
			return fmt.Errorf("smallbank check: count %s: %w", t, err)
		}
		got, err := ints(rows, 4)
		if err != nil {
			return fmt.Errorf("smallbank check: count %s: %w", t, err)
		}
		if got[0] != n || got[1] != n || got[2] != 1 || got[3] != n {
			return fmt.Errorf("smallbank check: %s has %d rows, %d ids from %d to %d; want %d rows with ids 1 to %d", t, got[0], got[1], got[2], got[3], n, n)
		}
	}
	rows, err := q.Query(ctx, "SELECT count(*) FROM accounts a JOIN savings s ON s.custid = a.custid JOIN checking c ON c.custid = a.custid")
	if err != nil {
		return fmt.Errorf("smallbank check: join accounts: %w", err)
	}
	if got, err := ints(rows, 1); err != nil {
		return fmt.Errorf("smallbank check: join accounts: %w", err)
	} else if got[0] != n {
		return fmt.Errorf("smallbank check: %d customers have an account, a savings and a checking row, want %d", got[0], n)
	}
	rows, err = q.Query(ctx, "SELECT count(*) FROM accounts WHERE name <> "+sp.nameOf("custid"))
	if err != nil {
		return fmt.Errorf("smallbank check: names: %w", err)
	}
	if got, err := ints(rows, 1); err != nil {
		return fmt.Errorf("smallbank check: names: %w", err)
	} else if got[0] != 0 {
		return fmt.Errorf("smallbank check: %d accounts have a name other than customer<id>", got[0])
	}
	// Sums as text, so that PostgreSQL's numeric (and MySQL's DECIMAL)
	// sum arrives exactly.
	rows, err = q.Query(ctx, fmt.Sprintf("SELECT CAST((SELECT sum(bal) FROM savings) AS %[1]s), CAST((SELECT sum(bal) FROM checking) AS %[1]s), (SELECT count(*) FROM savings WHERE bal < 0)", sp.text))
	if err != nil {
		return fmt.Errorf("smallbank check: sum balances: %w", err)
	}
	got, err := ints(rows, 3)
	if err != nil {
		return fmt.Errorf("smallbank check: sum balances: %w", err)
	}
	if got[2] != 0 {
		return fmt.Errorf("smallbank check: %d savings balances are negative", got[2])
	}
	if total := got[0] + got[1]; total != want {
		return fmt.Errorf("smallbank check: total money is %d cents (savings %d + checking %d), want %d (initial %d plus the committed wl-transactions' effects): off by %d",
			total, got[0], got[1], want, w.InitialTotal(), total-want)
	}
	return nil
}

// ints reads one row of n integers.
func ints(rows [][]any, n int) ([]int64, error) {
	if len(rows) != 1 || len(rows[0]) != n {
		return nil, fmt.Errorf("got %d rows, want 1 row of %d columns", len(rows), n)
	}
	out := make([]int64, n)
	for i, v := range rows[0] {
		x, err := workload.Int(v)
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", i+1, err)
		}
		out[i] = x
	}
	return out, nil
}
