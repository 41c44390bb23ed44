// Package registry opens a backend by name. It holds one Driver per
// database relchain supports ("sqlite", "postgres", "mysql"): how to open
// it, whether it is a server reached by a DSN or a file in the node home,
// how a new node's least-privilege roles or accounts are prepared, and the
// checkpoint operations recover and state sync use. It is the only package
// outside backend/<db> that imports the concrete backends: node, netctl
// and cmd ask a Driver's fields instead of comparing database names.
//
// A test-hooks build (go build -tags testhooks) can also open a backend
// with its gate off (Spec.NoGate, relchain.toml backend.unsafe_no_gate);
// a default build refuses that with ErrNoGate.
package registry
