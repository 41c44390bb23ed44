package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

const victim = 3 // the validator that is killed

// killedValidatorClients are the nodes each client of the load talks to,
// per backend: on SQLite none talks to the killed node (its clients'
// failures are TestKilledValidatorCatchesUpWhileItsClientsFail), on the
// servers one does.
var killedValidatorClients = map[string][]int{
	"sqlite":   {0, 1, 2, 0, 1, 2},
	"postgres": {0, 1, 2, 0, 1, victim},
	"mysql":    {0, 1, 2, 0, 1, victim},
}

func TestKilledValidatorCatchesUp(t *testing.T) {
	covered := notOn{"sqlite": "TestKilledValidatorCatchesUpWhileItsClientsFail kills and catches up a SQLite validator"}
	onBackendsSampledBut(t, covered, func(t *testing.T, backend string) {
		testKilledValidatorCatchesUp(t, backend, killedValidatorClients[backend])
	})
}

// The killed node is also the one half the clients talk to: their writes
// fail while it is down, and only acknowledged writes are checked. On
// SQLite only: what is tested is the clients' side, not the database's.
func TestKilledValidatorCatchesUpWhileItsClientsFail(t *testing.T) {
	testKilledValidatorCatchesUp(t, "sqlite", []int{0, 1, 2, victim, victim, victim})
}

