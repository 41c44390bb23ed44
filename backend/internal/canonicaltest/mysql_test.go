package canonicaltest

import (
	"context"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
)

// openMySQL opens a MySQL/MariaDB backend (its gate on, as a node runs)
// on an empty database of t's.
func openMySQL(t *testing.T) engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	my, err := mysql.Open(ctx, mysqltest.DSN(t))
	if err != nil {
		t.Fatalf("mysql.Open: %v", err)
	}
	t.Cleanup(func() { my.Close() })
	return engine{"mysql", my, my}
}

// mixedSchema is one table in the postgres dialect and in MySQL's, of
// the kinds both have and the MySQL gate accepts (it refuses floats):
// the column names and the kinds of their types are the same, the types'
// spellings not (text is VARCHAR, numeric DECIMAL at a scale of 10, bytea
// VARBINARY, timestamp DATETIME(6), timestamptz TIMESTAMP(6)), nor the
// literals of bytes and of a timestamp with a zone. A composite key whose
// columns are not in declared order; a numeric key.
var mixedSchema = map[string][]string{
	"pg": {`CREATE TABLE mixed (a int4 NOT NULL, b text NOT NULL, s int2, big int8, n numeric, raw bytea,
		d date, ts timestamp, tz timestamptz, c char(4), v varchar(10), PRIMARY KEY (b, a))`,
		`CREATE TABLE mnums (k numeric PRIMARY KEY, x int8)`},
	"mysql": {`CREATE TABLE mixed (a INT NOT NULL, b VARCHAR(20) NOT NULL, s SMALLINT, big BIGINT, n DECIMAL(40,10),
		raw VARBINARY(16), d DATE, ts DATETIME(6), tz TIMESTAMP(6) NULL, c CHAR(4), v VARCHAR(10), PRIMARY KEY (b, a))`,
		`CREATE TABLE mnums (k DECIMAL(30,10) PRIMARY KEY, x BIGINT)`},
}

var mixedRows = map[string][]string{
	"pg": {`INSERT INTO mixed VALUES (1, 'ä€😀', -32768, 9223372036854775807, 1.50, '\xdeadbeef00ff', '2024-02-29',
		'2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.5+02', 'ab', 'Grüße ')`,
		`INSERT INTO mixed VALUES (2, 'ä€😀', 32767, -9223372036854775808, -0.0012, '\x', '0001-01-01',
		'9999-12-31 23:59:59.999999', '1970-01-01 00:00:01+00', 'abcd', '')`,
		`INSERT INTO mixed (a, b) VALUES (3, 'a'), (1, 'b'), (4, '')`,
		`INSERT INTO mnums VALUES (1.50, 1), (-0.001, 2), (0.00, 3), (12345678901234567890.1234567890, 4)`},
	"mysql": {`INSERT INTO mixed VALUES (1, 'ä€😀', -32768, 9223372036854775807, 1.50, X'DEADBEEF00FF', '2024-02-29',
		'2024-02-29 12:34:56.123456', '2024-02-29 10:34:56.5', 'ab', 'Grüße ')`,
		`INSERT INTO mixed VALUES (2, 'ä€😀', 32767, -9223372036854775808, -0.0012, X'', '0001-01-01',
		'9999-12-31 23:59:59.999999', '1970-01-01 00:00:01', 'abcd', '')`,
		`INSERT INTO mixed (a, b) VALUES (3, 'a'), (1, 'b'), (4, '')`,
		`INSERT INTO mnums VALUES (1.50, 1), (-0.001, 2), (0.00, 3), (12345678901234567890.1234567890, 4)`},
}

// mixedChanges are written alike in both dialects.
var mixedChanges = []string{
	`UPDATE mixed SET n = n * 10, d = '2024-03-01', ts = '2025-01-01 00:00:00.000001' WHERE a = 1`,
	`UPDATE mixed SET b = 'z' WHERE a = 3`,
	`DELETE FROM mixed WHERE a = 4`,
	`DELETE FROM mnums WHERE k = 1.5000`,
	`INSERT INTO mnums VALUES (2.5, 5)`,
}

// MySQL/MariaDB gives the same canonical keys, images and table roots as
// SQLite (postgres dialect) and PostgreSQL for the same logical rows, of
// every kind the three share under MySQL's gate: integers, numeric
// (scales differing per engine), text (multibyte, trailing spaces,
// char(n)'s padding), bytes, date, timestamp and timestamptz (1970's
// second 0 is outside MySQL's TIMESTAMP, so 1970-01-01 00:00:01 on every
// engine), NULLs; after UPDATEs, a key change and DELETEs too.
func TestMySQLCanonicalRowsAgreeWithPostgreSQL(t *testing.T) {
	engines := append(openEngines(t), openMySQL(t))
	for _, e := range engines {
		dialect := "pg"
		if e.name == "mysql" {
			dialect = "mysql"
		}
		for i, ddl := range mixedSchema[dialect] { // on MySQL a DDL is alone in its tx
			runBlock(t, e, int64(1+i), ddl)
		}
		runBlock(t, e, 3, mixedRows[dialect]...)
	}
	compareEngines(t, engines, map[string]int{"mixed": 5, "mnums": 4})
	for _, e := range engines {
		runBlock(t, e, 4, mixedChanges...)
	}
	compareEngines(t, engines, map[string]int{"mixed": 4, "mnums": 4})
}
