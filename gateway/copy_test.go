package gateway

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

func TestParseCopy(t *testing.T) {
	for sql, want := range map[string]string{
		"COPY t FROM STDIN": `t [] from stdin text "\t" "\\N" header=false`,
		"copy pgbench_accounts from stdin with (freeze on)": `pgbench_accounts [] from stdin text "\t" "\\N" header=false`,
		`COPY public."My T" (a, "B") FROM stdin WITH (FORMAT csv, HEADER true, DELIMITER ';', NULL 'NA', QUOTE '''', FORCE_NOT_NULL (a))`: `public."My T" [a "B"] from stdin csv ";" "NA" header=true`,
		"COPY t FROM STDIN csv header":                                         `t [] from stdin csv "," "" header=true`,
		"COPY t (x) FROM STDIN WITH DELIMITER AS '|' NULL AS ''":               `t [x] from stdin text "|" "" header=false`,
		"COPY t FROM STDIN BINARY":                                             `t [] from stdin binary "\t" "\\N" header=false`,
		"COPY (SELECT a, 'x)' FROM t WHERE (b > 1)) TO STDOUT WITH CSV HEADER": `(SELECT a, 'x)' FROM t WHERE (b > 1)) [] to stdout csv "," "" header=true`,
		"COPY t TO STDOUT (FORMAT binary);":                                    `t [] to stdout binary "\t" "\\N" header=false`,
		"COPY t FROM '/etc/passwd'":                                            `t [] from file`,
		"COPY t TO PROGRAM 'rm -rf /'":                                         `t [] to program`,
	} {
		st, err := parseCopy(sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		name := st.table
		if st.query != "" {
			name = "(" + st.query + ")"
		}
		dir := map[bool]string{true: "from", false: "to"}[st.from]
		got := fmt.Sprintf("%s %v %s %s", name, st.columns, dir, st.target)
		if st.target == "stdin" || st.target == "stdout" {
			got += fmt.Sprintf(" %s %q %q header=%v", st.opts.format, string(st.opts.delim), st.opts.null, st.opts.header)
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
	for sql, code := range map[string]string{
		"COPY t TO STDIN":                                  "42601",
		"COPY t FROM STDIN (FORMAT xml)":                   "42601",
		"COPY t FROM STDIN (FORMAT binary, HEADER)":        "42601",
		"COPY t FROM STDIN (DELIMITER ',', DELIMITER ';')": "42601",
		"COPY t FROM STDIN (DELIMITER ',,')":               "42601",
		"COPY t FROM STDIN (QUOTE '\"')":                   "0A000",
		"COPY t FROM STDIN (FORMAT csv, DELIMITER '\"')":   "42601",
		"COPY t FROM STDIN (ENCODING 'LATIN1')":            "0A000",
		"COPY (SELECT 1) FROM STDIN":                       "42601",
		"COPY t FROM STDIN WITH 'x":                        "42601",
		"COPY (SELECT 1 TO STDOUT":                         "42601",
		"COPY t FROM STDIN (BOGUS 1)":                      "42601",
	} {
		_, err := parseCopy(sql)
		pe, ok := err.(*pgwire.Error)
		if !ok || pe.Code != code {
			t.Errorf("%s: %v, want SQLSTATE %s", sql, err, code)
		}
	}
}

// decodeAll decodes data fed in pieces of size step (0: whole).
func decodeAll(o *copyOptions, ncols int, oids []uint32, data []byte, step int) ([][]any, []int, error) {
	d := newRowDecoder(o, ncols, oids, 1<<20)
	if td, ok := d.(*textDecoder); ok {
		td.names = []string{"a", "b", "c"}
	}
	var rows [][]any
	var lines []int
	emit := func(r []any, line int) error {
		rows = append(rows, append([]any{}, r...))
		lines = append(lines, line)
		return nil
	}
	if step <= 0 {
		step = len(data) + 1
	}
	for i := 0; i < len(data); i += step {
		if err := d.feed(data[i:min(i+step, len(data))], emit); err != nil {
			return rows, lines, err
		}
	}
	return rows, lines, d.finish(emit)
}

func options(t *testing.T, with string) *copyOptions {
	t.Helper()
	st, err := parseCopy("COPY t FROM STDIN " + with)
	if err != nil {
		t.Fatal(err)
	}
	return &st.opts
}

func TestCopyTextFormat(t *testing.T) {
	o := options(t, "")
	data := "1\ttab\\there\t\\N\n" +
		"2\tback\\\\slash, nl\\n, oct \\101\\0620, hex \\x41\\x4a\t\\\\N\n" +
		"3\tdelim\\\tinside\tü\r\n" +
		"4\t\t\n" +
		"\\.\nignored after the end marker\n"
	want := [][]any{
		{"1", "tab\there", nil},
		{"2", "back\\slash, nl\n, oct A20, hex AJ", `\N`},
		{"3", "delim\tinside", "ü"},
		{"4", "", ""},
	}
	for _, step := range []int{0, 1, 2, 3, 7} {
		rows, lines, err := decodeAll(o, 3, nil, []byte(data), step)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if !reflect.DeepEqual(rows, want) || !reflect.DeepEqual(lines, []int{1, 2, 3, 4}) {
			t.Fatalf("step %d:\n got %q %v\nwant %q", step, rows, lines, want)
		}
	}
	// A last line without its newline is a row; a header line is skipped.
	rows, _, err := decodeAll(options(t, "(HEADER)"), 3, nil, []byte("a\tb\tc\n1\t2\t3"), 1)
	if err != nil || !reflect.DeepEqual(rows, [][]any{{"1", "2", "3"}}) {
		t.Fatalf("header + unterminated last line: %q %v", rows, err)
	}
	for data, msg := range map[string]string{
		"1\t2\n":       "missing data for column 3",
		"1\t2\t3\t4\n": "extra data after last expected column",
	} {
		_, _, err := decodeAll(o, 3, nil, []byte("0\t0\t0\n"+data), 0)
		pe, ok := err.(*pgwire.Error)
		if !ok || pe.Code != stateBadCopyFormat || !strings.Contains(pe.Message, msg) {
			t.Errorf("%q: %v, want 22P04 %s", data, err, msg)
		}
	}
}

func TestCopyCSVFormat(t *testing.T) {
	o := options(t, "(FORMAT csv, HEADER, FORCE_NOT_NULL (b), FORCE_NULL (c))")
	data := "a,b,c\n" +
		"1,\"Smith, Ann\",\"she said \"\"hi\"\"\"\n" +
		"2,,\"\"\n" +
		"3,\"multi\nline\r\n\",x\r\n" +
		"\"4\",日本語,\n"
	want := [][]any{
		{"1", "Smith, Ann", `she said "hi"`},
		{"2", "", nil},
		{"3", "multi\nline\r\n", "x"},
		{"4", "日本語", nil},
	}
	for _, step := range []int{0, 1, 2, 5} {
		rows, lines, err := decodeAll(o, 3, nil, []byte(data), step)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if !reflect.DeepEqual(rows, want) || !reflect.DeepEqual(lines, []int{2, 3, 4, 7}) {
			t.Fatalf("step %d:\n got %q %v\nwant %q", step, rows, lines, want)
		}
	}
	// ESCAPE other than QUOTE; an empty unquoted field is NULL by default.
	rows, _, err := decodeAll(options(t, "(FORMAT csv, ESCAPE '\\')"), 3, nil, []byte(`1,"a\"b\\c",`+"\n"), 1)
	if err != nil || !reflect.DeepEqual(rows, [][]any{{"1", `a"b\c`, nil}}) {
		t.Fatalf("ESCAPE: %q %v", rows, err)
	}
	if _, _, err := decodeAll(options(t, "CSV"), 3, nil, []byte("1,\"open,3\n"), 0); err == nil || !strings.Contains(err.Error(), "unterminated CSV quoted field") {
		t.Fatalf("an open quote at the end: %v", err)
	}
}

// binaryStream builds a binary COPY stream with the encoder.
func binaryStream(t *testing.T, oids []uint32, rows [][]any, trailer bool) []byte {
	t.Helper()
	o := options(t, "BINARY")
	enc := &copyEncoder{o: o, codec: pgwire.NewCodec(), oids: oids}
	b := enc.header()
	for _, r := range rows {
		rb, err := enc.row(r)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, rb...)
	}
	if trailer {
		b = append(b, enc.trailer()...)
	}
	return b
}

func TestCopyBinaryFormat(t *testing.T) {
	oids := []uint32{oidOf["int8"], oidOf["text"], oidOf["bool"]}
	rows := [][]any{{int64(1), "ü\n\t", true}, {int64(-7), nil, false}, {nil, "", nil}}
	data := binaryStream(t, oids, rows, true)
	o := options(t, "BINARY")
	for _, step := range []int{0, 1, 3, 11} {
		got, lines, err := decodeAll(o, 3, oids, data, step)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if !reflect.DeepEqual(got, rows) || !reflect.DeepEqual(lines, []int{1, 2, 3}) {
			t.Fatalf("step %d: got %#v", step, got)
		}
	}
	// The trailer is optional (PostgreSQL).
	if got, _, err := decodeAll(o, 3, oids, binaryStream(t, oids, rows, false), 0); err != nil || len(got) != 3 {
		t.Fatalf("without a trailer: %v", err)
	}
	bad := func(mutate func([]byte) []byte) []byte {
		return mutate(append([]byte{}, data...))
	}
	for name, c := range map[string]struct {
		data []byte
		msg  string
	}{
		"signature":    {bad(func(b []byte) []byte { b[0] = 'X'; return b }), "COPY file signature not recognized"},
		"text data":    {[]byte("1\t2\t3\n"), "COPY file signature not recognized"},
		"with oids":    {bad(func(b []byte) []byte { binary.BigEndian.PutUint32(b[11:], 1<<16); return b }), "WITH OIDS"},
		"crit flag":    {bad(func(b []byte) []byte { binary.BigEndian.PutUint32(b[11:], 1<<20); return b }), "critical flags"},
		"huge ext":     {bad(func(b []byte) []byte { binary.BigEndian.PutUint32(b[15:], 1<<30); return b }), "wrong length"},
		"field count":  {bad(func(b []byte) []byte { binary.BigEndian.PutUint16(b[19:], 2); return b }), "row field count is 2, expected 3"},
		"field size":   {bad(func(b []byte) []byte { binary.BigEndian.PutUint32(b[21:], 0xfffffff0); return b }), "invalid field size"},
		"truncated":    {data[:len(data)-5], "unexpected EOF"},
		"after end":    {append(append([]byte{}, data...), 0, 1), "after EOF marker"},
		"bad int8 len": {bad(func(b []byte) []byte { binary.BigEndian.PutUint32(b[21:], 4); return b }), ""},
	} {
		_, _, err := decodeAll(o, 3, oids, c.data, 0)
		pe, ok := err.(*pgwire.Error)
		if !ok || (c.msg != "" && !strings.Contains(pe.Message, c.msg)) {
			t.Errorf("%s: %v, want %q", name, err, c.msg)
		}
	}
}

func TestCopyEncoder(t *testing.T) {
	oids := []uint32{oidOf["int8"], oidOf["text"], oidOf["timestamptz"]}
	ts := time.Date(2026, 12, 1, 23, 9, 33, 293245000, time.UTC)
	rows := [][]any{{int64(1), "a\tb\\c\nd", ts}, {nil, "", nil}, {int64(2), `x,"y"`, nil}}
	encode := func(with string) string {
		o := options(t, with)
		enc := &copyEncoder{o: o, codec: pgwire.NewCodec(), oids: oids, names: []string{"id", "note", "at"}}
		out := string(enc.header())
		for _, r := range rows {
			b, err := enc.row(r)
			if err != nil {
				t.Fatal(err)
			}
			out += string(b)
		}
		return out
	}
	tsText, _ := pgwire.NewCodec().Encode(oidOf["timestamptz"], false, ts)
	if got, want := encode(""), "1\ta\\tb\\\\c\\nd\t"+string(tsText)+"\n\\N\t\t\\N\n2\tx,\"y\"\t\\N\n"; got != want {
		t.Errorf("text:\n got %q\nwant %q", got, want)
	}
	if got, want := encode("CSV HEADER"), "id,note,at\n1,\"a\tb\\c\nd\","+string(tsText)+"\n,\"\",\n2,\"x,\"\"y\"\"\",\n"; got != want {
		t.Errorf("csv:\n got %q\nwant %q", got, want)
	}
	// What the encoder writes, the decoder reads back.
	rowsBack, _, err := decodeAll(options(t, "CSV HEADER"), 3, nil, []byte(encode("CSV HEADER")), 1)
	if err != nil || rowsBack[0][1] != "a\tb\\c\nd" || rowsBack[1][1] != "" || rowsBack[1][0] != nil {
		t.Errorf("CSV round trip: %q %v", rowsBack, err)
	}
}

func TestCopyArg(t *testing.T) {
	for _, c := range []struct {
		typ  string
		in   any
		want txn.Arg
		err  string
	}{
		{"int4", " 42 ", txn.Int(42), ""},
		{"int8", "x1", txn.Arg{}, `invalid input syntax for type integer: "x1"`},
		{"bool", "t", txn.Bool(true), ""},
		{"bool", "OFF", txn.Bool(false), ""},
		{"bool", "maybe", txn.Arg{}, "boolean"},
		{"float8", "1.5", txn.Float(1.5), ""},
		{"float8", "Infinity", txn.Text("Infinity"), ""},
		{"bytea", `\x0aff`, txn.Bytes([]byte{0x0a, 0xff}), ""},
		{"bytea", `a\\b\001`, txn.Bytes([]byte{'a', '\\', 'b', 1}), ""},
		{"bytea", `\xzz`, txn.Arg{}, "hexadecimal"},
		{"numeric", "1.10", txn.Text("1.10"), ""},
		{"text", nil, txn.Null(), ""},
		{"int8", int64(5), txn.Int(5), ""},
	} {
		got, err := copyArg(c.typ, c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %q: %v, want %q", c.typ, c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q: %v %v, want %v", c.typ, c.in, got, err, c.want)
		}
	}
}

// FuzzCopyDecoders: any input, in any split, decodes without a panic to the same rows (or
// error) as in one piece, in the text and the CSV format.
func FuzzCopyDecoders(f *testing.F) {
	f.Add([]byte("1\ta\\tb\t\\N\n2\t\\101\t\n"), uint8(3), false)
	f.Add([]byte("a,\"b\nc\",\"\"\"\"\n1,2,3"), uint8(1), true)
	f.Add([]byte("\\.\n"), uint8(0), false)
	f.Fuzz(func(t *testing.T, data []byte, step uint8, csv bool) {
		o := &copyOptions{format: "text", set: map[string]bool{}}
		if csv {
			o.format = "csv"
		}
		if err := o.check(); err != nil {
			t.Fatal(err)
		}
		whole, wl, werr := decodeAll(o, 3, nil, data, 0)
		split, sl, serr := decodeAll(o, 3, nil, data, int(step%16)+1)
		if (werr == nil) != (serr == nil) || (werr == nil && (!reflect.DeepEqual(whole, split) || !reflect.DeepEqual(wl, sl))) {
			t.Fatalf("whole: %q %v %v; split by %d: %q %v %v", whole, wl, werr, step%16+1, split, sl, serr)
		}
	})
}
