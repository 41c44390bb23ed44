// Package serverdb is what the PostgreSQL and MySQL test-database support
// (backend/postgres/pgtest, backend/mysql/mysqltest) shares: running a
// database server binary as its own OS user when this process is root,
// starting it on a free loopback port, waiting until it answers, stopping
// it (process.go, daemon.go), and the one server a test process shares,
// found through an environment variable or started privately and lazily
// (testserver.go). Command testdb (cmd/testdb) starts and stops either
// kind of server for scripts.
package serverdb
