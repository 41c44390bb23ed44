// Package tcprelay forwards TCP connections byte for byte to one target
// address, in process. The benchmark lab uses it to measure the floor of a
// front end that is a hop of its own (bench/gwrelay.go); the fault
// harness uses it to let nodes in network namespaces reach a database
// server that listens on the host's loopback only (test/e2e).
package tcprelay
