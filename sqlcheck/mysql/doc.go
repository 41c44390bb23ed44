// Package mysql is the MySQL dialect of relchain's determinism and safety
// gate (see package sqlcheck for the policy). Check parses a statement with
// the Vitess MySQL parser (Dolt's maintained fork,
// github.com/dolthub/vitess, pinned), walks every node of the parse tree in
// a fixed order and rejects anything that is not known to be deterministic
// and harmless. Analyze adds what an accepted statement does. Rewrite
// returns accepted texts unchanged: the backend pins the session variable
// timestamp to the block's time, so MySQL's clock functions read it.
package mysql
