package pgruntime_test

import (
	"reflect"
	"testing"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// TestNumericTypedParameters: a parameter the client types numeric (as
// psycopg and pgjdbc send a Decimal) is read by numeric's input function,
// rounded to the column's scale on assignment, and comes back as
// PostgreSQL's text; bad text is 22P02.
func TestNumericTypedParameters(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE m (id int4 PRIMARY KEY, price numeric(10,2) NOT NULL)")
	numeric := pgdialect.Type{Name: "numeric", Typmod: -1}
	int4 := pgdialect.Type{Name: "int4", Typmod: -1}
	tr, err := pgdialect.TranslateTyped("INSERT INTO m VALUES ($1, $2) RETURNING price", pgruntime.NewCatalog(d.c), []pgdialect.Type{int4, numeric})
	if err != nil {
		t.Fatal(err)
	}
	if want := []pgdialect.ResultColumn{{Name: "price", Type: pgdialect.Type{Name: "numeric", Typmod: 10<<16 | 2 + 4}}}; !reflect.DeepEqual(tr.Columns, want) {
		t.Fatalf("columns %v, want %v", tr.Columns, want)
	}
	for i, in := range []string{"19.999", "-0.001", "7"} {
		id, err1 := pgruntime.Param(int4, int64(i))
		price, err2 := pgruntime.Param(numeric, in)
		if err1 != nil || err2 != nil {
			t.Fatalf("params: %v %v", err1, err2)
		}
		res, err := d.exec(tr.Statements[0], tr.Columns, []any{id, price})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if want := []string{"20.00", "0.00", "7.00"}[i]; len(res.rows) != 1 || res.rows[0][0] != want {
			t.Errorf("%s: returned %v, want %s", in, res.rows, want)
		}
	}
	if _, err := pgruntime.Param(numeric, "12abc"); err == nil {
		t.Error("numeric parameter 12abc accepted")
	} else if code, _ := pgruntime.SQLState(err); code != "22P02" {
		t.Errorf("numeric parameter 12abc: %v, want 22P02", err)
	}
	// Equal values of different scales are one key: 7.00 is taken.
	if r := d.run("INSERT INTO m VALUES (9, 7.000)"); r.code != "" {
		t.Fatalf("insert: %v", r.message)
	}
	if r := d.run("SELECT count(DISTINCT price), sum(price), avg(price) FROM m"); !reflect.DeepEqual(r.rows, [][]any{{int64(3), "34.00", "8.5000000000000000"}}) {
		t.Errorf("aggregates: %v %s", r.rows, r.message)
	}
}

// TestNumericSumOverMovingFrame: sum and avg of numeric over a frame whose
// start moves (SQLite's inverse step) are exact, displayed with the
// largest scale among the values left in the frame, as PostgreSQL's.
func TestNumericSumOverMovingFrame(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE m (id int4 PRIMARY KEY, v numeric)")
	d.mustRun("INSERT INTO m VALUES (1, 1.125), (2, 2), (3, NULL), (4, 0.5), (5, 3)")
	res := d.run("SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), avg(v) OVER (ORDER BY id ROWS 1 PRECEDING) FROM m ORDER BY id")
	if res.code != "" {
		t.Fatalf("%s: %s", res.code, res.message)
	}
	want := [][]any{
		{int64(1), "1.125", "1.12500000000000000000"}, // PostgreSQL 15 prints these
		{int64(2), "3.125", "1.5625000000000000"},
		{int64(3), "2", "2.0000000000000000"},
		{int64(4), "0.5", "0.50000000000000000000"},
		{int64(5), "3.5", "1.7500000000000000"},
	}
	if !reflect.DeepEqual(res.rows, want) {
		t.Errorf("rows %v, want %v", res.rows, want)
	}
}
