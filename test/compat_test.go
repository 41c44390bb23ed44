package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// The compatibility suite (issue 33): the clients people use with
// PostgreSQL, unmodified and as their users run them, against one
// 4-validator PostgreSQL network, through node 1's in-node listener and
// through a standalone gateway (SCRAM) in front of nodes 2 and 3. Each
// client is a subtest; each of its steps is a row of the results, pass or
// fail with the client's own error, so that a failure says which feature
// is missing rather than stopping at the first. Scripts live under
// test/compat (python, js, java, go); they print one JSON line per step
// ({"step", "ok", "error"}) and name the queries every validator must
// agree on ({"check": sql}). After each client the suite waits until the
// validators are at one height with one AppHash and reads those queries
// on every node at that height.
//
// RELCHAIN_COMPAT_RESULTS=FILE writes the rows as JSON; RELCHAIN_COMPAT_TABLE=FILE
// writes the README's compatibility table (markdown) from them: `make
// compat` regenerates test/compat/COMPATIBILITY.md.
func TestCompat(t *testing.T) {
	runCompat(t, compatPostgres)
}

// TestCompatSQLite is the same suite, the same client code, on a
// 4-validator SQLite network in the postgres dialect (issue 35): the
// in-node listener only (the gateway's part is the backend's), and with
// the steps that do not work there yet listed in
// test/compat/not-yet-sqlite.txt, each with why. A listed step that fails
// is reported, not failed; a listed step that works fails the test until
// it is taken off the list, and an unlisted step that fails fails it.
func TestCompatSQLite(t *testing.T) {
	runCompat(t, compatSQLite)
}

// compatNetwork is a network the suite runs on.
type compatNetwork struct {
	name, backend, dialect string
	// slug names its generated files (COMPATIBILITY-<slug>.md); "" for the
	// PostgreSQL network's, COMPATIBILITY.md.
	slug string
	// ways are the ways in it is reached by: the listener, the gateway.
	ways []string
}

var (
	compatPostgres = compatNetwork{name: "PostgreSQL", backend: "postgres", ways: both}
	compatSQLite   = compatNetwork{name: "SQLite, postgres dialect", backend: "sqlite", dialect: "postgres", slug: "sqlite",
		ways: []string{compatListener}}
)

func runCompat(t *testing.T, nw compatNetwork) {
	runBesideOtherNetworks(t)
	compatTools(t)
	modules := jsModules(t)
	notYet := compatNotYet(t, nw)
	// registered before the network's cleanups, so it runs after its log dump
	var s *compatSuite
	t.Cleanup(func() {
		if s != nil {
			s.recapFailures(t)
		}
	})
	c := mustStartCluster(t, clusterOptions{backend: nw.backend, dialect: nw.dialect, pg: true})
	via := map[string]endpoint{compatListener: {c.pgAddr(1), "alice"}}
	if slices.Contains(nw.ways, compatGateway) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		gw, err := gateway.Start(ctx, gateway.Config{Classifier: pgclass.Classifier{}, Listen: "127.0.0.1:0", Nodes: []string{c.nodes[2].RPC, c.nodes[3].RPC},
			UsersFile: node.PGConfig{}.UsersFile(c.nodes[0].Home)})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { gw.Close() })
		// The gateway and the listener speak for the same user, alice:
		// her key signs in two processes (the node's listener and this
		// gateway), whose signers keep numbering above what the other
		// executed (issue 33, item 8).
		via[compatGateway] = endpoint{gw.Addr().String(), "alice"}
	}
	s = &compatSuite{c: c, nw: nw, modules: modules, via: via, notYet: notYet}
	t.Cleanup(func() { s.write(t) })
	start := time.Now()
	for _, cl := range compatClients {
		for _, way := range cl.via {
			if _, ok := via[way]; !ok {
				continue
			}
			t.Run(cl.name+"/"+way, func(t *testing.T) {
				began := time.Now()
				s.run(t, cl, way)
				t.Logf("%s through the %s: %s", cl.name, way, time.Since(began).Round(time.Millisecond))
			})
		}
	}
	for k, why := range notYet {
		if !s.seen[k] {
			t.Errorf("test/compat/%s lists %q (%s), which no client ran: take it off the list", nw.notYetFile(), k, why)
		}
	}
	t.Logf("the compatibility suite on the %s network took %s", nw.name, time.Since(start).Round(time.Second))
}

