package postgres

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

const syntaxDeepEnv = "POSTGRES_SYNTAX_DEEP_CHILD"

// syntaxDeepEntries are the backend's ways into libpg_query: Query's
// (readable), Exec's and CheckTx's (gated), Describe's, with and without
// the gate, each given a left-deep chain of n terms.
var syntaxDeepEntries = map[string]func(n int) error{
	"readable": func(n int) error {
		c := newSyntaxCache(true)
		_, err := c.readable("SELECT " + deepTerms(n))
		return err
	},
	"gated": func(n int) error {
		c := newSyntaxCache(true)
		_, err := c.gated("INSERT INTO big VALUES (" + deepTerms(n) + ", 'x')")
		return err
	},
	"describable": func(n int) error {
		c := newSyntaxCache(true)
		_, _, err := c.describable("SELECT " + deepTerms(n))
		return err
	},
	"ungated": func(n int) error {
		c := newSyntaxCache(false)
		_, err := c.gated("SELECT " + deepTerms(n))
		return err
	},
}

func deepTerms(n int) string { return strings.Repeat("1+", n-1) + "1" }

// TestSyntaxDeepChild runs one entry when started by
// TestSyntaxDeepTextsRefusedWithoutCrash.
func TestSyntaxDeepChild(t *testing.T) {
	spec := os.Getenv(syntaxDeepEnv)
	if spec == "" {
		t.Skip("runs as a child process of TestSyntaxDeepTextsRefusedWithoutCrash")
	}
	name, size, _ := strings.Cut(spec, ":")
	n, err := strconv.Atoi(size)
	if err != nil || syntaxDeepEntries[name] == nil {
		t.Fatalf("bad %s=%q", syntaxDeepEnv, spec)
	}
	fmt.Printf("VERDICT: %v\n", syntaxDeepEntries[name](n))
}

// Issue 32, reproduction 1: SELECT 1+1+... with 40,000 and 100,000 terms
// on the read path (abci_query /sql, the wire listener) and in CheckTx
// killed the node in libpg_query (SIGSEGV in cgo, backend/postgres.parseOne).
// Each of the backend's parsing entries now refuses it cleanly, in a child
// process so that a crash fails this test instead of killing the binary.
func TestSyntaxDeepTextsRefusedWithoutCrash(t *testing.T) {
	for name := range syntaxDeepEntries {
		for _, n := range []int{40_000, 100_000} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSyntaxDeepChild$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d", syntaxDeepEnv, name, n))
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
