package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Node.js clients, unmodified, through the nodes' PostgreSQL listeners:
// node-postgres (test/js/pg_basics.js) and the knex query builder with its
// migrations (test/js/knex_app.js). Each script prints one JSON object;
// the test checks it and then that every validator holds the same rows.
func TestGatewayJS(t *testing.T) {
	onBackends(t, notOn{"mysql": gatewayNotOnMySQL}, testGatewayJS)
}

func testGatewayJS(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	modules := jsModules(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	var basics pgBasicsOutput
	runNodeScript(t, modules, &basics, "pg_basics.js", c.pgURL(0, "alice"), backend)
	checkPgBasics(t, basics)
	var app knexOutput
	// Two nodes, two users: the conflicting transactions meet on the chain.
	runNodeScript(t, modules, &app, "knex_app.js", c.pgURL(1, "alice"), c.pgURL(2, "bob"), backend)
	checkKnexApp(t, app)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	queries := []string{
		"SELECT id, i, f, t, b, d FROM js_typed ORDER BY id",
		"SELECT id, owner, balance, rate, active, opened, note, tier FROM accounts ORDER BY id",
		"SELECT name, batch FROM knex_migrations ORDER BY name",
		"SELECT is_locked FROM knex_migrations_lock",
	}
	h, rows := c.consistentRead(ctx, queries...)
	for q, sql := range queries {
		c.requireSameRows(h, sql, rows[q])
	}
	if got := fmt.Sprint(rows[1][0]); got != "[[1 ann 102 1.5 1 2026-01-02 it's gold] [2 bo 75 <nil> 1 <nil> <nil> <nil>]]" &&
		got != "[[1 ann 102 1.5 true 2026-01-02 it's gold] [2 bo 75 <nil> true <nil> <nil> <nil>]]" {
		t.Errorf("accounts on the chain: %s", got)
	}
	if got := fmt.Sprint(rows[3][0]); got != "[[0]]" {
		t.Errorf("knex's migration lock on the chain: %s, want one row, unlocked", got)
	}
}

// pgBasicsOutput is what pg_basics.js prints. Integers are any: node-postgres
// returns int8 (every SQLite integer) as a string, int4 as a number.
type pgBasicsOutput struct {
	Simple      []map[string]any `json:"simple"`
	InsertTag   string           `json:"insertTag"`
	Typed       []map[string]any `json:"typed"`
	FromDate    []map[string]any `json:"fromDate"`
	Nulls       []map[string]any `json:"nulls"`
	Prepared    []any            `json:"prepared"`
	Transaction struct {
		Inside             any              `json:"inside"`
		Commit             string           `json:"commit"`
		After              []map[string]any `json:"after"`
		Rollback           string           `json:"rollback"`
		CountAfterRollback int              `json:"countAfterRollback"`
	} `json:"transaction"`
	Errors map[string]json.RawMessage `json:"errors"`
	Pool   struct {
		Results []any `json:"results"`
		Total   int   `json:"total"`
	} `json:"pool"`
}

type jsError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func checkPgBasics(t *testing.T, out pgBasicsOutput) {
	t.Helper()
	if got := fmt.Sprint(out.Simple); got != "[map[one:1]]" {
		t.Errorf("SELECT 1: %s", got)
	}
	if out.InsertTag != "INSERT 1" {
		t.Errorf("insert's command and row count: %q, want INSERT 1", out.InsertTag)
	}
	want := map[string]string{"id": "1", "i": "42", "f": "2.5", "t": "héllo 'q'", "b": "true", "d": "2026-11-25"}
	requireRow(t, "parameterised insert, read back", out.Typed, want)
	requireRow(t, "a JavaScript Date parameter", out.FromDate,
		map[string]string{"i": "-7", "f": "-0.125", "t": "", "b": "false", "d": "2026-01-02"})
	requireRow(t, "NULL parameters", out.Nulls,
		map[string]string{"i": "<nil>", "f": "<nil>", "t": "<nil>", "b": "<nil>", "d": "<nil>"})
	if got := fmt.Sprint(out.Prepared); got != "[héllo 'q' <nil> héllo 'q' <nil> héllo 'q' <nil> héllo 'q' <nil> héllo 'q' <nil>]" {
		t.Errorf("named prepared statement run 10 times: %s", got)
	}
	tx := out.Transaction
	if fmt.Sprint(tx.Inside) != "32" || tx.Commit != "COMMIT" || tx.Rollback != "ROLLBACK" || tx.CountAfterRollback != 3 {
		t.Errorf("transactions: inside %v, %s, %s, %d rows after ROLLBACK; want 32, COMMIT, ROLLBACK, 3",
			tx.Inside, tx.Commit, tx.Rollback, tx.CountAfterRollback)
	}
	if got := fmt.Sprint(tx.After); got != "[map[i:32 id:1] map[i:10 id:2] map[i:3 id:3]]" {
		t.Errorf("after COMMIT: %s", got)
	}
	for name, code := range map[string]string{"duplicate": "23505", "syntax": "42601", "syntaxExtended": "42601", "missingTable": "42P01"} {
		var e jsError
		if err := json.Unmarshal(out.Errors[name], &e); err != nil || e.Code != code {
			t.Errorf("error %s: %s (%v), want SQLSTATE %s", name, out.Errors[name], err, code)
		}
	}
	if got := string(out.Errors["after"]); got != "2" && got != `"2"` {
		t.Errorf("the connection after errors answered %s, want 2", got)
	}
	if got := fmt.Sprint(out.Pool.Results); got != "[1 2 1 2 1 2 1 2]" || out.Pool.Total != 3 {
		t.Errorf("pool of 3 running 8 queries: %s with %d connections", got, out.Pool.Total)
	}
}

// requireRow checks that rows is one row whose values print as want.
func requireRow(t *testing.T, what string, rows []map[string]any, want map[string]string) {
	t.Helper()
	if len(rows) != 1 {
		t.Errorf("%s: %d rows, want 1", what, len(rows))
		return
	}
	for k, v := range want {
		if got := fmt.Sprint(rows[0][k]); got != v {
			t.Errorf("%s: column %s is %s, want %s", what, k, got, v)
		}
	}
}

// knexOutput is what knex_app.js prints.
type knexOutput struct {
	Migrations struct {
		Up1, Up2, Down, Latest, LatestAgain []any
		Recorded                            []string
	} `json:"migrations"`
	CRUD struct {
		Inserted []map[string]any `json:"inserted"`
		ByOwner  map[string]any   `json:"byOwner"`
		Rich     []string         `json:"rich"`
		Updated  int              `json:"updated"`
		Deleted  int              `json:"deleted"`
		Rows     []map[string]any `json:"rows"`
		Count    int              `json:"count"`
	} `json:"crud"`
	Conflict struct {
		Before   int       `json:"before"`
		After    int       `json:"after"`
		Attempts []int     `json:"attempts"`
		Heights  []int64   `json:"heights"`
		Errors   []jsError `json:"errors"`
	} `json:"conflict"`
}

// test/js/migrations: the accounts table, then its tier column.
const (
	firstMigration  = "20261125000001_accounts.js"
	secondMigration = "20261125000002_accounts_tier.js"
)

func checkKnexApp(t *testing.T, out knexOutput) {
	t.Helper()
	checkKnexMigrations(t, out)
	crud := out.CRUD
	if got := fmt.Sprint(crud.Inserted); got != "[map[id:1 owner:ann] map[id:2 owner:bo] map[id:3 owner:cy]]" {
		t.Errorf("insert … returning: %s", got)
	}
	if got := fmt.Sprint(crud.ByOwner); got != "map[balance:100 id:1 note:it's rate:1.5]" {
		t.Errorf("where … first: %s", got)
	}
	if !slices.Equal(crud.Rich, []string{"ann", "bo"}) || crud.Updated != 1 || crud.Deleted != 2 || crud.Count != 2 {
		t.Errorf("CRUD: rich %v, updated %d, deleted %d, count %d; want [ann bo], 1, 2, 2",
			crud.Rich, crud.Updated, crud.Deleted, crud.Count)
	}
	if got := fmt.Sprint(crud.Rows); got != "[map[active:true balance:100 id:1 owner:ann] map[active:true balance:75 id:2 owner:bo]]" {
		t.Errorf("rows after CRUD: %s", got)
	}
	cf := out.Conflict
	attempts := slices.Sorted(slices.Values(cf.Attempts))
	if cf.Before != 100 || cf.After != 102 {
		t.Errorf("two increments of 100 ended at %d (from %d), want 102", cf.After, cf.Before)
	}
	// The final read waited for both commits' heights, which two
	// different transactions committed at two different heights.
	if len(cf.Heights) != 2 || cf.Heights[0] <= 0 || cf.Heights[1] <= 0 || cf.Heights[0] == cf.Heights[1] {
		t.Errorf("the increments' commit heights %v: want two different heights", cf.Heights)
	}
	// The overlapping first attempts: one commits, the other gets 40001
	// and its retry commits.
	if !slices.Equal(attempts, []int{1, 2}) || len(cf.Errors) != 1 || cf.Errors[0].Code != "40001" {
		t.Errorf("conflicting transactions: attempts %v, errors %+v; want one retried after one 40001", cf.Attempts, cf.Errors)
	}
}

// checkKnexMigrations: up, up, down, latest and latest again report the
// batches and migrations they ran, and knex_migrations keeps them (after
// the down, latest runs the second migration again as batch 2).
func checkKnexMigrations(t *testing.T, out knexOutput) {
	t.Helper()
	m := out.Migrations
	for _, step := range []struct {
		name string
		got  []any
		want string
	}{
		{"migrate.up", m.Up1, "[1 [" + firstMigration + "]]"},
		{"migrate.up again", m.Up2, "[2 [" + secondMigration + "]]"},
		{"migrate.down", m.Down, "[2 [" + secondMigration + "]]"},
		{"migrate.latest", m.Latest, "[2 [" + secondMigration + "]]"},
		{"migrate.latest again (nothing to run)", m.LatestAgain, "[2 []]"},
	} {
		if got := fmt.Sprint(step.got); got != step.want {
			t.Errorf("%s: %s, want %s", step.name, got, step.want)
		}
	}
	if want := []string{firstMigration + "@1", secondMigration + "@2"}; !slices.Equal(m.Recorded, want) {
		t.Errorf("knex_migrations holds %v, want %v", m.Recorded, want)
	}
}

// runNodeScript runs test/js/script with node and decodes the one JSON
// object it prints into out.
func runNodeScript(t *testing.T, modules string, out any, script string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	path, err := filepath.Abs(filepath.Join("js", script))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "node", append([]string{path}, args...)...)
	// TZ: node-postgres sends and parses dates in local time.
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "TZ=UTC")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", script, err, stdout.String(), stderr.String())
	}
	t.Logf("node %s: %s", script, stdout.String())
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node %s printed no JSON object: %v\n%s", script, err, stdout.String())
	}
}

