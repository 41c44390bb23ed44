// Package netctl creates relchain networks (node homes with a shared genesis
// and persistent peers) and runs them as child processes on one machine,
// with the controls tests and benchmarks need: start, stop, kill -9,
// restart, pause (SIGSTOP/SIGCONT), partitions and disconnections (each node
// in a network namespace of its own: namespace.go), and waiting until every
// node has committed a block.
package netctl