// notYetFile names nw's list of the steps that do not work yet, under
// test/compat.
func (nw compatNetwork) notYetFile() string {
	if nw.slug == "" {
		return "not-yet-postgres.txt"
	}
	return "not-yet-" + nw.slug + ".txt"
}

// compatNotYet reads the steps listed as not working yet on nw
// (test/compat/not-yet-<slug>.txt, not-yet-postgres.txt for the PostgreSQL
// network: "client | step | why" lines, # comments), keyed "client | step".
func compatNotYet(t *testing.T, nw compatNetwork) map[string]string {
	t.Helper()
	out := map[string]string{}
	b, err := os.ReadFile(compatDir(t, nw.notYetFile()))
	if err != nil {
		t.Fatalf("read the steps that do not work yet: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " | ", 3)
		if len(f) != 3 {
			t.Fatalf("%s: %q is not \"client | step | why\"", nw.notYetFile(), line)
		}
		out[f[0]+" | "+f[1]] = f[2]
	}
	return out
}

const (
	compatListener = "in-node listener"
	compatGateway  = "gateway (SCRAM)"
)

// compatClient is one client of the suite: how to run it (run returns its
// output's lines) and through what.
type compatClient struct {
	name string
	via  []string
	run  func(t *testing.T, s *compatSuite, ep endpoint, prefix string) ([]compatLine, error)
	// how is how its users point it at relchain (the table's "how").
	how string
}

// endpoint is a way in: a PostgreSQL listener's address and its user.
type endpoint struct{ addr, user string }

func (e endpoint) url() string { return pgURLAt(e.addr, e.user) }

// compatLine is one line a client printed: a step's result or a query to
// check on every validator.
type compatLine struct {
	Step  string `json:"step"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	Check string `json:"check"`
	// Trace is where a failed step's error was raised (the Python
	// clients' innermost frames), for the recap only.
	Trace string `json:"trace"`
	// Context is the client's state at a failed step (its transaction
	// state, its last statements), when the client says: recap only.
	Context string `json:"context"`
}

// compatRow is one row of the results.
type compatRow struct {
	Client string `json:"client"`
	Via    string `json:"via"`
	Step   string `json:"step"`
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
	// trace is where a failed step's error was raised, when the client
	// says (compatLine.Trace), and the client's state then
	// (compatLine.Context): recapped, not written to the results.
	trace, context string
}

type compatSuite struct {
	c       *cluster
	nw      compatNetwork
	modules string
	via     map[string]endpoint
	// notYet are the steps known not to work yet on this network, with
	// why (compatNotYet); seen the ones a client ran.
	notYet map[string]string
	seen   map[string]bool
	mu     sync.Mutex
	rows   []compatRow
	// failed are the failures reported so far, recapped after the
	// network's logs (recapFailures).
	failed []string
}

// recapFailures repeats s's failures once more: a failed test's network
// prints every node's log after them, which buries the messages that say
// what went wrong (a CI excerpt shows only the end of the output). The
// newest comes first and the first failure last, at the very end: later
// failures are often its consequences.
func (s *compatSuite) recapFailures(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.failed) - 1; i >= 0; i-- {
		t.Logf("recap, above the nodes' logs (failure %d of %d): %s", i+1, len(s.failed), s.failed[i])
	}
}

var both = []string{compatListener, compatGateway}

var compatClients = []compatClient{
	{"psql 15", both, runPsqlCompat, "`psql \"host=H port=P user=U dbname=relchain\"`"},
	{"pgcli 3.5", []string{compatListener}, pythonClient("pgcli_client.py"), "`pgcli -h H -p P -U U relchain`"},
	{"psycopg2", both, pythonClient("psycopg2_client.py"), "`psycopg2.connect(\"postgresql://U:PW@H:P/relchain\")`"},
	{"psycopg 3", []string{compatListener}, pythonClient("psycopg3_client.py"), "`psycopg.connect(\"postgresql://U:PW@H:P/relchain\")`"},
	{"SQLAlchemy 1.4 ORM", []string{compatListener}, pythonClient("sqlalchemy_client.py"), "`create_engine(\"postgresql+psycopg2://U:PW@H:P/relchain\")`"},
	{"Alembic 1.8", []string{compatListener}, pythonClient("alembic_client.py", "scratch"), "`sqlalchemy.url` in alembic.ini as for SQLAlchemy; `include_name` in env.py where the database is shared"},
	{"Django 3.2", []string{compatListener}, pythonClient("django_client.py", "scratch-only"), "`ENGINE: django.db.backends.postgresql`, `HOST`/`PORT` of the listener, `NAME: relchain`"},
	{"pgjdbc 42.5", []string{compatListener}, runJDBCCompat, "`jdbc:postgresql://H:P/relchain` (DBeaver: a PostgreSQL connection)"},
	{"node-postgres 8", both, nodeClient("pg_client.js", true), "`new Pool({ connectionString: 'postgres://U:PW@H:P/relchain' })`"},
	{"knex 3 (stock)", []string{compatListener}, nodeClient("knex_client.js", false), "`knex({ client: 'pg', connection: 'postgres://U:PW@H:P/relchain' })`"},
	{"Sequelize 6", []string{compatListener}, nodeClient("sequelize_client.js", false), "`new Sequelize('postgres://U:PW@H:P/relchain')`"},
	{"pgx v5", both, goClient("pgx"), "`pgxpool.New(ctx, \"postgres://U:PW@H:P/relchain\")`"},
	{"GORM 1.31", []string{compatListener}, goClient("gorm"), "`gorm.Open(postgres.Open(\"postgres://U:PW@H:P/relchain\"))`"},
	{"pgbench 15", []string{compatListener}, runPgbenchCompat, "`PGOPTIONS='-c relchain.copy_split_transaction=on' pgbench -i -h H -p P -U U relchain` (without the setting the COPY is refused with a hint naming it); runs with `--max-tries` (40001 is retried)"},
}

