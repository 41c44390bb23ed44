package difftest

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/relchain/relchain/internal/racetest"
)

// parseCases reads a case file (format: testdata/README.md).
func parseCases(path string) ([]diffCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open case file: %w", err)
	}
	defer f.Close()
	p := &caseParser{file: filepath.Base(path)}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		p.line++
		if err := p.feed(sc.Text()); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", p.file, p.line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if strings.TrimSpace(p.text.String()) != "" {
		return nil, fmt.Errorf("%s: statement from line %d lacks its closing ';'", p.file, p.start)
	}
	return p.cases, nil
}

// caseParser is the state of parseCases.
type caseParser struct {
	file        string
	line, start int
	cases       []diffCase
	setup       bool
	args        []any
	ordered     bool
	read        bool
	text        strings.Builder
}

func (p *caseParser) feed(line string) error {
	trimmed := strings.TrimSpace(line)
	if p.text.Len() == 0 {
		done, err := p.directive(trimmed)
		if done || err != nil {
			return err
		}
		p.start = p.line
	}
	if len(p.cases) == 0 {
		return fmt.Errorf("statement before the first '=== name' line")
	}
	p.text.WriteString(line + "\n")
	if !strings.HasSuffix(trimmed, ";") {
		return nil
	}
	sql := strings.TrimSuffix(strings.TrimSpace(p.text.String()), ";")
	c := &p.cases[len(p.cases)-1]
	c.stmts = append(c.stmts, spec{sql: sql, args: p.args, setup: p.setup, ordered: p.ordered, read: p.read,
		where: fmt.Sprintf("%s:%d", p.file, p.start)})
	p.text.Reset()
	p.args, p.ordered = nil, false
	return nil
}

// directive handles a line outside a statement; done reports that the
// line is not the start of a statement.
func (p *caseParser) directive(line string) (done bool, err error) {
	switch {
	case line == "" || strings.HasPrefix(line, "#"):
		return true, nil
	case strings.HasPrefix(line, "==="):
		p.cases = append(p.cases, diffCase{name: strings.TrimSpace(strings.TrimPrefix(line, "==="))})
		p.setup, p.read = false, false
		return true, nil
	case line == "-- setup":
		p.setup, p.read = true, false
		return true, nil
	case line == "-- check":
		p.setup, p.read = false, false
		return true, nil
	case line == "-- ordered":
		p.ordered = true
		return true, nil
	case line == "-- reads":
		p.setup, p.read = false, true
		return true, nil
	case strings.HasPrefix(line, "-- args:"):
		p.args, err = parseArgs(strings.TrimPrefix(line, "-- args:"))
		return true, err
	case strings.HasPrefix(line, "--"):
		return true, nil
	}
	return false, nil
}

// parseArgs reads a comma-separated list of argument values: NULL, true,
// false, integers, floats, 'text' (” for a quote) and x'hex' (bytea).
func parseArgs(s string) ([]any, error) {
	var out []any
	for _, tok := range splitArgs(s) {
		v, err := parseArg(strings.TrimSpace(tok))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func splitArgs(s string) []string {
	var toks []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
		case r == ',' && !quoted:
			toks = append(toks, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	return append(toks, cur.String())
}

func parseArg(tok string) (any, error) {
	switch {
	case strings.EqualFold(tok, "NULL"):
		return nil, nil
	case tok == "true" || tok == "false":
		return tok == "true", nil
	case strings.HasPrefix(tok, "x'") && strings.HasSuffix(tok, "'"):
		return hex.DecodeString(tok[2 : len(tok)-1])
	case len(tok) >= 2 && tok[0] == '\'' && tok[len(tok)-1] == '\'':
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), nil
	}
	if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(tok, 64); err == nil {
		return f, nil
	}
	return nil, fmt.Errorf("argument %q: want NULL, true, false, a number, 'text' or x'hex'", tok)
}

// TestCaseFilesParse holds the corpus readable by the suite (no database).
func TestCaseFilesParse(t *testing.T) {
	files := caseFiles(t)
	n := 0
	for _, f := range files {
		cases, err := parseCases(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if len(c.stmts) == 0 {
				t.Errorf("%s: case %q has no statements", f, c.name)
			}
			n += len(c.stmts)
		}
	}
	if n < 200 {
		t.Errorf("the corpus holds %d statements in %d files; expected at least 200", n, len(files))
	}
	t.Logf("%d case files, %d statements", len(files), n)
}

func caseFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.case")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.case files (%v)", err)
	}
	return files
}

// TestCorpus runs every case of testdata/*.case on both engines.
func TestCorpus(t *testing.T) {
	racetest.Heavy(t) // the corpus, one statement at a time on two engines
	h := newHarness(t)
	h.maria = newMariaColumn(h)
	for _, f := range caseFiles(t) {
		cases, err := parseCases(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			h.runCase(c, "")
		}
	}
	h.log(t, "corpus")
	h.requireCompared(t)
}

// TestCorpusRunsOnPostgreSQL holds the corpus itself right: every setup
// statement succeeds on PostgreSQL (a case whose setup fails there tests
// nothing), and the check statements' errors on PostgreSQL are logged.
func TestCorpusRunsOnPostgreSQL(t *testing.T) {
	h := newHarness(t)
	failed, ran := map[string]int{}, 0
	for _, f := range caseFiles(t) {
		cases, err := parseCases(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			pgE, err := newPGEngine(h.pg, fmt.Sprintf("difftest_corpus_%d", i), h.types)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.stmts {
				o := pgE.run(translated{sql: s.sql, args: s.args})
				ran++
				switch {
				case o.failed() && s.setup:
					t.Errorf("%s: setup statement fails on PostgreSQL: %s\n  %s", s.where, o, s.sql)
				case o.failed():
					failed[o.Code+" "+firstLine(o.Message)]++
				}
			}
			pgE.close()
		}
	}
	t.Logf("%d corpus statements ran on PostgreSQL, these failed (as the corpus expects or not):", ran)
	logTop(t, "PostgreSQL errors", failed, nil)
}
