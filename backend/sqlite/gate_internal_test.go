package sqlite

import (
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// Every action code SQLite's authorizer passes has its own policy entry
// (AUTH_COPY, 0, is no longer used and falls to unknownAction).
func TestPoliciesCoverEveryActionCode(t *testing.T) {
	for a := sqlite3.AUTH_CREATE_INDEX; a <= sqlite3.AUTH_RECURSIVE; a++ {
		if policies[a].judge == nil {
			t.Errorf("authorizer action %d has no policy", int(a))
		}
	}
	if policies[0].judge != nil {
		t.Error("AUTH_COPY (no longer used) has a policy")
	}
}

// DDL kinds, and those whose code SQLite generates with nested statements
// over sqlite_schema, are exactly these.
func TestPoliciesDDLKinds(t *testing.T) {
	ddl := map[sqlite3.AuthorizerActionCode]bool{
		sqlite3.AUTH_CREATE_TABLE: true, sqlite3.AUTH_CREATE_VIEW: true, sqlite3.AUTH_CREATE_INDEX: true,
		sqlite3.AUTH_CREATE_TRIGGER: true, sqlite3.AUTH_DROP_TABLE: true, sqlite3.AUTH_DROP_VIEW: true,
		sqlite3.AUTH_DROP_INDEX: true, sqlite3.AUTH_DROP_TRIGGER: true, sqlite3.AUTH_ALTER_TABLE: true,
	}
	rewrites := map[sqlite3.AuthorizerActionCode]bool{
		sqlite3.AUTH_ALTER_TABLE: true, sqlite3.AUTH_DROP_TABLE: true, sqlite3.AUTH_DROP_VIEW: true,
		sqlite3.AUTH_DROP_INDEX: true, sqlite3.AUTH_DROP_TRIGGER: true,
	}
	for a, p := range policies {
		code := sqlite3.AuthorizerActionCode(a)
		if p.ddl != ddl[code] {
			t.Errorf("authorizer action %d: ddl = %v", a, p.ddl)
		}
		if p.rewritesSchema != rewrites[code] {
			t.Errorf("authorizer action %d: rewritesSchema = %v", a, p.rewritesSchema)
		}
	}
}

// recordFunction relies on it: a function on the allowlist is never
// recorded as rewritten.
func TestAllowedAndRewrittenFunctionsAreDisjoint(t *testing.T) {
	for fn := range rewrittenFunctions {
		if allowedFunctions[fn] {
			t.Errorf("%s is both allowed as it is and rewritten", fn)
		}
	}
}