// run runs one client through via, records its steps, and checks that the
// validators agree on the state it left.
func (s *compatSuite) run(t *testing.T, cl compatClient, via string) {
	prefix := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(strings.Fields(cl.name)[0]))
	if via == compatGateway {
		prefix += "gw"
	}
	lines, runErr := cl.run(t, s, s.via[via], prefix)
	var checks []string
	steps := 0
	for _, l := range lines {
		if l.Check != "" {
			checks = append(checks, l.Check)
			continue
		}
		steps++
		s.record(t, compatRow{Client: cl.name, Via: via, Step: l.Step, OK: l.OK, Error: l.Error, trace: l.Trace, context: l.Context})
	}
	if runErr != nil || steps == 0 {
		msg := "printed no step"
		if runErr != nil {
			msg = runErr.Error()
		}
		s.record(t, compatRow{Client: cl.name, Via: via, Step: "runs to its end", Error: msg})
	}
	row := compatRow{Client: cl.name, Via: via, Step: "every validator ends with the same state", OK: true}
	if err := s.sameState(t, checks); err != nil {
		row.OK, row.Error = false, err.Error()
	}
	s.record(t, row)
}

func (s *compatSuite) record(t *testing.T, r compatRow) {
	t.Helper()
	key := r.Client + " | " + r.Step
	s.mu.Lock()
	s.rows = append(s.rows, r)
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[key] = true
	why, listed := s.notYet[key]
	s.mu.Unlock()
	switch {
	case r.OK && listed:
		t.Errorf("ok   %s, listed in test/compat/%s (%s): take it off the list", r.Step, s.nw.notYetFile(), why)
	case r.OK:
		t.Logf("ok   %s", r.Step)
	case listed:
		t.Logf("not yet %s: %s (listed: %s)", r.Step, r.Error, why)
	default:
		t.Errorf("FAIL %s: %s", r.Step, r.Error)
		s.mu.Lock()
		f := fmt.Sprintf("FAIL %s | %s | %s: %s", r.Client, r.Via, r.Step, r.Error)
		if r.trace != "" {
			f += "\n    raised at: " + r.trace
		}
		if r.context != "" {
			f += "\n    client state: " + r.context
		}
		s.failed = append(s.failed, f)
		s.mu.Unlock()
	}
}

