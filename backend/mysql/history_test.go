package mysql_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
)

func TestHistoryConformance(t *testing.T) {
	backendtest.RunHistory(t, opener(), spelling, backendtest.HistoryOptions{
		Tables:      []string{"relchain_history_blocks", "relchain_history_versions", "relchain_history_states", "relchain_history_roots"},
		Restore:     restoreForTest,
		DropHistory: dropHistoryForTest,
		Dump: func(t *testing.T, _ backend.Backend) []byte {
			dsn, _ := dsns.Load(t)
			var buf bytes.Buffer
			if _, err := mysql.Dump(context.Background(), dsn.(string), &buf); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		},
	})
}

func BenchmarkAppendHistory(b *testing.B) {
	backendtest.BenchmarkAppendHistory(b, func(b *testing.B) backend.Backend { return mustOpen(b, mysqltest.DSN(b)) })
}

// dropHistoryForTest drops the history tables of t's database.
func dropHistoryForTest(t *testing.T) {
	dsn, _ := dsns.Load(t)
	if err := mysqltest.RunOn(context.Background(), dsn.(string), "DROP TABLE relchain_history_versions, relchain_history_blocks, relchain_history_states, relchain_history_roots"); err != nil {
		t.Fatal(err)
	}
}
