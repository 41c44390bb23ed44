// Package pgtest gives tests a PostgreSQL database of their own.
//
// DSN(t) creates a fresh, empty database (UTF8, collation C) with a unique
// name on a test server and drops it when the test ends. The server is the
// one named by RELCHAIN_TEST_PG (a superuser DSN), or else one private
// cluster per test process, started lazily with initdb and postgres found on
// PATH or under /usr/lib/postgresql/*/bin (newest version). Call
// pgtest.Main(m) from TestMain so the private cluster stops when the tests
// end. When no server can be found the test fails with instructions, or
// skips if RELCHAIN_SKIP_PG=1.
//
// Start and Server are also used by cmd/pgserver, which scripts use to run
// one shared cluster for every test package.
//
// When the process runs as root, initdb and postgres run as the "postgres"
// OS user: they refuse to run as root.
package pgtest
