package e2e

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// A serial table on a 4-validator PostgreSQL network (issue 33): clients
// insert concurrently through every node, some of their txs fail after
// taking a value, and a client transaction through a node's PostgreSQL
// listener inserts with RETURNING id (rehearsed, then executed in a
// block). Every validator ends with the same rows and AppHash, every id a
// client was told is the id of its row, and as every rolled-back nextval
// (failed txs, rehearsals, speculated blocks) was undone with its
// db-transaction, the ids are exactly 1..N.
//
// On SQLite, INTEGER PRIMARY KEY AUTOINCREMENT (sqlite_sequence is an
// ordinary table of the database, written in the block's transaction) is
// held to the same test.
func TestSerialIds(t *testing.T) {
	onBackends(t, notOn{"mysql": "MySQL's gate refuses AUTO_INCREMENT (InnoDB's counter is not transactional)"}, testSerialIds)
}

// serialTable is the table of testSerialIds in each dialect.
var serialTable = map[string]string{
	"postgres": `CREATE TABLE items (id serial PRIMARY KEY, v text UNIQUE NOT NULL, n int)`,
	"sqlite":   `CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT UNIQUE NOT NULL, n INT)`,
}

func testSerialIds(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	mustPgxExec(t, conn, serialTable[backend])
	// Every node has the table before clients reach them.
	c.consistentRead(ctx, `SELECT count(*) FROM items`)
	if backend == "postgres" {
		var seq string
		if err := conn.QueryRow(ctx, `SELECT pg_get_serial_sequence('items', 'id')`).Scan(&seq); err != nil || seq != "public.items_id_seq" {
			t.Fatalf("pg_get_serial_sequence: %q, %v", seq, err)
		}
	}

	const clients, inserts = 4, 8
	var (
		mu   sync.Mutex
		told = map[string]int64{} // v -> the id its client was told
	)
	var wg sync.WaitGroup
	errs := make(chan error, clients+1)
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			cl := c.client(k%len(c.nodes), newKey(t))
			for j := 0; j < inserts; j++ {
				v := fmt.Sprintf("c%d-%d", k, j)
				stmts := []txn.Statement{stmt(`INSERT INTO items (v, n) VALUES (`+c.ph(1)+`, `+c.ph(2)+`) RETURNING id`, txn.Text(v), txn.Int(int64(j)))}
				failing := j%3 == 1
				if failing {
					// Takes a value, then fails on the duplicate: the tx and
					// its nextval are rolled back.
					stmts = append(stmts, stmt(`INSERT INTO items (v) VALUES (`+c.ph(1)+`)`, txn.Text(v)))
				}
				res, err := cl.Exec(ctx, client.ModeCommit, stmts...)
				switch {
				case err != nil:
					errs <- fmt.Errorf("client %d insert %d: %w", k, j, err)
					return
				case failing && res.OK():
					errs <- fmt.Errorf("client %d insert %d: the duplicate was applied", k, j)
					return
				case failing:
					continue
				case !res.OK():
					errs <- fmt.Errorf("client %d insert %d: %v", k, j, res.Err())
					return
				}
				mu.Lock()
				told[v] = asInt(t, res.Results[0].Rows[0][0])
				mu.Unlock()
			}
		}(k)
	}
	// A client transaction through node 1's listener, retried on 40001 as
	// an application should.
	wg.Add(1)
	go func() {
		defer wg.Done()
		wire, err := pgx.Connect(ctx, c.pgURL(1, "bob"))
		if err != nil {
			errs <- err
			return
		}
		defer wire.Close(context.Background())
		for attempt := 0; ; attempt++ {
			ids, err := wireTransaction(ctx, wire)
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "40001" && ctx.Err() == nil {
				continue
			}
			if err != nil {
				errs <- fmt.Errorf("wire transaction: %w", err)
				return
			}
			mu.Lock()
			told["tx-1"], told["tx-2"] = ids[0], ids[1]
			mu.Unlock()
			t.Logf("wire transaction: ids %v after %d retries on 40001", ids, attempt)
			return
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	const q = `SELECT id, v FROM items ORDER BY id`
	h, rows := c.consistentRead(ctx, q, `SELECT count(*) FROM items`)
	c.requireSameRows(h, q, rows[0])
	got := rows[0][0]
	if len(got) != len(told) {
		t.Fatalf("%d rows, %d inserts acknowledged", len(got), len(told))
	}
	for i, r := range got {
		id, v := asInt(t, r[0]), r[1].(string)
		if id != int64(i+1) {
			t.Fatalf("row %d has id %d: the ids are not 1..%d (%v)", i, id, len(got), abbrev(got))
		}
		if told[v] != id {
			t.Fatalf("row %q has id %d; its client was told %d", v, id, told[v])
		}
	}
	// currval within the same bc-transaction, and the sequence's next value
	// after everything, agree on every node (the AppHash check above covers
	// relchain's sequence table too).
	last := []txn.Statement{stmt(`INSERT INTO items (v) VALUES ('last') RETURNING id`)}
	if backend == "postgres" {
		last = append(last, stmt(`SELECT currval('items_id_seq')`))
	}
	res := c.mustExecEverywhere(ctx, 2, last...)
	if a := asInt(t, res.Results[0].Rows[0][0]); a != int64(len(got)+1) {
		t.Fatalf("last insert got id %d; want %d", a, len(got)+1)
	}
	if backend == "postgres" {
		if b := asInt(t, res.Results[1].Rows[0][0]); b != int64(len(got)+1) {
			t.Fatalf("currval %d after the insert of id %d", b, len(got)+1)
		}
	}
	h, rows = c.consistentRead(ctx, q)
	c.requireSameRows(h, q, rows[0])
}

// wireTransaction inserts two rows in one client transaction and returns
// their ids.
func wireTransaction(ctx context.Context, conn *pgx.Conn) ([2]int64, error) {
	var ids [2]int64
	tx, err := conn.Begin(ctx)
	if err != nil {
		return ids, err
	}
	defer tx.Rollback(context.Background())
	for i := range ids {
		if err := tx.QueryRow(ctx, `INSERT INTO items (v, n) VALUES ($1, $2) RETURNING id`, fmt.Sprintf("tx-%d", i+1), 100+i).Scan(&ids[i]); err != nil {
			return ids, err
		}
	}
	if ids[1] != ids[0]+1 {
		return ids, fmt.Errorf("the transaction's ids are %v, not consecutive", ids)
	}
	return ids, tx.Commit(ctx)
}
