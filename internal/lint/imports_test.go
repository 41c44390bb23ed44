package lint

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

type pkg struct {
	ImportPath string
	Deps       []string
}

const mod = "github.com/relchain/relchain"

// rules: a package (prefix) must not depend, even indirectly, on these.
var rules = []struct {
	pkg       string
	forbidden []string
	why       string
}{
	{mod + "/backend", []string{mod + "/app", mod + "/node", mod + "/client", "github.com/cometbft/cometbft"}, "a backend only runs SQL; it knows nothing of consensus"},
	{mod + "/txn", []string{"github.com/", mod + "/"}, "the envelope depends on the standard library only"},
	{mod + "/api", []string{"github.com/", mod + "/"}, "the wire contract depends on the standard library only"},
	{mod + "/client", []string{mod + "/app", mod + "/backend", mod + "/node"}, "clients speak RPC only"},
	{mod + "/test", []string{mod + "/app", mod + "/backend"}, "black-box tests speak RPC only"},
	{mod + "/app", []string{mod + "/node", mod + "/client", mod + "/cmd"}, "the application is driven, it does not drive"},
}

func TestDependencyRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-json=ImportPath,Deps", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		for _, r := range rules {
			if p.ImportPath != r.pkg && !strings.HasPrefix(p.ImportPath, r.pkg+"/") {
				continue
			}
			for _, d := range p.Deps {
				for _, f := range r.forbidden {
					if (d == f || strings.HasPrefix(d, f)) && !strings.HasPrefix(d, r.pkg) {
						t.Errorf("%s depends on %s: %s", p.ImportPath, d, r.why)
					}
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list found only %d packages; is the module root right?", n)
	}
}