// sameState waits until every validator has committed one height with one
// AppHash and reads each query on every node at that height: the rows
// must be identical. A query that fails alike on every node (a table an
// earlier failed step never made) has nothing to compare; one that fails
// on some nodes only is a divergence.
func (s *compatSuite) sameState(t *testing.T, queries []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := *s.c
	c.t = t
	for {
		h, err := c.settle(ctx) // fails the test if AppHashes differ at one height
		if err == nil {
			moved, derr := s.compareAt(ctx, &c, h, queries)
			if derr != nil || !moved {
				return derr
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the validators did not settle on one height: %v (%v)", ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (s *compatSuite) compareAt(ctx context.Context, c *cluster, h int64, queries []string) (moved bool, err error) {
	for _, q := range queries {
		var rows []any
		var errs []string
		for i := range c.nodes {
			res, err := c.client(i, nil).Query(ctx, h, q)
			if err != nil {
				errs = append(errs, err.Error())
				rows = append(rows, nil)
				continue
			}
			if res.Height != h {
				return true, nil
			}
			errs = append(errs, "")
			rows = append(rows, res.Rows)
		}
		for i := 1; i < len(rows); i++ {
			if errs[i] != errs[0] || !reflect.DeepEqual(rows[i], rows[0]) {
				return false, fmt.Errorf("at height %d %s and %s disagree on %q: %s%s / %s%s", h, c.nodes[0].Name, c.nodes[i].Name,
					q, errs[0], abbrev(asRows(rows[0])), errs[i], abbrev(asRows(rows[i])))
			}
		}
	}
	return false, nil
}

func asRows(v any) [][]any {
	r, _ := v.([][]any)
	return r
}

// write saves the rows (RELCHAIN_COMPAT_RESULTS) and the table
// (RELCHAIN_COMPAT_TABLE).
func (s *compatSuite) write(t *testing.T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := compatFile(os.Getenv("RELCHAIN_COMPAT_RESULTS"), s.nw.slug); f != "" {
		b, _ := json.MarshalIndent(s.rows, "", "  ")
		if err := os.WriteFile(f, append(b, '\n'), 0o644); err != nil {
			t.Errorf("write the results: %v", err)
		}
	}
	if f := compatFile(os.Getenv("RELCHAIN_COMPAT_TABLE"), s.nw.slug); f != "" {
		if err := os.WriteFile(f, []byte(compatMarkdown(s.nw, s.rows)), 0o644); err != nil {
			t.Errorf("write the compatibility table: %v", err)
		}
	}
}

// compatFile is the file of a network's results: path for the PostgreSQL
// network's, path with -slug before its extension for another's.
func compatFile(path, slug string) string {
	if path == "" || slug == "" {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + slug + ext
}

// compatMarkdown is the compatibility table: one row per client with its
// verdict through each way in, then every step of every client.
func compatMarkdown(nw compatNetwork, rows []compatRow) string {
	var clients []string
	seen := map[string]bool{}
	type key struct{ client, via string }
	total, failed := map[key]int{}, map[key][]string{}
	for _, r := range rows {
		if !seen[r.Client] {
			seen[r.Client] = true
			clients = append(clients, r.Client)
		}
		k := key{r.Client, r.Via}
		total[k]++
		if !r.OK {
			failed[k] = append(failed[k], r.Step)
		}
	}
	var b strings.Builder
	b.WriteString("<!-- Generated by `make compat` (test/compat_test.go) from the compatibility suite's results; do not edit. -->\n")
	if nw.slug == "" {
		b.WriteString("# Client compatibility\n\n")
		b.WriteString("Each client below runs unmodified, as its users run it (its own migrations, its own catalog queries), ")
		b.WriteString("against a 4-validator network on the PostgreSQL backend: through a node's in-node listener (`relchain node --pg-listen`) ")
		b.WriteString("and through the standalone gateway (`relchain gateway`, SCRAM-SHA-256). The scripts are under test/compat; ")
		b.WriteString("after each client every validator is checked to hold the same state. ")
		b.WriteString("COMPATIBILITY-sqlite.md is the same suite on a SQLite network in the postgres dialect. ")
		b.WriteString("What does not work yet is listed, with why, in test/compat/not-yet-postgres.txt.\n\n")
	} else {
		fmt.Fprintf(&b, "# Client compatibility: %s\n\n", nw.name)
		b.WriteString("The compatibility suite of COMPATIBILITY.md, the same client code, against a 4-validator network on ")
		fmt.Fprintf(&b, "%s (genesis `sql_dialect: %s`, docs/dialects.md), through a node's in-node listener. ", nw.backend, nw.dialect)
		fmt.Fprintf(&b, "What does not work yet is listed, with why, in test/compat/%s.\n\n", nw.notYetFile())
	}
	b.WriteString("A `40001` (serialization failure) means another transaction changed what this one read; retrying the transaction is right, ")
	b.WriteString("as with PostgreSQL's SERIALIZABLE isolation. Every client's \"40001 conflict, retried\" step does that.\n\n")
	b.WriteString("H and P are a listener's host and port (a node's `--pg-listen`, or `relchain gateway --listen`), U and PW a user ")
	b.WriteString("of its users file.\n\n")
	b.WriteString("| client | how | " + compatListener + " | " + compatGateway + " |\n|---|---|---|---|\n")
	how := map[string]string{}
	for _, cl := range compatClients {
		how[cl.name] = cl.how
	}
	verdict := func(k key) string {
		if total[k] == 0 {
			return "—"
		}
		if len(failed[k]) == 0 {
			return fmt.Sprintf("works (%d steps)", total[k])
		}
		return fmt.Sprintf("not yet: %d of %d steps fail (%s)", len(failed[k]), total[k], strings.Join(failed[k], "; "))
	}
	for _, cl := range clients {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cl, mdCell(how[cl]), mdCell(verdict(key{cl, compatListener})), mdCell(verdict(key{cl, compatGateway})))
	}
	b.WriteString("\n## Steps\n")
	for _, cl := range clients {
		fmt.Fprintf(&b, "\n### %s\n\n| step | way in | result |\n|---|---|---|\n", cl)
		for _, r := range rows {
			if r.Client != cl {
				continue
			}
			res := "works"
			if !r.OK {
				res = "fails: " + r.Error
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(r.Step), r.Via, mdCell(res))
		}
	}
	return b.String()
}

// runVarying matches the parts of an error that differ from run to run
// (block heights, hashes, ports, addresses, nonces, the test's database
// names), so that a regenerated table changes only where a result does.
var runVarying = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`in block \d+, tx [0-9A-Fa-f]+`), "in block H, tx HASH"},
	{regexp.MustCompile(`\b(block|height) \d+`), "$1 H"},
	{regexp.MustCompile(`port=\d+`), "port=P"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:P"},
	{regexp.MustCompile(`0x[0-9a-f]+`), "0x…"},
	{regexp.MustCompile(`nonce \d+`), "nonce N"},
	{regexp.MustCompile(`relchain_e2e_[0-9a-f]+_`), "relchain_e2e_…_"},
}

func mdCell(s string) string {
	for _, v := range runVarying {
		s = v.re.ReplaceAllString(s, v.with)
	}
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// compatTools fails the test unless every client the suite runs is
// installed, naming what installs it (scripts/deps.sh).
func compatTools(t *testing.T) {
	t.Helper()
	var missing []string
	for tool, how := range map[string]string{
		"psql": "postgresql-client", "pgbench": "postgresql-client", "pgcli": "pgcli",
		"/usr/bin/python3": "python3", "javac": "openjdk-17-jdk-headless", "java": "openjdk-17-jdk-headless",
		"node": "nodejs", "go": "Go",
	} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, fmt.Sprintf("%s (%s)", tool, how))
		}
	}
	if _, err := os.Stat(jdbcJar); err != nil {
		missing = append(missing, jdbcJar+" (libpostgresql-jdbc-java)")
	}
	cmd := exec.Command("/usr/bin/python3", "-c", "import psycopg2, psycopg, sqlalchemy, alembic, django, pgcli")
	if out, err := cmd.CombinedOutput(); err != nil {
		missing = append(missing, "python modules: "+strings.TrimSpace(lastLine(string(out))))
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Fatalf("the compatibility suite's clients are not installed (scripts/deps.sh ensure_compat_clients installs them): %s",
			strings.Join(missing, ", "))
	}
}

