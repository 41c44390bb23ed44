package postgres_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

func TestHistoryConformance(t *testing.T) {
	backendtest.RunHistory(t, openForTest, spelling, backendtest.HistoryOptions{
		Tables:      []string{"relchain.history_blocks", "relchain.history_versions", "relchain.history_states", "relchain.history_roots"},
		Restore:     restoreForTest,
		DropHistory: dropHistoryForTest,
		Dump: func(t *testing.T, _ backend.Backend) []byte {
			dsn, _ := dsns.Load(t)
			var buf bytes.Buffer
			if _, err := postgres.Dump(context.Background(), dsn.(string), &buf); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		},
	})
}

func BenchmarkAppendHistory(b *testing.B) {
	backendtest.BenchmarkAppendHistory(b, func(b *testing.B) backend.Backend { return mustOpen(b, pgtest.DSN(b)) })
}

// dropHistoryForTest drops the history tables of t's database, as its
// writer.
func dropHistoryForTest(t *testing.T) {
	dsn, _ := dsns.Load(t)
	writer, _, err := pgsetup.SplitDSN(dsn.(string))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), writer)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "DROP TABLE relchain.history_versions, relchain.history_blocks, relchain.history_states, relchain.history_roots"); err != nil {
		t.Fatal(err)
	}
}
