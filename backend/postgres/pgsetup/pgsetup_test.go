package pgsetup

import "testing"

func TestSplitDSNFindsTheReader(t *testing.T) {
	for _, c := range []struct{ dsn, writer, reader string }{
		{"postgres://n0_writer:pw@h:5/n0?sslmode=disable", "postgres://n0_writer:pw@h:5/n0?sslmode=disable", "postgres://n0_reader:pw@h:5/n0?sslmode=disable"},
		{"postgres://w:pw@h/db?relchain_reader=r&relchain_reader_password=q&sslmode=disable", "postgres://w:pw@h/db?sslmode=disable", "postgres://r:q@h/db?sslmode=disable"},
		{"postgres://postgres@h/db", "postgres://postgres@h/db", ""},
		{"host=h user=n0_writer dbname=n0", "host=h user=n0_writer dbname=n0", ""},
	} {
		w, r, err := SplitDSN(c.dsn)
		if err != nil || w != c.writer || r != c.reader {
			t.Errorf("SplitDSN(%q) = %q, %q, %v; want %q, %q", c.dsn, w, r, err, c.writer, c.reader)
		}
	}
	if _, _, err := SplitDSN("postgres://w@h/db?relchain_reader="); err == nil {
		t.Error("an empty relchain_reader was accepted")
	}
}

func TestRolesFitPostgresIdentifiers(t *testing.T) {
	long := "d_0123456789012345678901234567890123456789012345678901234567890123456789"
	w, r := Roles(long)
	if len(w) > maxIdent || len(r) > maxIdent || w[:len(w)-len("_writer")] != r[:len(r)-len("_reader")] {
		t.Fatalf("Roles(%d chars) = %q, %q", len(long), w, r)
	}
}
