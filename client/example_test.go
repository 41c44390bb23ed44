package client_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// These examples need a running node (`relchain localnet`); go test
// compiles them but does not run them.

func ExampleClient_Exec() {
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := client.New("http://127.0.0.1:26657", key)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	// Commit mode: broadcast_tx_sync, then wait for the tx's block.
	res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: "INSERT INTO kv (k, v) VALUES ($1, $2)", Args: []txn.Arg{txn.Int(1), txn.Text("one")}})
	if err != nil {
		log.Fatal(err)
	}
	if err := res.Err(); err != nil {
		log.Fatal(err)
	}
	// Read your write: the node answers once it has committed res.Height.
	rows, err := c.Query(ctx, res.Height, "SELECT v FROM kv WHERE k = $1", 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Height, rows.Rows)
}

func ExampleClient_ExecBatch() {
	_, key, _ := ed25519.GenerateKey(nil)
	c, _ := client.New("http://127.0.0.1:26657", key)
	transfer := func(from, to, amount int64) []txn.Statement {
		return []txn.Statement{
			{SQL: "UPDATE acct SET bal = bal - $1 WHERE id = $2", Args: []txn.Arg{txn.Int(amount), txn.Int(from)}},
			{SQL: "UPDATE acct SET bal = bal + $1 WHERE id = $2", Args: []txn.Arg{txn.Int(amount), txn.Int(to)}},
		}
	}
	// Pseudo-sync: three wl-transactions in one bc-transaction.
	b, err := c.ExecBatch(context.Background(), [][]txn.Statement{transfer(1, 2, 10), transfer(2, 3, 5), transfer(3, 1, 1)})
	if err != nil {
		log.Fatal(err)
	}
	for i := range b.WL {
		fmt.Printf("wl-transaction %d: %v\n", i+1, b.WLErr(i))
	}
}

func ExampleClient_Stream() {
	_, key, _ := ed25519.GenerateKey(nil)
	c, _ := client.New("http://127.0.0.1:26657", key)
	ctx := context.Background()
	s, err := c.Stream(ctx, client.OnBlock(func(b client.BlockInfo) {
		fmt.Printf("block %d: %d txs, %d mine\n", b.Height, b.Txs, b.Mine)
	}))
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan struct{})
	go func() { // the RPC-listener's side
		defer close(done)
		for o := range s.Results() {
			switch {
			case o.Err != nil:
				fmt.Println(o.Tag, "not committed:", o.Err)
			case !o.OK():
				fmt.Println(o.Tag, "failed at height", o.Height, o.Result.Err())
			default:
				fmt.Println(o.Tag, "committed at height", o.Height, "after", o.Latency())
			}
		}
	}()
	for i := range 1000 { // the RPC-sender's side
		st := txn.Statement{SQL: "INSERT INTO kv (k, v) VALUES ($1, 'x')", Args: []txn.Arg{txn.Int(int64(i))}}
		if err := s.Submit(ctx, i, st); err != nil {
			log.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil { // every tx has its outcome
		log.Fatal(err)
	}
	_ = s.Close()
	<-done
}

func ExampleQueryAll() {
	var nodes []*client.Client
	for _, u := range []string{"http://127.0.0.1:26657", "http://127.0.0.1:26667", "http://127.0.0.1:26677", "http://127.0.0.1:26687"} {
		c, _ := client.New(u, nil)
		nodes = append(nodes, c)
	}
	r, err := client.QueryAll(context.Background(), nodes, 0, "SELECT count(*) FROM kv")
	var mismatch *client.MismatchError
	switch {
	case errors.As(err, &mismatch):
		fmt.Println("faulty nodes:", mismatch.Disagreeing)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println("all nodes agree at height", r.Height, r.Rows)
	}
}
