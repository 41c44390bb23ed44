package sqlchecktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Verdict is what CheckTx does with a corpus statement.
type Verdict string

const (
	Accept  Verdict = "accept"  // admitted as it is
	Rewrite Verdict = "rewrite" // admitted; clock or random calls are rewritten from the tx's Env
	Reject  Verdict = "reject"  // refused by the gate (code 7); Reason is a substring of the refusal
	Syntax  Verdict = "syntax"  // not exactly one parseable statement (code 6); Reason likewise
	Fail    Verdict = "fail"    // admitted by CheckTx but fails when it runs (schema- or data-dependent)
)

// Entry is one corpus statement.
type Entry struct {
	SQL     string  `json:"sql"`
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
}

// Corpus is a dialect's gate corpus: the schema its statements are judged
// on (applied in order, by an admin, before any entry) and the entries.
type Corpus struct {
	Dialect string   `json:"dialect"`
	Schema  []string `json:"schema"`
	Entries []Entry  `json:"entries"`
}

// Count returns how many entries have verdict v.
func (c Corpus) Count(v Verdict) int {
	n := 0
	for _, e := range c.Entries {
		if e.Verdict == v {
			n++
		}
	}
	return n
}

// Encode is the file form: indented JSON, one entry per line group, ending
// in a newline (stable, so the file diffs well).
func (c Corpus) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode the %s corpus: %w", c.Dialect, err)
	}
	return buf.Bytes(), nil
}

// Load reads a corpus file.
func Load(path string) (Corpus, error) {
	var c Corpus
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("read gate corpus: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("decode gate corpus %s: %w", path, err)
	}
	return c, nil
}

// UpdateEnv names the environment variable that makes Golden rewrite the
// file instead of comparing it.
const UpdateEnv = "RELCHAIN_UPDATE_CORPUS"

// Golden fails t unless the file at path holds exactly c's encoding, so the
// file the network tests read never drifts from the dialect's Go table.
// With RELCHAIN_UPDATE_CORPUS=1 it writes the file instead.
func Golden(t testing.TB, path string, c Corpus) {
	t.Helper()
	want, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(UpdateEnv) == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with %s=1 go test -run %s)", err, UpdateEnv, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with the Go corpus table; regenerate it with %s=1 go test -run %s", path, UpdateEnv, t.Name())
	}
}
