package pggate

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// TestDeparseRoundTrip: for every statement of the corpus the gate
// accepts, PostgreSQL's deparse parses back to the same tree (source
// positions aside). Rewrite relies on it; buildTemplate checks it again for
// every statement it rewrites, and rejects the statement otherwise.
func TestDeparseRoundTrip(t *testing.T) {
	n := 0
	for _, c := range corpus {
		if check(c.SQL) != nil {
			continue
		}
		n++
		tree, err := pg_query.Parse(c.SQL)
		if err != nil {
			t.Fatal(err)
		}
		text, err := pg_query.Deparse(tree)
		if err != nil {
			t.Errorf("%q: deparse: %v", c.SQL, err)
			continue
		}
		back, err := pg_query.Parse(text)
		if err != nil {
			t.Errorf("%q: deparse %q does not parse: %v", c.SQL, text, err)
			continue
		}
		stripPositions(tree.ProtoReflect())
		stripPositions(back.ProtoReflect())
		if !proto.Equal(tree, back) {
			t.Errorf("%q: deparse %q parses to another tree", c.SQL, text)
		}
	}
	t.Logf("%d accepted corpus statements round-trip", n)
}
