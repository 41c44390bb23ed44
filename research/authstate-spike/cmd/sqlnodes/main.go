// sqlnodes measures what option B costs if its inner nodes are persisted in
// the block's SQLite transaction (ncruces/go-sqlite3, relchain's driver):
// per block, upsert the nodes a Commit rewrote (32-byte hash keyed by the
// node's position), as critbench counts them.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/ncruces/go-sqlite3"

	"spike36/internal/common"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	n := flag.Int("n", 200000, "nodes preloaded")
	writes := flag.Int("writes", 11080, "node upserts per block")
	blocks := flag.Int("blocks", 10, "blocks")
	path := flag.String("db", "/tmp/spike36-nodes.db", "file")
	flag.Parse()
	os.Remove(*path)
	os.Remove(*path + "-wal")
	c, err := sqlite3.Open(*path)
	must(err)
	must(c.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-65536;
CREATE TABLE relchain_merkle (tbl INTEGER, pos BLOB, h BLOB, PRIMARY KEY (tbl, pos)) WITHOUT ROWID`))
	st, _, err := c.Prepare(`INSERT INTO relchain_merkle (tbl, pos, h) VALUES (1, ?, ?) ON CONFLICT (tbl, pos) DO UPDATE SET h = excluded.h`)
	must(err)
	pos := func(i uint64) []byte { // a node's position: its bit path, as 9 bytes
		var b [9]byte
		binary.BigEndian.PutUint64(b[:], i*0x9E3779B97F4A7C15)
		return b[:]
	}
	put := func(i uint64, v int) {
		h := sha256.Sum256(binary.AppendUvarint(pos(i), uint64(v)))
		must(st.BindBlob(1, pos(i)))
		must(st.BindBlob(2, h[:]))
		must(st.Exec())
	}
	must(c.Exec("BEGIN"))
	for i := 0; i < *n; i++ {
		put(uint64(i), 0)
	}
	must(c.Exec("COMMIT"))
	rng := rand.New(rand.NewPCG(5, 6))
	var cpu, wall common.Stats
	for b := 1; b <= *blocks; b++ {
		c0, t0 := common.CPU(), time.Now()
		must(c.Exec("BEGIN"))
		for k := 0; k < *writes; k++ {
			put(rng.Uint64N(uint64(*n)), b)
		}
		must(c.Exec("COMMIT"))
		cpu.Add(float64((common.CPU() - c0).Microseconds()) / float64(*writes))
		wall.Add(float64(time.Since(t0).Microseconds()) / float64(*writes))
	}
	fmt.Printf("sqlite node upserts: %d preloaded, %d per block: CPU µs/upsert %s | wall µs/upsert %s\n", *n, *writes, &cpu, &wall)
}
