// Package bench holds relchain's workloads and the runner that measures
// them against a running network, as a library: the `relchain bench`
// command and testing.B benchmarks share it. It talks to nodes only through
// the client package.
package bench
