package workloadtest_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/relchain/relchain/api"
	appwt "github.com/relchain/relchain/app/workloadtest"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// Validators of one network over PostgreSQL, MariaDB and SQLite that fail a
// statement alike may name the condition differently within a SQLSTATE
// class: a negative substring length computed from a row is PostgreSQL's
// (and SQLite's translation's) 22011 and MariaDB's out-of-range 22003. The
// result data enters the AppHash, so before a failure recorded only its
// class this block split the network. Each engine's own code is still in
// its result's info. (Text arguments bound to date or numeric columns are
// refused by MariaDB's translation, 0A000 on every validator: no runtime
// conversion there to name differently.)
func TestEnginesAgreeOnFailuresThatDifferWithinAClass(t *testing.T) {
	chains := chainsOn(t, workload.Postgres, workload.MySQL, workload.SQLite)
	st := func(sql string) []txn.Statement { return []txn.Statement{{SQL: sql}} }
	mustCode(t, sameBlock(t, chains, st("CREATE TABLE v (id int4 PRIMARY KEY, n int4, s varchar(20), d varchar(20))"))[0], api.CodeOK)
	mustCode(t, sameBlock(t, chains, st("INSERT INTO v VALUES (1, 0, 'abc', 'x'), (2, -5, '12x', 'y')"))[0], api.CodeOK)
	mustCode(t, sameBlock(t, chains, st("CREATE TABLE w (id int4 PRIMARY KEY, n int4, d date, ts timestamp, x numeric(6,2))"))[0], api.CodeOK)
	arg := func(sql string, v string) []txn.Statement {
		return []txn.Statement{{SQL: sql, Args: []txn.Arg{txn.Text(v)}}}
	}
	failing := [][]txn.Statement{
		st("UPDATE v SET s = substr(s, 1, n) WHERE id = 2"),
		arg("INSERT INTO w (id, d) VALUES (1, $1)", "2020-13-45"),
		arg("INSERT INTO w (id, n) VALUES (1, $1)", "12x"),
		arg("INSERT INTO w (id, n) VALUES (1, $1)", "99999999999"),
		arg("INSERT INTO w (id, x) VALUES (1, $1)", "1e9"),
		st("UPDATE v SET n = n / (n - n) WHERE id = 2"),
	}
	each := sameBlockEach(t, chains, failing...)
	for j := range failing {
		var per []string
		for i, c := range chains {
			per = append(per, fmt.Sprintf("%s: %s", c, ownState(t, c.String(), each[i][j], each[i][j].Data)))
		}
		t.Logf("%q: %v", failing[j][0].SQL, per)
	}
}

// ownState is the engine's own SQLSTATE of a failed tx's result info, of
// the class its result data records ("-" when the data records it whole).
func ownState(t *testing.T, who string, o appwt.Tx, data []byte) string {
	t.Helper()
	var f api.FailureData
	if o.Code != api.CodeExecFailed || json.Unmarshal(data, &f) != nil || len(f.SQLState) != 5 {
		t.Fatalf("%s: code %d, data %s: want a failed statement (%d) with its SQLSTATE", who, o.Code, data, api.CodeExecFailed)
	}
	if len(o.Info) == 0 {
		if f.SQLState[2:] == "000" && f.SQLState != "0A000" {
			t.Fatalf("%s: data %s records a class, and the result has no info with the engine's own code", who, data)
		}
		return "-"
	}
	var own api.ExecInfo
	if err := json.Unmarshal(o.Info, &own); err != nil || own.SQLState[:2] != f.SQLState[:2] {
		t.Fatalf("%s: result info %q (%v) against data %s: want the engine's own SQLSTATE of the same class", who, o.Info, err, data)
	}
	return own.SQLState
}