const jdbcJar = "/usr/share/java/postgresql.jar"

// runScript runs a client's command and parses the lines it printed; a
// non-zero exit is an error naming the last line of its standard error.
func runScript(t *testing.T, cmd *exec.Cmd) ([]compatLine, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stderr.Len() > 0 {
		t.Logf("%s's standard error:\n%s", filepath.Base(cmd.Path), tail(stderr.Bytes(), 4000))
	}
	var lines []compatLine
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l compatLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && (l.Step != "" || l.Check != "") {
			lines = append(lines, l)
		} else if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			t.Logf("%s", sc.Bytes())
		}
	}
	if err != nil {
		return lines, fmt.Errorf("%v: %s", err, lastLine(stderr.String()))
	}
	return lines, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func compatDir(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"compat"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func compatContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 4*time.Minute)
}

// pythonClient runs test/compat/python/script with Debian's Python: argv
// URL, table prefix, and a scratch directory if extra is "scratch" (or
// URL and scratch directory for "scratch-only").
func pythonClient(script string, extra ...string) func(*testing.T, *compatSuite, endpoint, string) ([]compatLine, error) {
	return func(t *testing.T, s *compatSuite, ep endpoint, prefix string) ([]compatLine, error) {
		ctx, cancel := compatContext()
		defer cancel()
		args := []string{compatDir(t, "python", script), ep.url()}
		switch {
		case len(extra) == 0:
			args = append(args, prefix)
		case extra[0] == "scratch":
			args = append(args, prefix, t.TempDir())
		default:
			args = append(args, t.TempDir())
		}
		cmd := exec.CommandContext(ctx, "/usr/bin/python3", args...)
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "TZ=UTC", "XDG_CONFIG_HOME="+t.TempDir(),
			"PYTHONPATH="+compatDir(t, "python"))
		return runScript(t, cmd)
	}
}

