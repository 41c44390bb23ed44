// Package sqlstore is what the PostgreSQL and MySQL backends do the same
// way, whatever their driver: reading relchain's bookkeeping tables (the
// stored table sums of the state digest and the system key-value state),
// reading state in one snapshot, the checks and steps of Begin and Close,
// and running background checkpoints. It takes rows through Rows, which
// both *database/sql.Rows and pgx.Rows satisfy, and a snapshot through
// Snapshot, which each backend opens its own way; the SQL stays in each
// backend.
package sqlstore
