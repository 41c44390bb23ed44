// Package gateway lets unmodified PostgreSQL clients (psql, pgx, lib/pq,
// node-postgres, ORMs) use a relchain network: it joins the wire-protocol
// server of package pgwire to the chain.
//
// A connection's user name picks a signing key from the users file
// (users.go); every write is signed with it, so on-chain permissions apply
// per user. What a statement becomes (session.go, classify.go):
//
//   - a read outside a transaction: one read on a node's committed state,
//     at a height no lower than the session's last commit (read-your-writes);
//   - a write outside a transaction: one bc-transaction, answered once it
//     is committed, with the chain's results;
//   - BEGIN … COMMIT: every statement is rehearsed on committed state (the
//     node's /rehearse path, rolled back at once, no lock kept while the
//     client thinks); COMMIT submits all statements with what the client
//     observed of each, and the block applies them only if it observes the
//     same (else SQLSTATE 40001); SAVEPOINT, RELEASE and ROLLBACK TO mark
//     and cut that statement list (savepoint.go); a catalog read the block
//     gate refuses is answered on the read path at the transaction's
//     snapshot height, outside the bc-transaction (Config.Classifier decides what reads
//     catalogs only: the gateway links no parser);
//   - session statements (SET, SHOW, RESET, SELECT version(), DISCARD,
//     DEALLOCATE) are answered by the gateway and never reach the chain; a
//     change of a reported setting goes to the client as ParameterStatus.
//
// The same code runs inside a node (relchain node --pg-listen; reads go to
// the node's application in process) and as a standalone gateway in front
// of several nodes (relchain gateway).
package gateway
