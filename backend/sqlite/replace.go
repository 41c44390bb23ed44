package sqlite

// REPLACE conflict resolution.
//
// When REPLACE resolves a uniqueness conflict (INSERT OR REPLACE, REPLACE
// INTO, UPDATE OR REPLACE, or a constraint declared ON CONFLICT REPLACE),
// SQLite deletes the conflicting rows without firing delete triggers
// (recursive_triggers is pinned off). relchain's capture triggers then
// record only the new row: the deleted row's image stays in the stored
// table sums, which stop matching a scan of the table, and relchain
// verify, state sync and recover from a checkpoint fail on every node
// alike. So the gate refuses REPLACE as a conflict algorithm in client
// statements, view and trigger bodies and table definitions; the upsert
// (INSERT ... ON CONFLICT (key) DO UPDATE SET ...) says the same thing as
// an UPDATE, which the triggers see. The replace() string function is
// unaffected.

const replaceMessage = "REPLACE conflict resolution (INSERT OR REPLACE, REPLACE INTO, UPDATE OR REPLACE, ON CONFLICT REPLACE) is not allowed: SQLite deletes the conflicting rows without telling relchain's change capture; write INSERT ... ON CONFLICT (key) DO UPDATE SET ... instead"

// replaceRefusal returns replaceMessage if a statement's tokens use REPLACE as a conflict
// algorithm: the bare keyword anywhere but as the name of a function call
// (a quoted "replace" is an identifier, not the keyword).
func replaceRefusal(toks []sqlToken) string {
	for i, t := range toks {
		if t.word && t.text == "replace" && (i+1 == len(toks) || toks[i+1].text != "(") {
			return replaceMessage
		}
	}
	return ""
}
