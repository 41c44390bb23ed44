package pggate

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/pgparse"
	"github.com/relchain/relchain/sqlcheck/prescan"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// terms is a left-deep chain 1+1+...+1 of n terms.
func terms(n int) string { return strings.Repeat("1+", n-1) + "1" }

// deepEntries are the gate's entries that parse a text, each given a text
// holding a chain of n terms where that entry parses it.
var deepEntries = map[string]func(n int) error{
	"CheckRead": func(n int) error { _, err := CheckRead("SELECT " + terms(n)); return err },
	"Check":     func(n int) error { return Check("INSERT INTO big VALUES (" + terms(n) + ", 'x')") },
	"Rewrite": func(n int) error {
		_, err := Rewrite("INSERT INTO big VALUES (now(), "+terms(n)+")", testEnv)
		return err
	},
	"sql body": func(n int) error {
		return Check("CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS $$ SELECT " + terms(n) + " $$")
	},
	"plpgsql body": func(n int) error {
		return Check("CREATE FUNCTION public.f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN " + terms(n) + "; END $$")
	},
}

const deepChildEnv = "PGGATE_DEEP_CHILD"

// TestDeepTextChild runs one entry on one deep text when started by
// TestDeepTextsRefusedWithoutCrash (a SIGSEGV in cgo would kill the test
// binary); it prints the verdict.
func TestDeepTextChild(t *testing.T) {
	spec := os.Getenv(deepChildEnv)
	if spec == "" {
		t.Skip("runs as a child process of TestDeepTextsRefusedWithoutCrash")
	}
	name, size, _ := strings.Cut(spec, ":")
	n, err := strconv.Atoi(size)
	if err != nil || deepEntries[name] == nil {
		t.Fatalf("bad %s=%q", deepChildEnv, spec)
	}
	fmt.Printf("VERDICT: %v\n", deepEntries[name](n))
}

// Issue 32, reproduction 1: a left-deep chain of 40,000 or 100,000 terms
// crashed the process in libpg_query (SIGSEGV during cgo execution) on the
// read path, in CheckTx and in function bodies. Every entry now refuses it
// cleanly, naming the limit.
func TestDeepTextsRefusedWithoutCrash(t *testing.T) {
	racetest.Heavy(t) // eight child processes, each parsing one long text
	for name := range deepEntries {
		for _, n := range []int{40_000, 100_000} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestDeepTextChild$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d", deepChildEnv, name, n))
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "VERDICT: ") {
				t.Errorf("%s, %d terms: the process failed (%v): %.300s", name, n, err, out)
				continue
			}
			if !strings.Contains(string(out), "exceeds relchain's limit of 128") {
				t.Errorf("%s, %d terms: not refused by the bound: %.300s", name, n, out)
			}
		}
	}
}

// Issue 32, reproduction 3: 4,400 terms pass libpg_query but exceed
// PostgreSQL's stack at the default max_stack_depth (2MB fails near
// 4,300), so the outcome depended on each node's setting. The gate refuses
// it, whatever the node.
func TestStackDependentDepthRefused(t *testing.T) {
	sql := "INSERT INTO big VALUES (500001, (" + terms(4400) + ")::text)"
	for _, err := range []error{Check(sql), check(sql)} {
		if !errors.Is(err, prescan.ErrLimit) || !strings.Contains(err.Error(), "nesting depth 4402 exceeds relchain's limit of 128") {
			t.Fatalf("Check = %v, want the nesting bound", err)
		}
	}
	if err := Check("INSERT INTO big VALUES (500001, (" + terms(100) + ")::text)"); err != nil {
		t.Fatalf("100 terms: %v", err)
	}
}

// TestLinear: the gate's work is linear in the text on every pathological
// family, for blocks and for reads. Two caches are emptied before each run
// so that every size is measured uncached: pgparse's, which keeps parse
// encodings up to 64 KiB (the statements family's small text fits, its
// large one does not: CI measured ratio 32.6, 9.9 uncached), and the read
// path's verdicts, which come from the block gate's cache for texts up to
// 16 KiB that are not a SELECT.
func TestLinear(t *testing.T) {
	sqlchecktest.Linear(t, 1<<13, func(sql string) {
		pgparse.Forget()
		_ = check(sql)
	})
	sqlchecktest.Linear(t, 1<<13, func(sql string) {
		pgparse.Forget()
		cache = sqlcheck.VerdictCache[*verdict]{}
		_ = analyzeRead(sql)
	})
}
