// Package dbproc holds what the private database servers of tests and
// benchmarks (internal/pgserver, internal/mysqlserver) do alike: run a
// server binary as its own unprivileged OS user when this process is root,
// pick a free loopback port, tell whether a process is alive, and quote the
// end of a log.
package dbproc
