// Package pgsetup creates the least-privilege PostgreSQL roles and database
// of a relchain node, given an administrator's DSN, and prints the SQL an
// operator runs instead on a production server.
//
// A node connects as two roles, neither a superuser nor a member of any
// other role:
//
//   - the writer (<db>_writer) owns the database, its schema public and
//     relchain's own schema relchain; it executes blocks. It may create
//     databases (CREATEDB), which recovery needs.
//   - the reader (<db>_reader) may connect and SELECT the tables of public
//     (granted by the writer, see backend/postgres) and relchain's height
//     and table sums; it answers queries.
//
// The node's DSN names the writer. The reader is found from it (see
// SplitDSN): by default it is the role of the same name ending in _reader
// instead of _writer, with the same password (both live in the node's
// relchain.toml either way); the DSN parameters relchain_reader and
// relchain_reader_password name another role or password. The package
// imports nothing of relchain, so that test helpers may use it.
package pgsetup
