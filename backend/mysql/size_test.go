package mysql_test

import (
	"context"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
)

// SizeBytes (metrics) reads the database's size through the reader account.
func TestSizeBytes(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t))
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := b.SizeBytes(ctx)
	if err != nil || n <= 0 {
		t.Fatalf("SizeBytes = %d, %v; want a positive size", n, err)
	}
}
