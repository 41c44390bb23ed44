package e2e

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/lib/pq"
)

// lib/pq through database/sql: the standard library's interface, as most
// Go programs and tools use PostgreSQL; prepared statements reused, a
// transaction (sql.Tx), and errors with their SQLSTATE.
func TestGatewayLibPQ(t *testing.T) {
	onBackends(t, notOn{"mysql": gatewayNotOnMySQL}, testGatewayLibPQ)
}

func testGatewayLibPQ(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, err := sql.Open("postgres", c.pgURL(2, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(4)
	if _, err := db.ExecContext(ctx, `CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, sold BOOLEAN)`); err != nil {
		t.Fatal(err)
	}
	ins, err := db.PrepareContext(ctx, `INSERT INTO item (id, name, price, sold) VALUES ($1, $2, $3, $4)`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		res, err := ins.ExecContext(ctx, i, "item-"+string(rune('a'+i)), float64(i)*1.25, i%2 == 0)
		if err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			t.Fatalf("insert %d: %d rows affected (%v)", i, n, err)
		}
	}
	ins.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var price float64
	if err := tx.QueryRowContext(ctx, `SELECT price FROM item WHERE id = $1`, 3).Scan(&price); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE item SET price = $1, sold = $2 WHERE id = $3`, price*2, true, 3); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
	var sold int
	var total float64
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), SUM(price) FROM item WHERE sold`).Scan(&sold, &total); err != nil {
		t.Fatal(err)
	}
	if sold != 3 || total != 2.5+7.5+5 {
		t.Fatalf("sold %d for %v, want 3 for 15", sold, total)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO item (id, name) VALUES ($1, $2)`, 1, "dup")
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Code.Class() != "23" {
		t.Fatalf("duplicate key: %v, want SQLSTATE class 23", err)
	}
	h, rows := c.consistentRead(ctx, "SELECT id, name, price FROM item ORDER BY id")
	c.requireSameRows(h, "item", rows[0])
}
