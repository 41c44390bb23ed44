// Package dialect describes each database relchain runs on without linking
// any of them: its name, whether it is a server reached by a DSN or a file
// in the node home, and what the PostgreSQL wire-protocol gateway must know
// of its SQL (Wire).
//
// It is the driver-free half of backend/registry, which adds how to open
// each database: the gateway and the e2e manifests ask this package, so the
// client side links no database driver (internal/lint's
// layering_neutral_test.go checks it). It imports only the standard
// library.
package dialect
