package sqlite

import (
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// BenchmarkCostedFunction compares a built-in with its costed wrapper:
// upper() of a 20-byte text over 10,000 rows (ns/op is one scan).
func BenchmarkCostedFunction(b *testing.B) {
	for _, costed := range []bool{false, true} {
		name := "builtin"
		if costed {
			name = "costed"
		}
		b.Run(name, func(b *testing.B) {
			c, err := sqlite3.Open(":memory:")
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			k := newCosts()
			defer k.close()
			if costed {
				if err := k.register(c); err != nil {
					b.Fatal(err)
				}
			}
			if err := c.Exec(`CREATE TABLE f (v TEXT);
				WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 10000)
				INSERT INTO f SELECT 'abcdefghijklmnopqrs' || x FROM s`); err != nil {
				b.Fatal(err)
			}
			st, _, err := c.Prepare(`SELECT max(upper(v)) FROM f`)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			for b.Loop() {
				if !st.Step() {
					b.Fatal(st.Err())
				}
				if err := st.Reset(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The costed functions return exactly what SQLite's built-ins return:
// value and type, for texts, BLOBs, numbers, NULLs and errors.
func TestCostedFunctionsMatchTheBuiltins(t *testing.T) {
	exprs := []string{
		`printf('%d|%5.2f|%s|%c|%q|%w|%x', 42, 3.14159, 'abc', 'xyz', 'it''s', 'a"b', 255)`,
		`printf()`, `printf(NULL)`, `format('%s-%s', 1, x'4142')`, `printf('%.*c', 5, 'ab')`,
		`char(72, 105, 0x20AC)`, `char()`, `concat('a', NULL, 1, 2.5, x'43')`, `concat_ws('-', 'a', NULL, 'b')`,
		`concat_ws(NULL, 'a')`, `hex('héllo')`, `hex(NULL)`, `hex(12.5)`, `hex(x'')`, `unhex('48656C6C6F')`,
		`unhex('zz')`, `unhex('48-65', '-')`, `unhex('')`, `upper('abcÀé')`, `lower('ABCÀÉ')`, `upper(NULL)`,
		`upper(1.5)`, `lower(x'41')`, `typeof(upper(x'41'))`, `unistr('\u00e9\0041')`,
		`replace('abcabc', 'b', 'XY')`, `replace('abc', '', 'x')`, `replace(NULL, 'a', 'b')`, `replace(123, 2, 9)`,
		`replace(x'616263', 'b', 'B')`, `typeof(replace(x'616263', 'b', 'B'))`,
		`instr('hello', 'l')`, `instr('héllo', 'l')`, `instr(x'0102', x'02')`, `instr(NULL, 'a')`,
		`trim('  a  ')`, `ltrim('xxaxx', 'x')`, `rtrim('xxaxx', 'x')`, `trim('éaé', 'é')`, `trim(NULL)`, `trim(12.0)`,
		`'abc' LIKE 'A%'`, `'abc' LIKE 'a\_c' ESCAPE '\'`, `'a_c' LIKE 'a\_c' ESCAPE '\'`, `'abc' NOT LIKE '%d'`,
		`'abc' GLOB 'a*'`, `'abc' GLOB 'A*'`, `NULL LIKE 'a'`, `'é' LIKE 'É'`,
		`length(zeroblob(3))`, `typeof(zeroblob(0))`, `zeroblob(-5)`, `hex(zeroblob(2))`,
	}
	plain, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	costed, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer costed.Close()
	k := newCosts()
	defer k.close()
	if err := k.register(costed); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*sqlite3.Conn{plain, costed} {
		limitConn(c)
	}
	eval := func(c *sqlite3.Conn, e string) string {
		st, _, err := c.Prepare("SELECT typeof(" + e + "), quote(" + e + ")")
		if err != nil {
			return "prepare: " + err.Error()
		}
		defer st.Close()
		if !st.Step() {
			return "step: " + st.Err().Error()
		}
		return st.ColumnText(0) + " " + st.ColumnText(1)
	}
	for _, e := range exprs {
		if want, got := eval(plain, e), eval(costed, e); got != want {
			t.Errorf("%s: costed %q, built-in %q", e, got, want)
		}
	}
}
