// Package mysqltest gives tests a MySQL/MariaDB database of their own.
//
// DSN(t) creates a fresh, empty database (utf8mb4, collation utf8mb4_bin)
// with a unique name on a test server and drops it when the test ends. The
// server is the one named by RELCHAIN_TEST_MYSQL (a go-sql-driver/mysql DSN
// of a user that may create databases, e.g. root@tcp(127.0.0.1:3307)/), or
// else one private MariaDB server per test process, started lazily with
// mariadb-install-db and mariadbd (package mysqlserver). Call
// mysqltest.Main(m) from TestMain so the private server stops when the
// tests end. When no server can be found the test fails with
// instructions, or skips if RELCHAIN_SKIP_MYSQL=1 — exactly as package
// pgtest does for PostgreSQL.
//
// Tests never use the system server on port 3306.
package mysqltest
