// Package pgdialecttest runs a PostgreSQL statement on a real PostgreSQL
// and, translated by backend/mysql/pgdialect, on a real MariaDB, and
// renders both outcomes alike (rows as PostgreSQL's text, rows affected,
// SQLSTATE class): the differential harness of the dialect's tests and of
// the benchmark workloads' test (bench/mariadbpg). The servers are the
// test servers of backend/postgres/pgtest and backend/mysql/mysqltest.
package pgdialecttest
