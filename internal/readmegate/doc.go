// Package readmegate holds one test: that docs/sql.md's sections "What the
// gate allows", "What the gate rewrites" and "What the gate refuses" and the
// determinism and safety gates of the three dialects agree. Every construct
// those sections name has a representative statement in the test's table,
// tagged with the docs phrase, and each statement gets the verdict the docs
// promise from SQLite's (the backend's Analyze), PostgreSQL's
// (backend/postgres/pggate) and MySQL's (backend/mysql/mysqlgate) gate.
// (The package keeps its name from when the sections were in README.md.)
package readmegate
