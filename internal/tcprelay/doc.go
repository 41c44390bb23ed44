// Package tcprelay forwards TCP connections byte for byte to one target
// address, in process. The benchmark lab uses it to measure the floor of a
// front end that is a hop of its own (bench/gwrelay.go); the fault
// harness uses it to let nodes in network namespaces reach a database
// server that listens on the host's loopback only, and (StartDelayed) to add
// one-way latency to each p2p link where the kernel has no netem (test/e2e's
// delay perturbation).
package tcprelay