// testKilledValidatorCatchesUp runs a continuous two-statement write load
// through clientNodes, SIGKILLs the victim in the middle of it, restarts
// it, and checks that it catches up and that every acknowledged write is
// applied exactly once, identically, on every node.
func testKilledValidatorCatchesUp(t *testing.T, backend string, clientNodes []int) {
	const phase = 100 // acknowledged writes per phase of the load
	c := mustStartCluster(t, clusterOptions{backend: backend, consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	// No primary key on log: a write applied twice would show as a
	// duplicate row instead of failing.
	c.mustExec(ctx, 0, stmt("CREATE TABLE log (writer INTEGER NOT NULL, seq INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO counter (id, n) VALUES (1, 0)"))

	l := startLoad(t, c, clientNodes)
	must := func(err error) {
		t.Helper()
		if err != nil {
			l.stopAndWait()
			t.Fatalf("%v (load: %s)", err, l.summary())
		}
	}
	must(l.waitAcked(ctx, phase))

	if err := c.net.Kill(victim); err != nil {
		t.Fatalf("kill %s: %v", c.nodes[victim].Name, err)
	}
	if c.net.Running(victim) {
		t.Fatalf("%s still runs after SIGKILL", c.nodes[victim].Name)
	}
	killedAt := c.maxHeight(ctx, 0, 1, 2)
	t.Logf("killed %s at height %d (load: %s)", c.nodes[victim].Name, killedAt, l.summary())
	must(l.waitAcked(ctx, l.ackedCount()+phase))
	if slices.Contains(clientNodes, victim) {
		// Its clients' writes fail while it is down.
		must(waitFor(ctx, "a write through the killed node to fail", func() bool { return l.errorsVia(victim) > 0 }))
	}

	if err := c.net.Start(victim); err != nil {
		t.Fatalf("restart %s: %v", c.nodes[victim].Name, err)
	}
	target := c.maxHeight(ctx, 0, 1, 2)
	t.Logf("restarted %s; the others are at height %d (load: %s)", c.nodes[victim].Name, target, l.summary())
	must(c.net.WaitHeight(ctx, victim, target))
	t.Logf("%s reached height %d while the load ran", c.nodes[victim].Name, target)
	must(l.waitAcked(ctx, l.ackedCount()+phase))
	l.stopAndWait()
	t.Logf("load stopped: %s", l.summary())

	if len(l.unexpected) > 0 {
		t.Fatalf("valid writes failed with a result code: %v", l.unexpected[:min(5, len(l.unexpected))])
	}
	for i, n := range l.errsByNode {
		if n > 0 && i != victim {
			// Not an invariant (a commit may time out on a busy machine),
			// but worth seeing.
			t.Logf("%d writes through %s (never killed) returned an error", n, c.nodes[i].Name)
		}
	}

	requireLoadApplied(ctx, t, c, l)
}

// requireLoadApplied checks, once every node settled on one height, that
// every node holds the same rows, every acknowledged write of l once, no
// write never submitted, and a counter equal to the log's rows.
func requireLoadApplied(ctx context.Context, t *testing.T, c *cluster, l *load) {
	t.Helper()
	const (
		qRows    = "SELECT writer, seq, count(*) FROM log GROUP BY writer, seq ORDER BY writer, seq"
		qCounter = "SELECT (SELECT n FROM counter WHERE id = 1), (SELECT count(*) FROM log)"
	)
	h, res := c.consistentRead(ctx, qRows, qCounter)
	c.requireSameRows(h, qRows, res[0])
	c.requireSameRows(h, qCounter, res[1])
	for i := range c.nodes {
		name := c.nodes[i].Name
		present := make(map[[2]int64]bool)
		for _, r := range res[0][i] {
			key := [2]int64{asInt(t, r[0]), asInt(t, r[1])}
			if n := asInt(t, r[2]); n != 1 {
				t.Errorf("%s at height %d: (writer %d, seq %d) appears %d times", name, h, key[0], key[1], n)
			}
			if w := key[0]; w < 0 || int(w) >= len(l.lastSeq) || key[1] < 1 || key[1] > l.lastSeq[w] {
				t.Errorf("%s at height %d: (writer %d, seq %d) was never submitted", name, h, key[0], key[1])
			}
			present[key] = true
		}
		missing := 0
		for key := range l.acked {
			if !present[key] {
				if missing < 5 {
					t.Errorf("%s at height %d: acknowledged write (writer %d, seq %d) is missing", name, h, key[0], key[1])
				}
				missing++
			}
		}
		if missing > 0 {
			t.Errorf("%s: %d of %d acknowledged writes are missing", name, missing, len(l.acked))
		}
		row := res[1][i][0]
		if n, count := asInt(t, row[0]), asInt(t, row[1]); n != count {
			t.Errorf("%s at height %d: counter n = %d but log has %d rows", name, h, n, count)
		}
	}
	t.Logf("all %d nodes agree at height %d: %d acknowledged writes, %d rows", len(c.nodes), h, len(l.acked), len(res[0][0]))
}

// load is a set of clients writing continuously in commit mode. Each write
// is one bc-transaction of two statements: a log row (writer, seq) and an
// increment of the counter. Every attempt uses a fresh seq.
type load struct {
	t    *testing.T
	c    *cluster
	stop chan struct{}
	wg   sync.WaitGroup

	mu         sync.Mutex
	acked      map[[2]int64]bool // (writer, seq) acknowledged with code 0
	lastSeq    []int64           // highest seq each writer submitted
	unexpected []string          // valid writes that got a non-zero code
	errsByNode []int             // RPC errors (node down, timeouts) by node
	lastErr    string
}

func startLoad(t *testing.T, c *cluster, clientNodes []int) *load {
	l := &load{
		t: t, c: c, stop: make(chan struct{}),
		acked:      make(map[[2]int64]bool),
		lastSeq:    make([]int64, len(clientNodes)),
		errsByNode: make([]int, len(c.nodes)),
	}
	insert := fmt.Sprintf("INSERT INTO log (writer, seq) VALUES (%s, %s)", c.ph(1), c.ph(2))
	const update = "UPDATE counter SET n = n + 1 WHERE id = 1"
	for w, node := range clientNodes {
		cl := c.client(node, newKey(t))
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for seq := int64(1); ; seq++ {
				select {
				case <-l.stop:
					return
				default:
				}
				l.mu.Lock()
				l.lastSeq[w] = seq
				l.mu.Unlock()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				res, err := cl.Exec(ctx, client.ModeCommit,
					stmt(insert, txn.Int(int64(w)), txn.Int(seq)), stmt(update))
				cancel()
				l.mu.Lock()
				switch {
				case err != nil:
					l.errsByNode[node]++
					l.lastErr = err.Error()
				case !res.OK():
					l.unexpected = append(l.unexpected, fmt.Sprintf("writer %d seq %d via %s: %v", w, seq, c.nodes[node].Name, res.Err()))
				default:
					l.acked[[2]int64{int64(w), seq}] = true
				}
				l.mu.Unlock()
				if err != nil {
					// The node is probably down: back off a little.
					select {
					case <-l.stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
				}
			}
		}()
	}
	return l
}

func (l *load) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// errorsVia is how many writes through node have failed with an error.
func (l *load) errorsVia(node int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errsByNode[node]
}

func (l *load) waitAcked(ctx context.Context, n int) error {
	return waitFor(ctx, fmt.Sprintf("%d acknowledged writes", n), func() bool { return l.ackedCount() >= n })
}

func (l *load) stopAndWait() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
}

func (l *load) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := fmt.Sprintf("%d acknowledged, %d failed with a code, RPC errors by node %v", len(l.acked), len(l.unexpected), l.errsByNode)
	if l.lastErr != "" {
		s += "; last RPC error: " + l.lastErr
	}
	return s
}