// nodeClient runs test/compat/js/script with test/js's locked packages;
// argv URL and, if withPrefix, the table prefix.
func nodeClient(script string, withPrefix bool) func(*testing.T, *compatSuite, endpoint, string) ([]compatLine, error) {
	return func(t *testing.T, s *compatSuite, ep endpoint, prefix string) ([]compatLine, error) {
		ctx, cancel := compatContext()
		defer cancel()
		args := []string{compatDir(t, "js", script), ep.url()}
		if withPrefix {
			args = append(args, prefix)
		}
		cmd := exec.CommandContext(ctx, "node", args...)
		cmd.Env = append(os.Environ(), "NODE_PATH="+s.modules, "TZ=UTC")
		return runScript(t, cmd)
	}
}

// goClient runs the module test/compat/go (pgx, GORM) with go run.
func goClient(which string) func(*testing.T, *compatSuite, endpoint, string) ([]compatLine, error) {
	return func(t *testing.T, s *compatSuite, ep endpoint, prefix string) ([]compatLine, error) {
		ctx, cancel := compatContext()
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "run", ".", which, ep.url(), prefix)
		cmd.Dir = compatDir(t, "go")
		return runScript(t, cmd)
	}
}

// runJDBCCompat compiles test/compat/java/CompatJdbc.java against Debian's
// pgjdbc and runs it.
func runJDBCCompat(t *testing.T, s *compatSuite, ep endpoint, prefix string) ([]compatLine, error) {
	ctx, cancel := compatContext()
	defer cancel()
	classes := t.TempDir()
	javac := exec.CommandContext(ctx, "javac", "-d", classes, "-cp", jdbcJar, compatDir(t, "java", "CompatJdbc.java"))
	if out, err := javac.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("javac: %v: %s", err, out)
	}
	jdbcURL := fmt.Sprintf("jdbc:postgresql://%s/relchain", ep.addr)
	cmd := exec.CommandContext(ctx, "java", "-cp", classes+string(os.PathListSeparator)+jdbcJar,
		"CompatJdbc", jdbcURL, ep.user, pgPassword(ep.user), prefix)
	return runScript(t, cmd)
}

