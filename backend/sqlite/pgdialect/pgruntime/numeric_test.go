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
