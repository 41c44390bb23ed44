package rowcanon

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// TestMain stops the private PostgreSQL cluster pgtest may have started
// (none when RELCHAIN_TEST_PG names a server).
func TestMain(m *testing.M) { pgtest.Main(m) }

// pgColumns are the key kinds with the PostgreSQL type each maps from.
var pgColumns = []struct {
	kind Kind
	typ  string
}{
	{KindBool, "boolean"}, {KindInt, "bigint"}, {KindNumeric, "numeric"}, {KindFloat, "float8"},
	{KindText, `text COLLATE "C"`}, {KindBytes, "bytea"}, {KindDate, "date"}, {KindTimestamp, "timestamptz"}, {KindUUID, "uuid"},
}

// TestKeyOrderIsPostgreSQLOrder stores random values of every key kind in
// PostgreSQL and checks, column by column and for a two-column tuple,
// that ORDER BY gives the keys in byte order, with equal keys exactly
// where PostgreSQL's DENSE_RANK ties.
func TestKeyOrderIsPostgreSQLOrder(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.ServerDSN(t)) // RELCHAIN_TEST_PG, or a private cluster
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	create := "CREATE TEMP TABLE keyorder (id int"
	for i, c := range pgColumns {
		create += ", c" + strconv.Itoa(i) + " " + c.typ
	}
	if _, err := conn.Exec(ctx, create+")"); err != nil {
		t.Fatal(err)
	}
	rows := insertRandomRows(t, ctx, conn, 400)
	for i := range pgColumns {
		col := "c" + strconv.Itoa(i)
		checkOrder(t, ctx, conn, rows, []int{i}, col)
	}
	checkOrder(t, ctx, conn, rows, []int{4, 2}, "c4, c2")
}

func insertRandomRows(t *testing.T, ctx context.Context, conn *pgx.Conn, n int) [][]Value {
	r := rand.New(rand.NewPCG(7, 8))
	insert := "INSERT INTO keyorder VALUES ($1"
	for i, c := range pgColumns {
		insert += ", $" + strconv.Itoa(i+2) + "::" + c.typ
	}
	insert += ")"
	var rows [][]Value
	for id := range n {
		vals := make([]Value, len(pgColumns))
		args := []any{id}
		for i, c := range pgColumns {
			vals[i] = randValue(t, r, c.kind)
			if c.kind == KindBytes {
				args = append(args, []byte(vals[i].s))
			} else if c.kind == KindText {
				args = append(args, vals[i].s)
			} else {
				args = append(args, vals[i].String())
			}
		}
		if _, err := conn.Exec(ctx, insert, args...); err != nil {
			t.Fatalf("insert %v: %v", vals, err)
		}
		rows = append(rows, vals)
	}
	return rows
}

// checkOrder reads the ids in PostgreSQL's ORDER BY orderBy with their
// dense rank and checks the keys of the columns cols against them.
func checkOrder(t *testing.T, ctx context.Context, conn *pgx.Conn, rows [][]Value, cols []int, orderBy string) {
	res, err := conn.Query(ctx, "SELECT id, DENSE_RANK() OVER (ORDER BY "+orderBy+") FROM keyorder ORDER BY "+orderBy)
	if err != nil {
		t.Fatal(err)
	}
	var prevKey []byte
	var prevRank int64
	var prevID int
	defer res.Close()
	for n := 0; res.Next(); n++ {
		var id int
		var rank int64
		if err := res.Scan(&id, &rank); err != nil {
			t.Fatal(err)
		}
		var tuple []Value
		for _, c := range cols {
			tuple = append(tuple, rows[id][c])
		}
		key := mustKey(t, tuple)
		if n > 0 {
			c := bytes.Compare(prevKey, key)
			if (rank == prevRank) != (c == 0) || c > 0 {
				t.Errorf("ORDER BY %s: row %d (%v, rank %d) after row %d (%v, rank %d), keys compare %d",
					orderBy, id, tuple, rank, prevID, rows[prevID], prevRank, c)
			}
		}
		prevKey, prevRank, prevID = key, rank, id
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
}
