// scanrebuild measures B's start-up: scan a SQLite table (relchain's driver
// and pragmas) in primary-key order and rebuild its trie from the rows.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ncruces/go-sqlite3"

	"spike36/critarena"
	"spike36/internal/common"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	n := flag.Int("n", 1000000, "rows")
	path := flag.String("db", "/tmp/spike36-scan.db", "file")
	flag.Parse()
	os.Remove(*path)
	os.Remove(*path + "-wal")
	c, err := sqlite3.Open(*path)
	must(err)
	must(c.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-65536;
CREATE TABLE t (id INTEGER PRIMARY KEY, img BLOB)`))
	st, _, err := c.Prepare(`INSERT INTO t VALUES (?, ?)`)
	must(err)
	must(c.Exec("BEGIN"))
	for i := 0; i < *n; i++ {
		must(st.BindInt64(1, int64(i)))
		must(st.BindBlob(2, common.Value(uint64(i), 0)))
		must(st.Exec())
	}
	must(c.Exec("COMMIT"))
	must(st.Close())
	must(c.Close())
	c, err = sqlite3.Open(*path) // a fresh connection, as at start
	must(err)
	must(c.Exec(`PRAGMA cache_size=-65536`))

	c0, t0 := common.CPU(), time.Now()
	q, _, err := c.Prepare(`SELECT id, img FROM t ORDER BY id`)
	must(err)
	rows := 0
	for q.Step() {
		rows++
	}
	must(q.Err())
	must(q.Close())
	scanCPU, scanWall := common.CPU()-c0, time.Since(t0)

	c0, t0 = common.CPU(), time.Now()
	tr := critarena.New(*n)
	q, _, err = c.Prepare(`SELECT id, img FROM t ORDER BY id`)
	must(err)
	for q.Step() {
		tr.Set(common.Key(uint64(q.ColumnInt64(0))), sha256.Sum256(q.ColumnRawBlob(1)))
	}
	must(q.Err())
	root := tr.Commit()
	fmt.Printf("sqlite scan of %d rows alone: wall %.2fs cpu %.2fs | scan + trie rebuild: wall %.2fs cpu %.2fs (%.1f µs CPU/row), root %x\n",
		rows, scanWall.Seconds(), scanCPU.Seconds(), time.Since(t0).Seconds(), (common.CPU() - c0).Seconds(),
		float64((common.CPU()-c0).Microseconds())/float64(*n), root[:8])
}
