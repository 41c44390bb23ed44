// Package conflict derives, from a block's statement texts and arguments,
// which of its bc-transactions may conflict (issue 38): each tx's read and
// write sets, table-wide or refined to primary-key values where a
// statement's text and arguments pin them, and from those a schedule of
// independent groups that may run on separate connections. Both are pure
// functions of the block and the committed schema (a Catalog), never of
// the database's rows, so every node draws the same schedule — and the
// schedule cannot change a result in any case: a group's transactions run
// in block order, and transactions of different groups touch nothing in
// common. Whatever the analysis cannot bound (DDL, user functions, opaque
// tables, views) conflicts with everything.
//
// Analyze gives one statement's Access, Access.Add a tx's, Schedule the
// groups of a block (Plan) and Assign the groups' lanes. DESIGN.md gives
// the soundness argument and every rule.
package conflict