// psqlStep runs psql with a script (ON_ERROR_STOP: the first error ends
// it) and returns its output, or its error's text.
func psqlStep(ctx context.Context, ep endpoint, dir, script string) (string, error) {
	cmd := exec.CommandContext(ctx, "psql", psqlConn(ep.addr, ep.user), "-X", "-v", "ON_ERROR_STOP=1")
	cmd.Env = append(os.Environ(), "PGPASSWORD="+pgPassword(ep.user))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil || strings.Contains(stderr.String(), "ERROR") {
		return stdout.String(), fmt.Errorf("%s", strings.TrimSpace(firstLines(stderr.String()+stdout.String(), 2)))
	}
	return stdout.String(), nil
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " ")
}

// runPsqlCompat: psql's \d family, \l, \du, \copy both ways and a
// transaction, each step a psql run as a user would type it.
func runPsqlCompat(t *testing.T, s *compatSuite, ep endpoint, p string) ([]compatLine, error) {
	ctx, cancel := compatContext()
	defer cancel()
	dir := t.TempDir()
	csv := "3,cy,30\n4,di,40\n5,\"e, f\",50\n"
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := p + "_acct"
	steps := []struct {
		name, script string
		want         []string
	}{
		{"create, insert, select", fmt.Sprintf("CREATE TABLE %[1]s (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, bal INTEGER NOT NULL);\n"+
			"CREATE INDEX %[1]s_owner ON %[1]s (owner);\n"+
			"INSERT INTO %[1]s (id, owner, bal) VALUES (1, 'ann', 100), (2, 'bo', 50);\nSELECT id, owner, bal FROM %[1]s ORDER BY id;\n", tbl),
			[]string{"INSERT 0 2", "(2 rows)"}},
		{`\d, \dt, \d table, \di, \dn`, fmt.Sprintf("\\d\n\\dt\n\\d %[1]s\n\\di\n\\dn\n", tbl),
			[]string{"List of relations", `Table "public.` + tbl + `"`, tbl + "_owner", "List of schemas", "public"}},
		{`\l (databases)`, "\\l\n", []string{"List of databases", "relchain"}},
		{`\du (roles)`, "\\du\n", []string{"List of roles", "relchain"}},
		{`\copy … from a CSV file`, fmt.Sprintf("\\copy %s (id, owner, bal) FROM 'in.csv' WITH (FORMAT csv)\n", tbl), []string{"COPY 3"}},
		{`\copy … to a CSV file`, fmt.Sprintf("\\copy (SELECT id, owner, bal FROM %s ORDER BY id) TO 'out.csv' WITH (FORMAT csv)\n", tbl), []string{"COPY 5"}},
		{"a transaction", fmt.Sprintf("BEGIN;\nSELECT bal FROM %[1]s WHERE id = 1;\nUPDATE %[1]s SET bal = bal - 30 WHERE id = 1;\n"+
			"UPDATE %[1]s SET bal = bal + 30 WHERE id = 2;\nCOMMIT;\nSELECT id, bal FROM %[1]s WHERE id <= 2 ORDER BY id;\n", tbl),
			[]string{"COMMIT", "  1 |  70", "  2 |  80"}},
	}
	var lines []compatLine
	for _, st := range steps {
		out, err := psqlStep(ctx, ep, dir, st.script)
		if err == nil {
			for _, w := range st.want {
				if !strings.Contains(out, w) {
					err = fmt.Errorf("the output lacks %q:\n%s", w, out)
					break
				}
			}
		}
		if err == nil && strings.HasPrefix(st.name, `\copy … to`) {
			b, rerr := os.ReadFile(filepath.Join(dir, "out.csv"))
			if want := "1,ann,100\n2,bo,50\n" + csv; rerr != nil || string(b) != want {
				err = fmt.Errorf("out.csv holds %q (%v), want %q", b, rerr, want)
			}
		}
		l := compatLine{Step: st.name, OK: err == nil}
		if err != nil {
			l.Error = err.Error()
		}
		lines = append(lines, l)
	}
	lines = append(lines, compatLine{Check: fmt.Sprintf("SELECT id, owner, bal FROM %s ORDER BY id", tbl)})
	return lines, nil
}

