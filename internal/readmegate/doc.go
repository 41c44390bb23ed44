// Package readmegate holds one test: that README.md's section "What SQL a
// transaction may contain" and the determinism and safety gates of the
// three dialects agree. Every construct the Allowed, Rewritten and Refused
// bullets name has a representative statement in the test's table, tagged
// with the README phrase, and each statement gets the verdict the README
// promises from SQLite's (the backend's Analyze), PostgreSQL's
// (backend/postgres/pggate) and MySQL's (backend/mysql/mysqlgate) gate.
package readmegate
