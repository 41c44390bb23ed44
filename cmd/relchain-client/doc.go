// Command relchain-client is relchain's client commands without the
// databases: exec, query, tx, status, keys and admin (the same commands,
// flags and output as relchain's, built by cmd/internal/clientcmd) and
// version. It links no database driver, no SQL parser, no backend and no
// cgo (internal/lint checks it with `go list -deps`), so it builds without
// a C toolchain and stays small: for an application's host, a CI job or an
// operator's laptop that talks to a network but runs no node.
//
// What relchain learns about a local network through its node-side
// packages, relchain-client reads from the files themselves
// (clientcmd.FileEnv): status --net lists a network directory's nodes.json
// and each node home's halt record.
package main
