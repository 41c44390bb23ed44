// Command testdb starts a private PostgreSQL cluster or MariaDB server for
// tests and prints its superuser DSN, so that a test script can start one
// server and hand it to every test package through RELCHAIN_TEST_PG or
// RELCHAIN_TEST_MYSQL:
//
//	export RELCHAIN_TEST_PG=$(go run ./backend/internal/serverdb/cmd/testdb -kind postgres -dir /tmp/relchain-pg)
//	export RELCHAIN_TEST_MYSQL=$(go run ./backend/internal/serverdb/cmd/testdb -kind mysql -dir /tmp/relchain-mysql)
//	go test ./...
//	go run ./backend/internal/serverdb/cmd/testdb -kind postgres -dir /tmp/relchain-pg -stop
//
// By default the server is detached (it outlives testdb) and testdb exits
// after printing the DSN; if a server already runs on -dir, its DSN is
// printed. With -foreground testdb keeps the server until it receives
// SIGINT or SIGTERM. The PostgreSQL DSN is a postgres:// URL, the MariaDB
// one a go-sql-driver/mysql DSN.
package main
