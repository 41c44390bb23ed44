// Command relchain-bench is relchain's benchmark lab: it measures the
// paper's workloads (Smallbank, TPC-C, YCSB, the update micro-workload) on
// local networks of relchain nodes or on existing ones (`relchain-bench`),
// measures the PostgreSQL gateway (`relchain-bench gateway`), and
// regenerates the paper's evaluation (`relchain-bench paper`). It is a
// binary of its own so that the node binary does not link the workloads,
// the charts (gonum/plot) or the private test-database launchers;
// `relchain bench …` forwards here.
//
// The networks it starts run the relchain node binary: $RELCHAIN_BIN when
// set (`relchain bench` sets it to itself), else the relchain next to this
// executable, else relchain in PATH.
package main
