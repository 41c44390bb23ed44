package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// COPY through a node's PostgreSQL listener (issue 33 item 6): pgx CopyFrom, psql's \copy
// both ways, a bad row mid-stream, pgbench's COPY of pgbench_accounts.
func TestGatewayCopy(t *testing.T) {
	onBackends(t, notOn{"mysql": gatewayNotOnMySQL}, testGatewayCopy)
}

func testGatewayCopy(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	mustPgxExec(t, conn, "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, note TEXT, score INTEGER)")

	t.Run("pgx CopyFrom", func(t *testing.T) {
		rows := make([][]any, 2500)
		for i := range rows {
			rows[i] = []any{int32(i + 1), fmt.Sprintf("p%d", i+1), nil, int32(i % 7)}
		}
		rows[3][2] = "tab\there, newline\nthere, back\\slash, ünïcødé"
		n, err := conn.CopyFrom(ctx, pgx.Identifier{"people"}, []string{"id", "name", "note", "score"}, pgx.CopyFromRows(rows))
		if err != nil {
			t.Fatalf("CopyFrom: %v", err)
		}
		if n != 2500 {
			t.Fatalf("CopyFrom copied %d rows, want 2500", n)
		}
		var count, sum int64
		var note string
		if err := conn.QueryRow(ctx, "SELECT COUNT(*), SUM(score) FROM people").Scan(&count, &sum); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, "SELECT note FROM people WHERE id = 4").Scan(&note); err != nil {
			t.Fatal(err)
		}
		if count != 2500 || note != rows[3][2] {
			t.Fatalf("after CopyFrom: %d rows, note %q", count, note)
		}
	})

	t.Run("psql copy both ways", func(t *testing.T) {
		psql, err := exec.LookPath("psql")
		if err != nil {
			t.Fatalf("psql is not installed: %v", err)
		}
		dir := t.TempDir()
		in := filepath.Join(dir, "in.csv")
		csv := "id,name,note,score\n" +
			"10001,\"Smith, Ann\",\"she said \"\"hi\"\"\",5\n" +
			"10002,Bö,,\n" +
			"10003,\"multi\nline\",\"\",7\n" +
			"10004,\"日本語\",plain,-3\n"
		if err := os.WriteFile(in, []byte(csv), 0o600); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.csv")
		script := fmt.Sprintf("\\copy people from '%s' csv header\n"+
			"\\copy (SELECT id, name, note, score FROM people WHERE id > 10000 ORDER BY id) to '%s' csv header\n"+
			"COPY people TO '/tmp/x.csv';\n"+
			"SELECT 'nulls=' || COUNT(*) FROM people WHERE id = 10002 AND note IS NULL AND score IS NULL AND id + 1 = 10003\n"+
			"  AND EXISTS (SELECT 1 FROM people WHERE id = 10003 AND note = '');\n"+
			// The binary format both ways: what COPY TO wrote, COPY FROM reads back.
			"CREATE TABLE people2 (id INTEGER PRIMARY KEY, name TEXT, note TEXT, score INTEGER);\n"+
			"\\copy people to '%s' binary\n"+
			"\\copy people2 from '%s' binary\n"+
			"SELECT 'same=' || COUNT(*) FROM people p JOIN people2 q ON p.id = q.id AND p.name = q.name\n"+
			"  AND (p.note = q.note OR (p.note IS NULL AND q.note IS NULL)) AND (p.score = q.score OR (p.score IS NULL AND q.score IS NULL));\n",
			in, out, filepath.Join(dir, "people.bin"), filepath.Join(dir, "people.bin"))
		cmd := exec.Command(psql, psqlConn(c.pgAddr(1), "alice"), "-X", "-v", "ON_ERROR_STOP=0")
		cmd.Env = append(os.Environ(), "PGPASSWORD="+pgPassword("alice"))
		cmd.Stdin = strings.NewReader(script)
		b, err := cmd.CombinedOutput()
		text := string(b)
		t.Logf("psql:\n%s", text)
		if err != nil {
			t.Fatalf("psql: %v", err)
		}
		if !strings.Contains(text, "COPY 4\nCOPY 4") {
			t.Errorf("psql did not report COPY 4 twice")
		}
		if !strings.Contains(text, "ERROR:  COPY to or from a file") {
			t.Errorf("COPY to a server file was not refused")
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// A NULL is an empty unquoted field; an empty string is "" (PostgreSQL's CSV).
		want := "id,name,note,score\n" +
			"10001,\"Smith, Ann\",\"she said \"\"hi\"\"\",5\n" +
			"10002,Bö,,\n" +
			"10003,\"multi\nline\",\"\",7\n" +
			"10004,日本語,plain,-3\n"
		if string(got) != want {
			t.Errorf("\\copy to wrote\n%q\nwant\n%q", got, want)
		}
		if !strings.Contains(text, "same=2504") || strings.Count(text, "COPY 2504") != 2 {
			t.Errorf("the binary round trip did not copy the 2,504 rows back")
		}
		if !strings.Contains(text, "nulls=1") {
			t.Errorf("empty unquoted CSV fields are not NULL (or a quoted empty one is)")
		}
	})

	t.Run("bad row mid-stream", func(t *testing.T) {
		mustPgxExec(t, conn, "CREATE TABLE bulk (id INTEGER PRIMARY KEY, v TEXT)")
		var data strings.Builder
		const bad = 40000
		for i := 1; i <= 50000; i++ {
			if i == bad {
				data.WriteString("x40000\tbad\n")
				continue
			}
			fmt.Fprintf(&data, "%d\tvalue-%d\n", i, i)
		}
		_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data.String()), "COPY bulk FROM STDIN")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("COPY with a bad row: %v, want an ErrorResponse", err)
		}
		t.Logf("error: %s | where: %s | detail: %s | hint: %s", pe.Message, pe.Where, pe.Detail, pe.Hint)
		if pe.Code != "22P02" || !strings.Contains(pe.Where, "line 40000") || !strings.Contains(pe.Message, "line 40000") {
			t.Fatalf("the error does not name line 40000 with 22P02: %+v", pe)
		}
		var committed, last int
		if _, err := fmt.Sscanf(pe.Detail[strings.Index(pe.Detail, "committed (")+len("committed ("):], "%d rows, lines 1–%d", &committed, &last); err != nil {
			t.Fatalf("the detail does not say what committed: %q (%v)", pe.Detail, err)
		}
		if committed == 0 || committed >= bad {
			t.Fatalf("the detail says %d rows committed", committed)
		}
		var count int
		if err := conn.QueryRow(ctx, "SELECT COUNT(*) FROM bulk").Scan(&count); err != nil {
			t.Fatal(err)
		}
		if count != committed || last != committed {
			t.Fatalf("the table holds %d rows, the error said %d (lines 1–%d)", count, committed, last)
		}
		// The session goes on.
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("row the chain refuses", func(t *testing.T) {
		// A duplicate key the decoder cannot see: the node fails its batch, the error names
		// the batch and its lines, and the batches before it stay committed.
		mustPgxExec(t, conn, "CREATE TABLE dup (id INTEGER PRIMARY KEY, v TEXT)")
		var data strings.Builder
		for i := 1; i <= 30000; i++ {
			id := i
			if i == 29000 {
				id = 5
			}
			fmt.Fprintf(&data, "%d,v%d\n", id, i)
		}
		_, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data.String()), "COPY dup FROM STDIN (FORMAT csv)")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("COPY with a duplicate key: %v", err)
		}
		t.Logf("error: %s %s | where: %s | detail: %s | hint: %s", pe.Code, pe.Message, pe.Where, pe.Detail, pe.Hint)
		if !strings.HasPrefix(pe.Code, "23") || !strings.Contains(pe.Where, "batch") || !strings.Contains(pe.Detail, "committed (") {
			t.Fatalf("the error does not name the batch and what committed: %+v", pe)
		}
		var first, last, stmt, sfirst, slast, committed int
		if _, err := fmt.Sscanf(pe.Where[strings.Index(pe.Where, "(lines "):], "(lines %d–%d), INSERT %d of it, lines %d–%d", &first, &last, &stmt, &sfirst, &slast); err != nil ||
			first > 29000 || last < 29000 || sfirst > 29000 || slast < 29000 || slast-sfirst >= 1000 {
			t.Fatalf("the failed batch's lines %d–%d or its INSERT's %d–%d do not hold line 29000 (%v)", first, last, sfirst, slast, err)
		}
		if err := conn.QueryRow(ctx, "SELECT COUNT(*) FROM dup").Scan(&committed); err != nil {
			t.Fatal(err)
		}
		if committed != first-1 || !strings.Contains(pe.Detail, fmt.Sprintf("committed (%d rows", committed)) {
			t.Fatalf("the table holds %d rows; the failed batch starts at line %d; detail %q", committed, first, pe.Detail)
		}
	})

	t.Run("small COPY joins a transaction", func(t *testing.T) {
		mustPgxExec(t, conn, "CREATE TABLE txcopy (id INTEGER PRIMARY KEY, v TEXT)")
		for _, end := range []string{"ROLLBACK", "COMMIT"} {
			mustPgxExec(t, conn, "BEGIN")
			mustPgxExec(t, conn, "INSERT INTO txcopy (id, v) VALUES (0, 'before')")
			tag, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("1\tone\n2\t\\N\n"), "COPY txcopy FROM STDIN")
			if err != nil || tag.String() != "COPY 2" {
				t.Fatalf("COPY in a transaction: %v %v", tag, err)
			}
			mustPgxExec(t, conn, end)
		}
		var n, nulls int
		if err := conn.QueryRow(ctx, "SELECT COUNT(*), COUNT(*) - COUNT(v) FROM txcopy").Scan(&n, &nulls); err != nil || n != 3 || nulls != 1 {
			t.Fatalf("after ROLLBACK then COMMIT: %d rows, %d NULLs (%v); want 3, 1", n, nulls, err)
		}
		// COPY TO inside the transaction sees its own rows (a rehearsal).
		mustPgxExec(t, conn, "BEGIN")
		mustPgxExec(t, conn, "INSERT INTO txcopy (id, v) VALUES (3, 'three')")
		var buf strings.Builder
		if _, err := conn.PgConn().CopyTo(ctx, &buf, "COPY (SELECT id, v FROM txcopy ORDER BY id) TO STDOUT"); err != nil {
			t.Fatal(err)
		}
		mustPgxExec(t, conn, "ROLLBACK")
		if want := "0\tbefore\n1\tone\n2\t\\N\n3\tthree\n"; buf.String() != want {
			t.Fatalf("COPY TO in a transaction: %q, want %q", buf.String(), want)
		}
	})

	h, rows := c.consistentRead(ctx, "SELECT id, name, note, score FROM people ORDER BY id", "SELECT COUNT(*), MAX(id) FROM bulk")
	c.requireSameRows(h, "people", rows[0])
	c.requireSameRows(h, "bulk", rows[1])
}