// jsModules returns a node_modules directory holding test/js's locked
// packages. They are installed with npm ci once per version of
// package.json and package-lock.json, under the user's cache directory
// (RELCHAIN_JS_CACHE overrides it), so repeated runs do not reinstall.
func jsModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: these tests run Node.js clients (scripts/deps.sh ensure_node installs nodejs and npm): %v", tool, err)
		}
	}
	manifest, err := os.ReadFile(filepath.Join("js", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join("js", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	h.Write(manifest)
	h.Write([]byte{0})
	h.Write(lock)
	dir := filepath.Join(jsCacheRoot(t), hex.EncodeToString(h.Sum(nil)[:8]))
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "installed")); err == nil {
		return modules
	}
	if err := npmInstall(t, dir, manifest, lock); err != nil {
		t.Fatal(err)
	}
	return modules
}

func jsCacheRoot(t *testing.T) string {
	if root := os.Getenv("RELCHAIN_JS_CACHE"); root != "" {
		return root
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache directory for the Node.js packages (set RELCHAIN_JS_CACHE): %v", err)
	}
	return filepath.Join(base, "relchain-js")
}

// npmInstall runs npm ci in a fresh directory beside dir and renames it
// to dir when done, so a concurrent or interrupted run never sees half an
// installation.
func npmInstall(t *testing.T, dir string, manifest, lock []byte) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create the Node.js package cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".partial-")
	if err != nil {
		return fmt.Errorf("create the Node.js package cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	for name, data := range map[string][]byte{"package.json": manifest, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return fmt.Errorf("copy %s to the package cache: %w", name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci for test/js failed (is the npm registry reachable?): %w\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, "installed"), nil, 0o644); err != nil {
		return fmt.Errorf("mark the Node.js packages installed: %w", err)
	}
	t.Logf("installed test/js's Node.js packages in %s", dir)
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "installed")); statErr == nil {
			return nil // another run installed the same lock file first
		}
		if errors.Is(err, fs.ErrExist) {
			// A leftover without its marker (an interrupted older layout).
			if rmErr := os.RemoveAll(dir); rmErr == nil && os.Rename(tmp, dir) == nil {
				return nil
			}
		}
		return fmt.Errorf("move the Node.js packages into the cache: %w", err)
	}
	return nil
}
