package e2e

import (
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// testBackend is what the network tests know of one backend relchain
// runs on. This table is the harness's only list of backends (the tests
// may not import backend/registry, see internal/lint): a behaviour that
// runs on several backends is one test over it (onBackends), with a
// subtest per backend named by the backend.
type testBackend struct {
	// name is the backend's name (--backend, relchain.toml backend.kind).
	name string
	// dsnTemplate, for a database server, returns the nodes' DSN template
	// ({node}) on the test server: a private one started by the test
	// process, or the one RELCHAIN_TEST_PG / RELCHAIN_TEST_MYSQL names.
	// Without a server the test fails with how to get one, or skips under
	// RELCHAIN_SKIP_PG=1 / RELCHAIN_SKIP_MYSQL=1 (packages pgtest and
	// mysqltest). nil for a file database in the node home.
	dsnTemplate func(t *testing.T) string
	// benchDSNTemplate is dsnTemplate for `relchain bench`, whose
	// databases are named per run (nil: dsnTemplate).
	benchDSNTemplate func(t *testing.T) string
	// ph is the i-th (1-based) positional placeholder of the dialect.
	ph func(i int) string
}

var testBackends = []testBackend{
	{name: "sqlite", ph: func(i int) string { return fmt.Sprintf("?%d", i) }},
	{name: "postgres", dsnTemplate: pgDSNTemplate, ph: func(i int) string { return fmt.Sprintf("$%d", i) }},
	{name: "mysql", dsnTemplate: mysqlDSNTemplate, benchDSNTemplate: mysqlBenchDSNTemplate, ph: func(int) string { return "?" }},
}

// backendNamed returns the table's entry for name; an unknown name fails
// the test.
func backendNamed(t *testing.T, name string) testBackend {
	t.Helper()
	i := slices.IndexFunc(testBackends, func(b testBackend) bool { return b.name == name })
	if i < 0 {
		t.Fatalf("backend %q is not in the harness's table testBackends", name)
	}
	return testBackends[i]
}

// notOn names the backends a behaviour does not run on, each with the
// reason: a capability the backend lacks, or why its run would add
// nothing the others do not cover.
type notOn map[string]string

// onBackends runs the behaviour f once per backend of testBackends, as a
// subtest named by the backend, except on those absent names with their
// reasons (logged). A backend must be either run or named in absent, so a
// new backend in the table is a decision in every test over backends.
// f runs in the subtest: one that calls runBesideOtherNetworks runs beside
// its siblings on the other backends.
func onBackends(t *testing.T, absent notOn, f func(t *testing.T, backend string)) {
	t.Helper()
	for name, why := range absent {
		backendNamed(t, name)
		if strings.TrimSpace(why) == "" {
			t.Fatalf("backend %s is left out without a reason", name)
		}
	}
	for _, b := range testBackends {
		if why, ok := absent[b.name]; ok {
			t.Logf("not run on %s: %s", b.name, why)
			continue
		}
		t.Run(b.name, func(t *testing.T) { f(t, b.name) })
	}
}

// onBackendsSampled is onBackends (with no backend left out) for a
// behaviour whose database-server code paths PostgreSQL and MariaDB share
// closely enough that make test-e2e runs it on SQLite and on one of the
// servers, picked by the test's name (FNV-1a, so that the sampled tests
// split between the two and each run picks the same); make test-e2e-full
// (RELCHAIN_E2E_FULL=1) runs every backend. It keeps CI under its time
// budget: the server backends' runs cost two to three times SQLite's.
func onBackendsSampled(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	onBackendsSampledBut(t, nil, f)
}

// onBackendsSampledBut is onBackendsSampled leaving out, in make
// test-e2e only, the backends of covered: where another test of the run
// covers the same behaviour on that backend (the reason says which).
func onBackendsSampledBut(t *testing.T, covered notOn, f func(t *testing.T, backend string)) {
	t.Helper()
	if fullMatrix() {
		onBackends(t, nil, f)
		return
	}
	var servers []string
	for _, b := range testBackends {
		if b.dsnTemplate != nil {
			servers = append(servers, b.name)
		}
	}
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	picked := servers[h.Sum32()%uint32(len(servers))]
	absent := notOn{}
	for name, why := range covered {
		absent[name] = why + " (make test-e2e-full runs it here too)"
	}
	for _, name := range servers {
		if name != picked {
			absent[name] = "sampled out: this run covers the database servers with " + picked + " (make test-e2e-full runs every backend)"
		}
	}
	onBackends(t, absent, f)
}

// fullMatrix: RELCHAIN_E2E_FULL=1 (make test-e2e-full) runs every
// backend of the sampled tests and the fault manifests of every engine.
func fullMatrix() bool { return os.Getenv("RELCHAIN_E2E_FULL") == "1" }

// TestHarnessKnowsEveryBackend checks the harness's table against the
// backends the relchain binary supports: a backend added to the registry
// must be added to testBackends (and so be decided on by every test over
// backends).
func TestHarnessKnowsEveryBackend(t *testing.T) {
	runAlone(t) // no network: runs once, in the job of the tests that run alone
	cmd := exec.Command(relchainBin, "init", "--home", t.TempDir(), "--backend", "no-such-backend")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // init makes a default key under $HOME
	out, err := cmd.CombinedOutput()
	const marker = "(supported: "
	i := strings.Index(string(out), marker)
	if err == nil || i < 0 {
		t.Fatalf("relchain init --backend no-such-backend: err %v, output without %q:\n%s", err, marker, out)
	}
	list := string(out[i+len(marker):])
	list = list[:strings.IndexByte(list, ')')]
	var have []string
	for _, b := range testBackends {
		have = append(have, b.name)
	}
	if want := strings.Split(list, ", "); !slices.Equal(have, want) {
		t.Fatalf("the harness's backends %v; relchain supports %v", have, want)
	}
}
