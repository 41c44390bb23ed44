package gateway

import (
	"context"
	"errors"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/pgwire"
)

// Start refuses a Config without a Classifier: going without the
// parser's answers is chosen (Conservative), never fallen into.
func TestStartRefusesNoClassifier(t *testing.T) {
	_, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Nodes: []string{"http://127.0.0.1:1"}, Dialect: "sqlite"})
	if !errors.Is(err, errNoClassifier) {
		t.Fatalf("Start without a Classifier: %v, want errNoClassifier", err)
	}
}

// recordingClassifier answers yes and records the questions.
type recordingClassifier struct{ catalog, plain []string }

func (r *recordingClassifier) CatalogOnly(sql string) bool {
	r.catalog = append(r.catalog, sql)
	return true
}

func (r *recordingClassifier) PlainWrite(sql string) bool {
	r.plain = append(r.plain, sql)
	return true
}

// The session asks the gateway's Classifier both questions, and with
// Conservative neither path is taken.
func TestSessionAsksTheClassifier(t *testing.T) {
	rec := &recordingClassifier{}
	refused := &api.RehearseResponse{Code: api.CodeForbidden, Failure: &api.FailureData{Statement: 1}}
	unknown := &pgwire.Error{Code: "42P01", Message: `relation "t" does not exist`}
	for _, c := range []struct {
		classify Classifier
		want     bool
	}{{rec, true}, {Conservative{}, false}} {
		s := &session{g: &Gateway{wire: dialect.Wire{PGCatalog: true}, classify: c.classify}, tx: &transaction{ddl: true}}
		if got := s.catalogRead(refused, 1, kindRead, "select 1 from pg_class"); got != c.want {
			t.Errorf("%T: catalogRead = %v, want %v", c.classify, got, c.want)
		}
		if _, got := s.describeAfterDDL("insert into t values (1)", nil, unknown); got != c.want {
			t.Errorf("%T: describeAfterDDL = %v, want %v", c.classify, got, c.want)
		}
	}
	if len(rec.catalog) != 1 || rec.catalog[0] != "select 1 from pg_class" || len(rec.plain) != 1 || rec.plain[0] != "insert into t values (1)" {
		t.Fatalf("the classifier was asked CatalogOnly %q, PlainWrite %q", rec.catalog, rec.plain)
	}
}
