// Package workload defines what a benchmark workload is: a schema and an
// initial state given as deterministic SQL, a seeded stream of
// wl-transactions per client, the tables that make up its state, and the
// consistency conditions that must hold after a run. Workloads (packages
// smallbank, tpcc, ycsb beside this one) know nothing of the chain: the
// same statements run through relchain and on the raw baseline database.
package workload
