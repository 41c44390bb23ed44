package lint

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// markerExts are the kinds of file a merge can leave markers in that no
// compiler would catch: documentation, scripts, configuration, SQL.
var markerExts = []string{".md", ".sh", ".toml", ".yml", ".yaml", ".json", ".sql", ".txt", ".py", ".js", ".java", ".go"}

// TestNoMergeConflictMarkers: a merge's conflict markers ("<<<<<<< ",
// ">>>>>>> ") committed in a page or script (app/DESIGN.md carried
// two for several sessions; Go code would not compile with them, a page
// renders them).
func TestNoMergeConflictMarkers(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "bench-results", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		if !hasAnySuffix(path, markerExts) {
			return nil
		}
		return checkMarkers(t, path)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

func checkMarkers(t *testing.T, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		if line := sc.Text(); strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s:%d: a merge conflict marker: %q", rel, n, line)
		}
	}
	return sc.Err()
}
