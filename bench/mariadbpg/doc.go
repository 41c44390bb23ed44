// Package mariadbpg holds the test that runs the benchmark workloads
// (Smallbank, YCSB, TPC-C's statement form) in the postgres dialect on a
// real PostgreSQL and, translated by backend/mysql/pgdialect, on a real
// MariaDB: every statement must translate and give the same outcome, and
// each workload's own Check must hold on MariaDB's state. It has no code
// of its own.
package mariadbpg
