// Package mysql implements backend.Backend on MySQL 8 and MariaDB 10.11+
// with go-sql-driver/mysql.
//
// One dedicated connection executes blocks (START TRANSACTION ... COMMIT,
// a SAVEPOINT per bc-transaction); a pool of connections answers Query in
// read-only, consistent-snapshot transactions. Open creates the node's
// database if needed (utf8mb4, utf8mb4_bin), checks the server
// (lower_case_table_names=1, InnoDB) and installs relchain's relchain_*
// tables and per-table capture triggers, which write a JSON image of every
// changed row into relchain_changes for the change and state digests.
//
// Every connection pins the session settings that affect results (time
// zone, sql_mode, collation, division scale, isolation, ...); Savepoint
// pins the session's timestamp to the block time, so NOW() and friends are
// deterministic, and tags change records with the tx's index.
//
// MySQL commits DDL implicitly. A DDL statement is therefore accepted only
// before every other change of its block, and runs under a committed
// recovery record, so that a node that stops between the DDL and the
// block's commit replays the block correctly. See DESIGN.md in this
// directory ("DDL and its recovery record") for the details, and
// backend/DESIGN.md for the contract difference.
//
// A node runs on two least-privilege accounts (SetupAccounts; Open refuses
// privileged ones unless WithUnsafeSuperuser), Query runs under a time,
// row and byte budget on its own pool, and a block statement whose
// context ends is killed on the server (KILL QUERY from the writer's own
// account). See DESIGN.md in this directory.
//
// Checkpoints (WithCheckpoints) are a logical dump taken in one
// consistent snapshot together with its height; RestoreCheckpoint and
// SwapDatabases serve node recovery and state sync. Dump writes the
// replicated tables as MariaDB's SQL; DumpPostgres, for a database of the
// postgres SQL dialect, as PostgreSQL's SQL (the text a PostgreSQL or
// SQLite validator's dump is), so that a MariaDB validator can move to
// another engine and its checkpoints serve nodes of other engines.
package mysql
