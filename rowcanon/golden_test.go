package rowcanon

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json from the vectors below")

// Literal is a value in the golden file: its kind and its text (see
// DESIGN.md, "Test vectors", for the syntax per kind).
type Literal struct {
	Kind  string `json:"kind"`
	Value string `json:"value,omitempty"`
}

type keyVector struct {
	Values []Literal `json:"values"`
	Hex    string    `json:"hex"`
}

type columnLiteral struct {
	Name string `json:"name"`
	Literal
}

type rowVector struct {
	Table   string          `json:"table"`
	Columns []columnLiteral `json:"columns"`
	Hex     string          `json:"hex"`
	Leaf    string          `json:"leaf"`
}

type golden struct {
	Keys []keyVector `json:"keys"`
	Rows []rowVector `json:"rows"`
}

// parseLiteral is the Value a literal names.
func parseLiteral(l Literal) (Value, error) {
	s := l.Value
	switch l.Kind {
	case "null":
		return Null(), nil
	case "bool":
		b, err := strconv.ParseBool(s)
		return Bool(b), err
	case "int":
		i, err := strconv.ParseInt(s, 10, 64)
		return Int(i), err
	case "numeric":
		return Numeric(s)
	case "float":
		f, err := strconv.ParseFloat(s, 64)
		return Float(f), err
	case "text":
		return Text(s)
	case "bytes", "uuid":
		b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
		if l.Kind == "uuid" && err == nil && len(b) == 16 {
			return UUID([16]byte(b)), nil
		}
		return Bytes(b), err
	case "date", "timestamp":
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Value{}, err
		}
		if l.Kind == "date" {
			return Date(i)
		}
		return Timestamp(i)
	case "json":
		return JSON(s)
	}
	return Value{}, fmt.Errorf("unknown kind %q", l.Kind)
}

func lits(kv ...string) []Literal {
	var out []Literal
	for i := 0; i < len(kv); i += 2 {
		out = append(out, Literal{kv[i], kv[i+1]})
	}
	return out
}

// goldenKeys are the key vectors: every kind, the ends of ranges, the
// normalisations and the escapes.
var goldenKeys = [][]Literal{
	lits("bool", "false"), lits("bool", "true"),
	lits("int", "0"), lits("int", "1"), lits("int", "-1"), lits("int", "9223372036854775807"), lits("int", "-9223372036854775808"),
	lits("numeric", "0"), lits("numeric", "-0.00"), lits("numeric", "1.50"), lits("numeric", "-1.5"), lits("numeric", "123.45"),
	lits("numeric", "-0.0012"), lits("numeric", "1e20"), lits("numeric", "0.1"), lits("numeric", "-0.12"), lits("numeric", "-0.123"),
	lits("float", "0"), lits("float", "-0"), lits("float", "1.5"), lits("float", "-1.5"), lits("float", "+Inf"), lits("float", "-Inf"), lits("float", "NaN"),
	lits("text", ""), lits("text", "abc"), lits("text", "é"), lits("text", "ÿ"),
	lits("bytes", ""), lits("bytes", "00"), lits("bytes", "ff"), lits("bytes", "0001ff02"),
	lits("date", "0"), lits("date", "-719162"), lits("date", "2932896"), lits("date", "19782"),
	lits("timestamp", "0"), lits("timestamp", "1709166600000001"), lits("timestamp", "-62135596800000000"),
	lits("uuid", "123e4567-e89b-12d3-a456-426614174000"),
	lits("int", "42", "text", "a"), lits("text", "a", "int", "42"), lits("numeric", "2.5", "date", "19782", "bool", "true"),
}

// goldenRows are the row vectors.
var goldenRows = []rowVector{
	{Table: "t", Columns: []columnLiteral{{"a", Literal{"int", "1"}}}},
	{Table: "accounts", Columns: []columnLiteral{
		{"id", Literal{"int", "42"}}, {"name", Literal{"text", "Ada"}}, {"balance", Literal{"numeric", "100.50"}},
		{"opened", Literal{"date", "19782"}}, {"seen", Literal{"timestamp", "1709166600000001"}}, {"note", Literal{"null", ""}},
		{"ratio", Literal{"float", "-0"}}, {"flags", Literal{"bytes", "00ff"}}, {"ok", Literal{"bool", "true"}},
		{"ref", Literal{"uuid", "123e4567-e89b-12d3-a456-426614174000"}}, {"doc", Literal{"json", `{"b": 1, "a": [true]}`}}}},
	{Table: "empty", Columns: nil},
}

func (g *golden) fill(t *testing.T) {
	g.Keys = nil
	for _, ls := range goldenKeys {
		g.Keys = append(g.Keys, keyVector{Values: ls})
	}
	g.Rows = goldenRows
}

func TestGoldenVectors(t *testing.T) {
	const path = "testdata/golden.json"
	var g golden
	if *update {
		g.fill(t)
	} else {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
	}
	for i := range g.Keys {
		checkOrSet(t, &g.Keys[i].Hex, keyHex(t, g.Keys[i].Values), fmt.Sprintf("key %v", g.Keys[i].Values))
	}
	for i := range g.Rows {
		img, leaf := rowHex(t, g.Rows[i])
		checkOrSet(t, &g.Rows[i].Hex, img, "row "+g.Rows[i].Table)
		checkOrSet(t, &g.Rows[i].Leaf, leaf, "leaf of row "+g.Rows[i].Table)
	}
	if *update {
		out, _ := json.MarshalIndent(g, "", "  ")
		if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(g.Keys) < 40 || len(g.Rows) < 3 {
		t.Errorf("golden file holds %d keys and %d rows", len(g.Keys), len(g.Rows))
	}
}

func checkOrSet(t *testing.T, field *string, got, what string) {
	t.Helper()
	if *update {
		*field = got
	} else if *field != got {
		t.Errorf("%s: %s, golden %s", what, got, *field)
	}
}

func keyHex(t *testing.T, ls []Literal) string {
	var vals []Value
	for _, l := range ls {
		vals = append(vals, mustValue(t)(parseLiteral(l)))
	}
	return hex.EncodeToString(mustKey(t, vals))
}

func rowHex(t *testing.T, r rowVector) (image, leaf string) {
	var cols []Column
	for _, c := range r.Columns {
		cols = append(cols, Column{c.Name, mustValue(t)(parseLiteral(c.Literal))})
	}
	img := mustRow(t, r.Table, cols)
	h := LeafHash(img)
	return hex.EncodeToString(img), hex.EncodeToString(h[:])
}
