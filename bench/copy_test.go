package bench

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMeasureCopy runs MeasureCopy when RELCHAIN_BENCH_COPY names the backends (e.g.
// "sqlite,postgres"); RELCHAIN_BENCH_BIN is the relchain binary, RELCHAIN_BENCH_PG_TEMPLATE
// the PostgreSQL DSN template (with {node}). It asserts nothing about speed:
//
//	RELCHAIN_BENCH_COPY=sqlite,postgres RELCHAIN_BENCH_BIN=$PWD/build/relchain \
//	RELCHAIN_BENCH_PG_TEMPLATE='postgres://postgres@127.0.0.1:5432/copy_{node}?sslmode=disable' \
//	go test ./bench -run TestMeasureCopy -count=1 -v -timeout 60m
func TestMeasureCopy(t *testing.T) {
	backends := os.Getenv("RELCHAIN_BENCH_COPY")
	if backends == "" {
		t.Skip("RELCHAIN_BENCH_COPY is not set")
	}
	for _, b := range strings.Split(backends, ",") {
		o := CopyOptions{Rows: 100000, InsertRows: 1000, Runs: 3, Log: testLog{t},
			Network: NetworkOptions{Bin: os.Getenv("RELCHAIN_BENCH_BIN"), Dir: t.TempDir(), Validators: 4, Backend: b}}
		if b == "postgres" {
			o.Network.DSNTemplate = os.Getenv("RELCHAIN_BENCH_PG_TEMPLATE")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		res, err := MeasureCopy(ctx, o)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		out, _ := json.Marshal(res)
		t.Logf("%s: COPY %.0f rows/s, INSERT %.0f rows/s (median of %d); %s", b, res.CopyMedian, res.InsMedian, o.Runs, out)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
