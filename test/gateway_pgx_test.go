package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// typedTable is a table with a column of each common type, in each
// dialect's spelling.
var typedTable = map[string]string{
	"sqlite": `CREATE TABLE typed (id INTEGER PRIMARY KEY, i INTEGER, f REAL, t TEXT, b BOOLEAN, raw BLOB, d DATE, ts TIMESTAMP)`,
	"mysql":  `CREATE TABLE typed (id BIGINT PRIMARY KEY, i INT, f DECIMAL(10, 2), t VARCHAR(100), b BOOLEAN, raw BLOB, d DATE, ts DATETIME(6))`,
	"postgres": `CREATE TABLE typed (id BIGINT PRIMARY KEY, i INTEGER, f DOUBLE PRECISION, t TEXT, b BOOLEAN, raw BYTEA,
		d DATE, ts TIMESTAMP)`,
}

// pgx v5, unmodified, through a node's listener: the extended protocol
// with parameters of every common type, a prepared statement reused,
// binary results, a transaction, a cancel.
func TestGatewayPgx(t *testing.T) { onBackends(t, nil, testGatewayPgx) }

// gatewayNotOnMySQL is why a gateway test with one client leaves MySQL
// out.
const gatewayNotOnMySQL = "the test's SQL is not written for MySQL's dialect; the gateway's MySQL path " +
	"(the $n placeholders rewritten to ?, MySQL's types, its transactions) runs in TestGatewayPgx/mysql"

func testGatewayPgx(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	mustPgxExec(t, conn, typedTable[backend])
	day := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	stamp := time.Date(2026, 11, 25, 13, 14, 15, 123456000, time.UTC)
	insert := `INSERT INTO typed (id, i, f, t, b, raw, d, ts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
	// MySQL's BOOLEAN is TINYINT(1), which its driver reports as a small
	// integer: clients send and read 0 and 1 there.
	var yes any = true
	if backend == "mysql" {
		yes = int16(1)
	}
	tag, err := conn.Exec(ctx, insert, int64(1), 42, 2.5, "héllo 'q'", yes, []byte{0, 1, 255}, day, stamp)
	if err != nil {
		t.Fatalf("insert with parameters: %v", err)
	}
	if tag.String() != "INSERT 0 1" {
		t.Fatalf("tag %q, want INSERT 0 1", tag)
	}
	if _, err := conn.Exec(ctx, insert, int64(2), nil, nil, nil, nil, nil, nil, nil); err != nil {
		t.Fatalf("insert NULLs: %v", err)
	}
	var (
		i   int64
		f   float64
		s   string
		b   any
		raw []byte
	)
	// Read-your-writes: node 0 answers at the height of the insert.
	row := conn.QueryRow(ctx, `SELECT i, f, t, b, raw FROM typed WHERE id = $1`, int64(1))
	if err := row.Scan(&i, &f, &s, &b, &raw); err != nil {
		t.Fatalf("select: %v", err)
	}
	if i != 42 || f != 2.5 || s != "héllo 'q'" || b != yes || string(raw) != "\x00\x01\xff" {
		t.Fatalf("read back i=%d f=%v t=%q b=%v raw=%x", i, f, s, b, raw)
	}
	checkPreparedReuse(t, ctx, conn)
	// A parameter in arithmetic takes its column's type (SQLite cannot
	// type it before running).
	if tag := mustPgxExec(t, conn, `UPDATE typed SET i = i + $1, f = f * $2 WHERE id = $3`, int64(1), 2.0, int64(1)); tag.String() != "UPDATE 1" {
		t.Fatalf("arithmetic with parameters: %s", tag)
	}
	checkPgxTransaction(t, ctx, conn)
	checkPgxErrors(t, ctx, conn)
	checkPgxCancel(t, ctx, c)
	h, rows := c.consistentRead(ctx, "SELECT id, i, t FROM typed ORDER BY id")
	c.requireSameRows(h, "typed", rows[0])
}

func mustPgxExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) pgconn.CommandTag {
	t.Helper()
	tag, err := conn.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag
}

// checkPreparedReuse prepares a named statement and runs it many times.
func checkPreparedReuse(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	if _, err := conn.Prepare(ctx, "by_id", `SELECT t, f FROM typed WHERE id = $1`); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	for k := 0; k < 20; k++ {
		var s *string
		var f *float64
		if err := conn.QueryRow(ctx, "by_id", int64(1+k%2)).Scan(&s, &f); err != nil {
			t.Fatalf("prepared statement, run %d: %v", k, err)
		}
		if k%2 == 0 && (s == nil || *s != "héllo 'q'" || *f != 2.5) || k%2 == 1 && (s != nil || f != nil) {
			t.Fatalf("prepared statement, run %d: %v %v", k, s, f)
		}
	}
}

// checkPgxTransaction moves value between two rows in an explicit
// transaction whose reads come back as it goes.
func checkPgxTransaction(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := tx.QueryRow(ctx, `SELECT i FROM typed WHERE id = 1`).Scan(&before); err != nil {
		t.Fatalf("read in transaction: %v", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE typed SET i = $1 WHERE id = 1`, before-10); err != nil {
		t.Fatalf("update in transaction: %v", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE typed SET i = $1 WHERE id = 2`, int64(10)); err != nil {
		t.Fatalf("update in transaction: %v", err)
	}
	var inside int64
	if err := tx.QueryRow(ctx, `SELECT i FROM typed WHERE id = 1`).Scan(&inside); err != nil || inside != before-10 {
		t.Fatalf("the transaction does not see its own write: %d, %v", inside, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	var sum int64
	if err := conn.QueryRow(ctx, `SELECT SUM(i) FROM typed`).Scan(&sum); err != nil || sum != before {
		t.Fatalf("after commit the sum is %d (%v), want %d", sum, err, before)
	}
	// A rolled-back transaction leaves nothing.
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM typed`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM typed`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after ROLLBACK %d rows (%v), want 2", n, err)
	}
}

// checkPgxErrors: a constraint violation and a syntax error come back as
// *pgconn.PgError with their SQLSTATE class, and the connection goes on.
func checkPgxErrors(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	_, err := conn.Exec(ctx, `INSERT INTO typed (id) VALUES ($1)`, int64(1))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code[:2] != "23" {
		t.Fatalf("duplicate key: %v, want SQLSTATE class 23", err)
	}
	_, err = conn.Exec(ctx, `SELEC 1`)
	if !errors.As(err, &pe) || pe.Code != "42601" {
		t.Fatalf("syntax error: %v, want SQLSTATE 42601", err)
	}
	var one int64
	if err := conn.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil || one != 1 {
		t.Fatalf("the connection does not go on after errors: %v", err)
	}
}

// checkPgxCancel: a read waiting for a height the chain has not reached
// is cancelled by the client (pgx sends a CancelRequest when its context
// ends) and returns at once.
func checkPgxCancel(t *testing.T, ctx context.Context, c *cluster) {
	conn, err := pgx.Connect(ctx, c.pgURL(1, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	mustPgxExec(t, conn, `SET relchain.min_height = 100000000`)
	qctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	start := time.Now()
	_, err = conn.Exec(qctx, `SELECT COUNT(*) FROM typed`)
	cancel()
	if err == nil {
		t.Fatal("a read at an unreachable height returned")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the cancelled read took %s", d)
	}
	t.Logf("cancelled read: %v", err)
}
