//go:build testhooks

package mysql

// UnsafeWithoutGate turns the gate off (withoutGate), in test-hooks builds
// only (go build -tags testhooks): the node's backend.unsafe_no_gate, for
// benchmarks of the gate's cost. A default build has no way to do it.
func UnsafeWithoutGate() Option { return withoutGate() }