// runPgbenchCompat: pgbench -i -s 1 as users run it: its DDL (storage
// parameters, multi-table DROP), its data step (BEGIN, TRUNCATE, INSERTs,
// COPY of 100,000 rows, COMMIT), VACUUM and its primary keys. The COPY
// outgrows one bc-transaction inside the data step's transaction: by
// default it is refused with a hint naming relchain.copy_split_transaction
// and nothing of the step is applied; with the setting on (PGOPTIONS) it
// runs to its end. Then pgbench's builtin TPC-B-like script on 2 clients
// (serialization failures retried, as pgbench 15 does with --max-tries).
func runPgbenchCompat(t *testing.T, s *compatSuite, ep endpoint, _ string) ([]compatLine, error) {
	ctx, cancel := compatContext()
	defer cancel()
	host, port, _ := strings.Cut(ep.addr, ":")
	split := "PGOPTIONS=-c relchain.copy_split_transaction=on"
	pgbench := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "pgbench", append([]string{"-h", host, "-p", port, "-U", ep.user}, append(args, "relchain")...)...)
		cmd.Env = append(os.Environ(), "PGPASSWORD="+pgPassword(ep.user), split)
		out, err := cmd.CombinedOutput()
		t.Logf("pgbench %s:\n%s", strings.Join(args, " "), tail(out, 3000))
		if err != nil {
			return string(out), fmt.Errorf("%v: %s", err, firstErrorLine(string(out)))
		}
		return string(out), nil
	}
	var lines []compatLine
	add := func(name string, err error) {
		l := compatLine{Step: name, OK: err == nil}
		if err != nil {
			l.Error = err.Error()
		}
		lines = append(lines, l)
	}
	split = "PGOPTIONS="
	out, err := pgbench("-i", "-s", "1")
	if err == nil || !strings.Contains(out, "relchain.copy_split_transaction") {
		err = fmt.Errorf("pgbench -i without the setting: %v; want the COPY refused with a hint naming relchain.copy_split_transaction", err)
	} else {
		err = nil
	}
	add("pgbench -i -s 1 without relchain.copy_split_transaction is refused with a hint", err)
	split = "PGOPTIONS=-c relchain.copy_split_transaction=on"
	_, err = pgbench("-i", "-s", "1")
	add("pgbench -i -s 1", err)
	out, err = pgbench("-n", "-c", "2", "-t", "20", "--max-tries", "100")
	if err == nil && !strings.Contains(out, "number of transactions actually processed: 40/40") {
		err = fmt.Errorf("not every transaction was processed: %s", lastLine(out))
	}
	add("pgbench -n -c 2 -t 20 (tpcb-like, --max-tries 100)", err)
	lines = append(lines, compatLine{Check: "SELECT count(*), sum(abalance) FROM pgbench_accounts"},
		compatLine{Check: "SELECT tid, tbalance FROM pgbench_tellers ORDER BY tid"},
		compatLine{Check: "SELECT count(*), sum(delta) FROM pgbench_history"})
	return lines, nil
}

func firstErrorLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "error") || strings.Contains(l, "FATAL") {
			return strings.TrimSpace(l)
		}
	}
	return lastLine(out)
}
