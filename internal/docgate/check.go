package docgate

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Problem is one reference that does not resolve.
type Problem struct {
	File string // the page or Go file holding the reference, relative to the root
	Line int
	Ref  string // the reference as written
	Why  string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Ref, p.Why)
}

// Checker resolves references against the repository at Root.
type Checker struct {
	Root string
	// Pending are pages (relative to Root) that may be linked before they
	// exist; a pending page that exists is a problem, so the list empties.
	Pending []string
	// Skip are folders (relative to Root) whose Go files are not checked:
	// the checker's own, whose comments show the forms it looks for.
	Skip []string

	anchors map[string]map[string]bool // page → its anchors, read once
}

var (
	mdLink   = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan = regexp.MustCompile("`[^`]*`")
	// goDocRef is a page of the documentation named in Go code, with its
	// anchor if any: docs/PAGE.md, or one of the root pages.
	goDocRef = regexp.MustCompile(`\b((?:docs/[A-Za-z0-9_./-]+|README|BENCHMARKS|RELIABILITY|ARCHITECTURE|CHANGELOG)\.md)(#[A-Za-z0-9_-]+)?`)
	// oldHint is the unresolvable form hints had before: "README: Section".
	oldHint = regexp.MustCompile(`README: [A-Z"][^)"]*`)
)

// CheckPage checks every relative link of the markdown page rel.
func (c *Checker) CheckPage(rel string) ([]Problem, error) {
	b, err := os.ReadFile(filepath.Join(c.Root, rel))
	if err != nil {
		return nil, fmt.Errorf("read page %s: %w", rel, err)
	}
	var out []Problem
	for _, l := range proseLines(string(b)) {
		text := codeSpan.ReplaceAllString(l.text, "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			if file == "" {
				file = rel
			} else {
				file = path.Join(path.Dir(rel), file)
			}
			if why := c.resolve(file, anchor); why != "" {
				out = append(out, Problem{File: rel, Line: l.n, Ref: target, Why: why})
			}
		}
	}
	return out, nil
}

// CheckGo checks the documentation references of every non-test Go file
// under the root (skipping testdata and nested modules).
func (c *Checker) CheckGo() ([]Problem, error) {
	var out []Problem
	err := filepath.WalkDir(c.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.Root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (c.skipDir(p, d.Name()) || slices.Contains(c.Skip, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		ps, err := c.checkGoFile(rel)
		out = append(out, ps...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", c.Root, err)
	}
	return out, nil
}

// skipDir: hidden folders, testdata, build output and nested modules.
func (c *Checker) skipDir(p, name string) bool {
	if strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bin" {
		return true
	}
	_, err := os.Stat(filepath.Join(p, "go.mod"))
	return err == nil
}

func (c *Checker) checkGoFile(rel string) ([]Problem, error) {
	b, err := os.ReadFile(filepath.Join(c.Root, rel))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	var out []Problem
	for i, l := range strings.Split(string(b), "\n") {
		for _, m := range goDocRef.FindAllStringSubmatch(l, -1) {
			if why := c.resolve(m[1], strings.TrimPrefix(m[2], "#")); why != "" {
				out = append(out, Problem{File: rel, Line: i + 1, Ref: m[0], Why: why})
			}
		}
		if m := oldHint.FindString(l); m != "" {
			out = append(out, Problem{File: rel, Line: i + 1, Ref: m,
				Why: "a hint by section name cannot be checked: write docs/PAGE.md#anchor"})
		}
	}
	return out, nil
}

// resolve says why file#anchor (file relative to the root) does not
// resolve, or "" when it does.
func (c *Checker) resolve(file, anchor string) string {
	file = path.Clean(file)
	if strings.HasPrefix(file, "../") {
		return "points outside the repository"
	}
	if _, err := os.Stat(filepath.Join(c.Root, file)); err != nil {
		for _, p := range c.Pending {
			if p == file {
				return ""
			}
		}
		return "no such file"
	}
	if anchor == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	as, err := c.pageAnchors(file)
	if err != nil {
		return err.Error()
	}
	if !as[anchor] {
		return fmt.Sprintf("%s has no heading with the anchor #%s", file, anchor)
	}
	return ""
}

func (c *Checker) pageAnchors(file string) (map[string]bool, error) {
	if as, ok := c.anchors[file]; ok {
		return as, nil
	}
	b, err := os.ReadFile(filepath.Join(c.Root, file))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if c.anchors == nil {
		c.anchors = map[string]map[string]bool{}
	}
	c.anchors[file] = Anchors(string(b))
	return c.anchors[file], nil
}

// PendingThatExist are the pending pages that exist by now.
func (c *Checker) PendingThatExist() []string {
	var out []string
	for _, p := range c.Pending {
		if _, err := os.Stat(filepath.Join(c.Root, p)); err == nil {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
