package pgdialect

import (
	"strings"
	"testing"
)

// A serial column's declared type keeps a plain sequence name as the one
// word it always was (databases written before read the same), carries
// any other name hex-encoded, and ParseSerial reads both back.
func TestSerialDeclaredTypeRoundTrip(t *testing.T) {
	int8 := Type{Name: "int8", Typmod: -1}
	for _, c := range []struct {
		typ       Type
		seq, decl string
	}{
		{tInt4, "t_id_seq", "int4 serial t_id_seq"},
		{int8, "go_users_id_seq", "int8 serial go_users_id_seq"},
		{tInt4, "SeqAuthors_id_seq", "int4 serial x536571417574686f72735f69645f736571"},
		{tInt4, `a "b"_id_seq`, "int4 serial x6120226222" + "5f69645f736571"},
		{int8, "xab", "int8 serial x786162"},
	} {
		if got := SerialDeclaredType(c.typ, c.seq); got != c.decl {
			t.Errorf("SerialDeclaredType(%s, %q) = %q, want %q", c.typ.Name, c.seq, got, c.decl)
		}
		if seq, ok := ParseSerial(c.decl); !ok || seq != c.seq {
			t.Errorf("ParseSerial(%q) = %q, %v, want %q", c.decl, seq, ok, c.seq)
		}
		if typ, ok := ParseDeclaredType(c.decl); !ok || typ != c.typ {
			t.Errorf("ParseDeclaredType(%q) = %v, %v, want %v", c.decl, typ, ok, c.typ)
		}
	}
	for _, bad := range []string{"int4 serial xff", "int4 serial", "int4 serial a b"} {
		if seq, ok := ParseSerial(bad); ok {
			t.Errorf("ParseSerial(%q) = %q, want no serial", bad, seq)
		}
	}
}

// Sequence names are PostgreSQL's makeObjectName(table, column, "seq"):
// the longer of the two clipped first, at a character boundary, to 63
// bytes.
func TestSequenceForClipsAsPostgreSQL(t *testing.T) {
	long := "Quoted \"Long\" table name that PostgreSQL clips in its sequence"
	for _, c := range []struct{ table, column, want string }{
		{"SeqAuthors", "id", "SeqAuthors_id_seq"},
		{long, "SmallId", "Quoted \"Long\" table name that PostgreSQL clips in i_SmallId_seq"},
		{"t" + strings.Repeat("ä", 31), "c", "tääääääääääääääääääääääääääää_c_seq"},
	} {
		got := sequenceFor(c.table, c.column)
		if got != c.want || len(got) > 63 {
			t.Errorf("sequenceFor(%q, %q) = %q (%d bytes), want %q", c.table, c.column, got, len(got), c.want)
		}
	}
}
