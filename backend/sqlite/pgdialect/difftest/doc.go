// Package difftest checks the postgres dialect on SQLite, and on MariaDB,
// against PostgreSQL itself (issue 35, item 3; issue 37, item 3): every
// statement of a corpus, and statements generated at random in the style
// of SQLancer's differential testing, runs on a real PostgreSQL server
// and, translated by
// backend/sqlite/pgdialect, on SQLite; any difference in column names,
// column types, rows, rows affected or error class fails the test.
//
// The package is tests only. Each statement first passes PostgreSQL's gate
// (backend/postgres/pggate: Check, then Rewrite with a fixed environment),
// as in a block; a statement the gate refuses is skipped, one the
// translator refuses (SQLSTATE 0A000) is counted as a refusal and run on
// neither engine, so both keep the same state. Every other statement runs
// on both and is compared:
//
//   - error class: both fail with the same SQLSTATE class, or both succeed;
//   - column names and PostgreSQL types (name and type modifier: the
//     Describe Statement of the statement that ran, parse analysis's
//     types, against Translation.Columns; a portal's RowDescription can
//     carry a narrower typmod the planner's folding found, pgdialect/
//     DESIGN.md "Known differences");
//   - rows, as relchain's results carry them (int64, float64, string,
//     []byte, bool, nil: PostgreSQL's text results converted as the
//     PostgreSQL backend converts them, SQLite's by pgruntime.Value), in
//     order when the statement's top-level ORDER BY is total (it covers
//     every output column, or the corpus marks it), as a multiset
//     otherwise; rows an ORDER BY leaves tied (equal numerics of different
//     display scales) may come in either order;
//   - rows affected (INSERT, UPDATE, DELETE, MERGE).
//
// A difference PostgreSQL's plan decides (the order it tests conditions
// in, whether it runs a set operation's arm or a subquery to its end,
// whether an INSERT's SELECT is read before the rows are inserted, which
// of equal numerics it shows) is counted apart, as plan-dependent, only
// when both engines, asked the part in question alone, confirm its cause
// (plandep_test.go); any other difference is a discrepancy.
//
// Every case runs in a schema of its own on PostgreSQL (search_path set to
// it, the backend's pinned session settings, a database created with
// collation and ctype C) and on a fresh in-memory SQLite connection with
// pgruntime registered, so cases are independent.
//
// Sources: testdata/*.case (the format is described in
// testdata/README.md: hand-written semantic traps, the workloads' and ORMs'
// PostgreSQL SQL), the accepted statements of the PostgreSQL gate's corpus
// (backend/postgres/pggate/testdata/corpus.json), and a seeded random
// generator (random schema, rows, queries with WHERE, ORDER BY, GROUP BY,
// aggregates, joins, set operations, subqueries, CTEs, $n parameters,
// INSERT … ON CONFLICT, UPDATE and DELETE) that runs for RELCHAIN_DIFF_SECONDS
// from RELCHAIN_DIFF_SEED (default: the clock; printed at
// the start and with every failure, with the case number:
// RELCHAIN_DIFF_CASE=k replays case k alone). Its schemas use only the
// column types whose CREATE TABLE the translator accepts (the others are
// logged). It runs without the race detector (racetest.Heavy: in CI, the
// step after the race pass finds it). Without RELCHAIN_DIFF_SECONDS (make
// test, CI) it runs 50 seconds from seed 62, at most its first 1,390 cases
// (defaultRun): a fixed, replayable set the engines answer alike, so a
// failure there is a regression. `make test-dialect-diff` is the campaign
// that explores: 300 seconds by default from a new seed, where random runs
// still find a discrepancy every few minutes (the open ones: pgdialect/
// DESIGN.md, "Known differences", and the closing note of issue 35).
//
// The third column, MariaDB (maria_test.go; issue 37, item 3): in
// TestCorpus, TestGateCorpus and TestRandom every statement that runs on
// PostgreSQL also runs on a MariaDB validator's backend (backend/mysql in
// the postgres dialect: PostgreSQL's gate, the translation into MariaDB's
// SQL, results rendered as PostgreSQL's), on a database of the case's
// own, each statement in a block of its own as a node runs it (a
// "-- read" statement by Query). Its outcome is compared with
// PostgreSQL's as SQLite's is, the result column types taken from
// MariaDB's translation; a statement MariaDB's translation or its gate's
// read policy refuses is counted apart (a network with a MariaDB
// validator refuses it on every node), and a refused or plan-dependent
// write leaves the rest of the case uncompared on MariaDB. The column
// takes every corpus case and the first RELCHAIN_DIFF_MARIADB random
// cases (60 by default; "off" turns it off), on top of the random run's
// time budget. It runs where the tests find a MariaDB server
// (RELCHAIN_TEST_MYSQL, or a private one: backend/mysql/mysqltest), and
// says so when there is none (RELCHAIN_SKIP_MYSQL=1).
//
// On PostgreSQL, relchain's own schema is installed once (by opening the
// PostgreSQL backend), since the gate's rewrites call its functions
// (relchain.clock_guard, relchain.nextval), and each statement runs as a
// block runs it as far as results go (its own transaction, relchain.tx,
// relchain.sync_sequences after DDL, relchain.flush_sequences), so
// sequences are transactional as on a node; arguments are sent as the PostgreSQL backend
// sends them (int64 as int8, float64 as float8, bool, bytea; strings and
// NULL untyped) and, on SQLite, converted by pgruntime.Param.
//
// The tests need PostgreSQL: the server named by RELCHAIN_TEST_PG, or with
// RELCHAIN_DIFF_PG=private a private cluster (package
// backend/postgres/pgtest); otherwise they skip, saying so. With
// RELCHAIN_DIFF_FINDINGS=<file> every discrepancy is also appended to that
// file. TestComparatorFailsOnDifferences holds that planted differences
// fail, so the suite cannot pass vacuously.
package difftest
