// Package pgtest gives tests a PostgreSQL database of their own.
//
// DSN(t) creates a fresh, empty database (UTF8, collation C) with a unique
// name on a test server, with the least-privilege writer and reader roles
// a node connects as (package backend/postgres/pgsetup), and drops them
// when the test ends; the DSN it returns connects as the writer, never a
// superuser. AdminDSN(t) is the superuser's DSN of a fresh database, for
// tests about superusers or that tamper with a node's database. The server is the
// one named by RELCHAIN_TEST_PG (a superuser DSN), or else one private
// cluster per test process, started lazily with initdb and postgres found on
// PATH or under /usr/lib/postgresql/*/bin (newest version). Call
// pgtest.Main(m) from TestMain so the private cluster stops when the tests
// end. When no server can be found the test fails with instructions, or
// skips if RELCHAIN_SKIP_PG=1.
//
// The cluster itself is started by Start (server.go), which scripts
// (through backend/internal/serverdb/cmd/testdb) and `relchain bench paper`
// use directly, for a durable cluster of its own. What pgtest shares with
// package mysqltest (running a server binary, the one test server of a
// process) is package backend/internal/serverdb.
//
// When the process runs as root, initdb and postgres run as the "postgres"
// OS user: they refuse to run as root.
package pgtest
