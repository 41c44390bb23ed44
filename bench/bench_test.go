package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// rowsQuerier answers every query with the same rows.
type rowsQuerier [][]any

func (q rowsQuerier) Query(context.Context, string, ...any) ([][]any, error) { return q, nil }

func TestTableDigestsAgreeAcrossValueSpellings(t *testing.T) {
	tables := []workload.Table{{Name: "t", Key: []string{"id"}}}
	// The chain's query path (JSON numbers) and the raw baseline (driver
	// types, PostgreSQL numeric as text) spell the same rows differently.
	chain := rowsQuerier{{json.Number("1"), json.Number("59.27"), "abc", nil}}
	raw := rowsQuerier{{int64(1), "59.27", []byte("abc"), nil}}
	other := rowsQuerier{{int64(1), "59.28", "abc", nil}}
	ctx := context.Background()
	diff, err := DiffTables(ctx, chain, raw, tables)
	if err != nil || len(diff) != 0 {
		t.Fatalf("same rows spelled differently: diff %v, %v", diff, err)
	}
	diff, err = DiffTables(ctx, chain, other, tables)
	if err != nil || len(diff) != 1 || diff[0] != "t" {
		t.Fatalf("different rows: diff %v, %v; want [t]", diff, err)
	}
}

func TestParseMixReadsKindsAndWeights(t *testing.T) {
	m, err := parseMix([]string{"NewOrder:45", "Payment:43", "OrderStatus"})
	if err != nil {
		t.Fatal(err)
	}
	if m["NewOrder"] != 45 || m["Payment"] != 43 || m["OrderStatus"] != 1 {
		t.Fatalf("mix %v", m)
	}
	for _, bad := range []string{"NewOrder:0", "NewOrder:x", ":3"} {
		if _, err := parseMix([]string{bad}); err == nil {
			t.Errorf("--mix %q accepted", bad)
		}
	}
}

func TestNewWorkloadKnowsEveryNamedWorkload(t *testing.T) {
	for _, name := range Workloads {
		w, err := NewWorkload(name, WorkloadOptions{Scale: 10})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if w.Name() != name {
			t.Errorf("NewWorkload(%q) is named %q", name, w.Name())
		}
	}
	if _, err := NewWorkload("nope", WorkloadOptions{}); err == nil {
		t.Errorf("an unknown workload was accepted")
	}
}

func TestValidateRefusesBadFlagsBeforeAnythingStarts(t *testing.T) {
	ok := Config{Workload: "smallbank", Mode: ModePseudo, WLPerBC: 10, Clients: 2, Txs: 100}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	for name, mutate := range map[string]func(*Config){
		"unknown mode":       func(c *Config) { c.Mode = "fast" },
		"no txs":             func(c *Config) { c.Txs = 0 },
		"no clients":         func(c *Config) { c.Clients = 0 },
		"no wl per bc":       func(c *Config) { c.WLPerBC = 0 },
		"batching sync mode": func(c *Config) { c.Mode = ModeSync },
		"commit for a workload": func(c *Config) {
			c.Mode, c.WLPerBC = "commit", 1
		},
		"a rate outside async": func(c *Config) { c.Rate = 100 },
		"a negative rate":      func(c *Config) { c.Mode, c.Rate = ModeAsync, -1 },
	} {
		c := ok
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: %+v accepted", name, c)
		}
	}
}
