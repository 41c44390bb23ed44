// Package pgserver starts and stops private PostgreSQL clusters: a data
// directory under a given root, initdb and postgres found on PATH or under
// /usr/lib/postgresql/*/bin (newest version), one postmaster on a free
// loopback port and a Unix socket in the root, superuser "postgres" with
// trust authentication. Tests use it through package pgtest; scripts
// through cmd/pgserver; `relchain bench paper` directly, for a durable
// cluster of its own. It does not import package testing, so the relchain
// binary can link it.
//
// When the process runs as root, initdb and postgres run as the "postgres"
// OS user: they refuse to run as root.
package pgserver
