// Package pgwire is the protocol core of a PostgreSQL wire-protocol (version 3.0) server.
//
// It speaks the protocol psql, pgx, lib/pq, node-postgres and ORMs expect: the startup
// handshake (SSLRequest/TLS, GSSENCRequest refusal, CancelRequest), SCRAM-SHA-256
// authentication, the simple query protocol and the extended query protocol (Parse, Bind,
// Describe, Execute with row limits, Close, Sync, Flush). What a statement means is not
// decided here: every connection gets a Session from Server.NewSession, and the Session
// splits, describes and executes statements. pgwire only converts between wire formats
// (text and binary, via pgx's pgtype) and Go values.
//
// Server.Limits bounds what clients can hold: connections per listener and per address
// (refused with 53300), the startup, idle-session (57P05), idle-in-transaction (25P03) and
// write timeouts, the size of every message and the memory of a connection's statements and
// portals. Malformed or unsupported messages get a protocol error, never Go's text.
//
// The package imports no relchain package so that it can be tested against real clients
// with an in-memory Session; see DESIGN.md for the protocol choices.
package pgwire
