// Package ycsb is the Yahoo! Cloud Serving Benchmark's core workloads A, B,
// C and F (Cooper et al., SoCC 2010) as a relchain workload, as the hybrid
// blockchain database paper (VLDB 2022) uses them to compare blockchain
// databases.
//
// # Schema and keys
//
//	usertable (ycsb_key TEXT PRIMARY KEY (VARCHAR(64) but on SQLite's own dialect), field0 TEXT, ..., field9 TEXT)
//
// YCSB's table: Options.Records records (default 100,000) of
// Options.Fields fields (default 10) of Options.FieldLength characters
// (default 100), i.e. 1 KB records. Record number i has YCSB's key "user"
// followed by the FNV-1a hash of i (Key; YCSB's default
// orderedinserts=false), so keys are spread over the index as in YCSB.
// Values are printable ASCII ('!' to '`', 64 characters, 6 bits each)
// drawn from PCG generators: Setup's value of field f of record i is a
// function of (i, f) (InitialValue); an update's value comes from the
// client's seeded generator. Values are always passed as parameters.
//
// # Setup
//
// One bc-transaction creates the table; then the records are inserted in
// order with multi-row INSERT INTO usertable (ycsb_key, field0, ...)
// VALUES (?1, ..., ?11), (?12, ...), ... statements of at most 372 rows
// (4,092 arguments; relchain allows 4,096 per statement), as many
// statements per bc-transaction as fit workload.MaxSetupBytes, so 100,000
// records take 123 bc-transactions of about 894 KiB each (plus the DDL);
// they load in about 10 s on SQLite through the in-process harness.
//
// # Transactions
//
// Each wl-transaction touches one record chosen by the request
// distribution:
//
//   - Read, read-only (served by the query path): SELECT ycsb_key,
//     field0, ..., field9 FROM usertable WHERE ycsb_key = ?1 (YCSB's
//     readallfields=true).
//   - Update: UPDATE usertable SET field<f> = ?1 WHERE ycsb_key = ?2, one
//     field f chosen uniformly, with a new value (YCSB's
//     writeallfields=false).
//   - ReadModifyWrite: the Read, then the Update, in one write
//     wl-transaction (one savepoint).
//
// Options.Workload chooses the mix: "a" 50 % Read / 50 % Update (default),
// "b" 95 / 5, "c" 100 % Read, "f" 50 % Read / 50 % ReadModifyWrite.
// Options.Distribution chooses records:
//
//   - "uniform" (default, as in the hybrid blockchain database paper):
//     every record equally likely.
//   - "zipfian": YCSB's ScrambledZipfianGenerator, i.e. the zipfian
//     generator of Gray et al. ("Quickly generating billion-record
//     synthetic databases", SIGMOD 1994) with constant 0.99 over YCSB's
//     10^10 items (with YCSB's precomputed zeta, 26.469...), each draw
//     hashed with FNV onto the records: a few records are hot, scattered
//     over the key space.
//   - "latest": YCSB's SkewedLatestGenerator, Records-1 minus a zipfian
//     draw (constant 0.99) over Records items: the most recently inserted
//     (highest-numbered) records are the hottest.
//
// Workloads D and E need inserts and scans, which the paper does not use.
// Statements use no clock, random() or LIMIT and pass relchain's gate on
// both dialects; placeholders are ?n on SQLite and $n on PostgreSQL.
//
// # Consistency check
//
// Check verifies that usertable holds exactly Records records, that no
// field of any record is NULL or of a length other than FieldLength, that
// the keys are exactly Key(0..Records-1) (read in pages of 10,000 by
// primary key), that every committed Update or ReadModifyWrite changed one
// row (and the read of a ReadModifyWrite found its record), and that every
// record a committed wl-transaction updated holds the last value written
// to each updated field and its initial value in every other field.
package ycsb
