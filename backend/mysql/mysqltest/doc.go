// Package mysqltest gives tests a MySQL/MariaDB database of their own.
//
// DSN(t) creates a fresh, empty database (utf8mb4, collation utf8mb4_bin)
// with a unique name on a test server and drops it when the test ends. The
// server is the one named by RELCHAIN_TEST_MYSQL (a go-sql-driver/mysql DSN
// of a user that may create databases, e.g. root@tcp(127.0.0.1:3307)/), or
// else one private MariaDB server per test process, started lazily with
// mariadb-install-db and mariadbd (Start, server.go). Call
// mysqltest.Main(m) from TestMain so the private server stops when the
// tests end. When no server can be found the test fails with
// instructions, or skips if RELCHAIN_SKIP_MYSQL=1 — exactly as package
// pgtest does for PostgreSQL.
//
// Tests never use the system server on port 3306.
//
// The server (Start, server.go; scripts use it through
// backend/internal/serverdb/cmd/testdb) is configured the way relchain
// wants every MySQL-family validator to be: InnoDB durable at every commit
// (innodb_flush_log_at_trx_commit=1, doublewrite on, no binary log),
// utf8mb4 with collation utf8mb4_bin by default, time zone +00:00 and a
// strict sql_mode. The backend pins its session settings itself; the
// server defaults only make a hand-made connection behave the same. The
// superuser is root with an empty password, over TCP from 127.0.0.1.
//
// When the process runs as root, mariadb-install-db and mariadbd run as the
// "mysql" OS user, and the root directory is chowned to it: the data
// directory, pid file, socket and error log all live there.
package mysqltest
