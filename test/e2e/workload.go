package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/relchain/relchain/txn"
)

// workload is what the clients write and where the checker finds it.
// Every write appends one row with its id to the log table; the ids are
// numbers the harness makes, so statements carry them as literals and
// read the same on every dialect.
type workload interface {
	// setup is the schema and initial rows, one tx per statement (DDL
	// may need a block of its own).
	setup() []string
	// next fills in write w (its id and client are set) and returns its
	// statements.
	next(w *write, rng *rand.Rand) []txn.Statement
	// logTable holds one row (id, ...) per applied write.
	logTable() string
}

// newWorkload is m's workload; keyed: on a network over several engines
// (keyedSchema). On a network whose validators run blocks on lanes
// (Manifest.Lanes) the bank's transfer log is keyed by the write's id, so
// that transfers between other accounts run on different lanes (a log
// numbered one past its highest row, or without a key, makes every
// transfer conflict with every other): a write applied twice then fails
// on the key, which the checker reports as a valid write that failed.
func newWorkload(m *Manifest) workload {
	if m.Load.Workload == "bank" {
		return bank{accounts: m.Load.Accounts, balance: m.Load.Balance, keyed: m.mixed(), logByID: len(m.Lanes) > 0}
	}
	return inserts{keyed: m.mixed()}
}

// keyedSchema gives every table of a workload's schema without a primary
// key a surrogate one, rid: a network over several engines runs protocol
// version 5, which keeps every table in the authenticated state. Not a
// serial column (the postgres dialect on MariaDB has no sequences): each
// write numbers its row one past the table's highest (keyedInsert), so a
// write applied twice still shows as two rows.
func keyedSchema(stmts []string) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = s
		if strings.HasPrefix(s, "CREATE TABLE ") && !strings.Contains(s, "PRIMARY KEY") {
			out[i] = strings.Replace(s, " (", " (rid BIGINT PRIMARY KEY, ", 1)
		}
	}
	return out
}

// keyedInsert inserts one row of values into columns of table; keyed: the
// table has keyedSchema's rid, numbered one past the table's highest.
func keyedInsert(table, columns, values string, keyed bool) string {
	if !keyed {
		return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, columns, values)
	}
	return fmt.Sprintf("INSERT INTO %s (rid, %s) SELECT COALESCE(MAX(rid), 0) + 1, %s FROM %s", table, columns, values, table)
}

// inserts: each write inserts its id. No key: a write applied twice
// shows as two rows instead of failing.
type inserts struct{ keyed bool }

func (inserts) setup() []string {
	return []string{"CREATE TABLE e2e_writes (id BIGINT NOT NULL, client BIGINT NOT NULL)", marksTable}
}

// marksTable takes the checker's marker writes (apphash.go): a block
// after the settled height, whose header carries the chain's AppHash of
// that height.
const marksTable = "CREATE TABLE e2e_marks (n BIGINT NOT NULL)"

func (i inserts) next(w *write, _ *rand.Rand) []txn.Statement {
	return []txn.Statement{{SQL: keyedInsert("e2e_writes", "id, client", fmt.Sprintf("%d, %d", w.ID, w.Client), i.keyed)}}
}

func (inserts) logTable() string { return "e2e_writes" }

// bank: accounts with a balance each; a write moves an amount between two
// of them and logs the transfer, in one bc-transaction. Balances may go
// negative: conservation is the invariant, not solvency.
type bank struct {
	accounts int
	balance  int64
	keyed    bool
	logByID  bool // the log's key is the write's id (see newWorkload)
}

func (b bank) setup() []string {
	rows := make([]string, b.accounts)
	for i := range rows {
		rows[i] = fmt.Sprintf("(%d, %d)", i, b.balance)
	}
	log := "CREATE TABLE e2e_transfers (id BIGINT NOT NULL, src BIGINT NOT NULL, dst BIGINT NOT NULL, amount BIGINT NOT NULL)"
	if b.logByID {
		log = strings.Replace(log, "id BIGINT NOT NULL,", "id BIGINT NOT NULL PRIMARY KEY,", 1)
	}
	return []string{
		"CREATE TABLE e2e_accounts (id BIGINT NOT NULL PRIMARY KEY, balance BIGINT NOT NULL)",
		log,
		"INSERT INTO e2e_accounts (id, balance) VALUES " + strings.Join(rows, ", "),
		marksTable,
	}
}

func (b bank) next(w *write, rng *rand.Rand) []txn.Statement {
	w.Src = rng.IntN(b.accounts)
	w.Dst = (w.Src + 1 + rng.IntN(b.accounts-1)) % b.accounts
	w.Amount = 1 + rng.Int64N(50)
	return []txn.Statement{
		{SQL: fmt.Sprintf("UPDATE e2e_accounts SET balance = balance - %d WHERE id = %d", w.Amount, w.Src)},
		{SQL: fmt.Sprintf("UPDATE e2e_accounts SET balance = balance + %d WHERE id = %d", w.Amount, w.Dst)},
		{SQL: keyedInsert("e2e_transfers", "id, src, dst, amount", fmt.Sprintf("%d, %d, %d, %d", w.ID, w.Src, w.Dst, w.Amount), b.keyed && !b.logByID)},
	}
}

func (bank) logTable() string { return "e2e_transfers" }
