package pggate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// psql 15's \d family (captured in backend/postgres/testdata/psql15) passes
// the read policy and stays refused in blocks.
func TestReadPolicyAcceptsPsqlWhatBlocksRefuse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "psql15", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata: %v, %d files", err, len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range strings.Split(string(data), "\n\n") {
			if q = strings.TrimSpace(q); q == "" {
				continue
			}
			if _, err := CheckRead(q); err != nil {
				t.Errorf("%s: CheckRead(%q) = %v", filepath.Base(f), q, err)
			}
			if err := Check(q); err == nil {
				t.Errorf("%s: Check(%q) accepts a catalog query in a block", filepath.Base(f), q)
			}
		}
	}
}

func TestReadPolicyFiltersRelchainFromCatalogs(t *testing.T) {
	r, err := CheckRead(`SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_namespace ON pg_namespace.oid = c.relnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"nspname <> 'relchain'", "NOT relnamespace IN", ") c", ") pg_namespace"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the read text %q lacks %q", r.Text, want)
		}
	}
	if r, err := CheckRead(`SELECT id FROM acct`); err != nil || r.Text != `SELECT id FROM acct` {
		t.Errorf("a query of no catalog is rewritten: %q, %v", r.Text, err)
	}
	if r, err := CheckRead(`WITH d AS (DELETE FROM acct RETURNING id) SELECT id FROM d`); err != nil || !r.Writes {
		t.Errorf("a data-modifying WITH is not reported as a write: %+v, %v", r, err)
	}
}

// Determinism refusals are dropped on the read path; safety ones are not.
func TestReadPolicyKeepsSafetyRefusals(t *testing.T) {
	for _, q := range []string{
		`SELECT oid FROM pg_class`, `SELECT xmin FROM t`, `SELECT gen_random_uuid()`, `SELECT id FROM (SELECT id FROM t) s LIMIT 1`,
		`SELECT 'acct'::regclass`, `SELECT count(*) OVER () FROM t`,
	} {
		if _, err := CheckRead(q); err != nil {
			t.Errorf("CheckRead(%q) = %v, want accepted", q, err)
		}
		if Check(q) == nil {
			t.Errorf("Check(%q) accepts it in a block", q)
		}
	}
	for _, q := range []string{
		`SELECT pg_read_file('/etc/passwd')`, `SELECT set_config('work_mem', '1TB', true)`,
		`SELECT pg_sleep(1000)`, `SELECT * FROM relchain.meta`, `SELECT * FROM pg_stat_activity`,
		`SELECT current_setting('port')`, `SELECT lpad('x', 2000000)`, `SELECT pg_advisory_lock(1)`,
		`SELECT * FROM t FOR UPDATE`, `SELECT 1 INTO x`, `SELECT x::relchain.t`,
	} {
		if _, err := CheckRead(q); err == nil {
			t.Errorf("CheckRead(%q) accepts it", q)
		}
	}
}
