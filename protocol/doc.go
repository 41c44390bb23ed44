// Package protocol names the consensus protocol versions relchain knows:
// what each version changes, which of them this binary can run, and the
// system statements that schedule an upgrade on chain and cancel it.
//
// A protocol version is the rule book a block is executed by. It is
// CometBFT's app version: every block header carries it (Version.App),
// the chain records the active version and any scheduled upgrade in its
// system state (package app), and every behaviour that differs between
// versions is keyed by the version of the block being executed, never by
// the binary. A binary that can run versions 1..Max() replays any chain
// whose blocks use those versions and reproduces every AppHash; it stops,
// naming the release it needs, before the first block of a version it does
// not know.
//
// The versions:
//
//	1  everything relchain 0.1 does (the chain's version from genesis).
//	2  the AppHash also commits to the protocol version: its preimage is
//	   tagged "relchain/apphash/v5" and starts with the block's version
//	   (app.AppHashInputs), so two nodes that executed a block under
//	   different rule books can never sign the same AppHash.
//	3  on PostgreSQL storage, DEFERRABLE INITIALLY DEFERRED constraints
//	   are checked at the end of each tx, as PostgreSQL checks them at
//	   COMMIT (under 1 and 2: at the end of each statement), and a tx may
//	   run SET CONSTRAINTS (under 1 and 2: refused as a session setting);
//	   see backend/postgres/deferred.go. Other storage is unchanged.
//	4  the AppHash also commits to the authenticated state: a statetree
//	   per replicated table over its canonical rows (package rowcanon),
//	   keyed by primary key, and the tables map over their roots, whose
//	   root enters the AppHash at a fixed place (app.AppHashInputs), so a
//	   client can check one row, an absent key or a key range against a
//	   header (issue 36). A table without canonical form (no primary key,
//	   a type or a value rowcanon has no form for) is left out of the map;
//	   storage without canonical rows (the sqlite dialect) authenticates
//	   no table.
//	5  the AppHash commits to canonical state only, the same on every
//	   database engine (issue 37): the results (rows of a statement
//	   without ORDER BY in canonical order, effect digests of canonical
//	   rows), the system state, the sequences' canonical state and the
//	   tables map of version 4; the engines' own change and state digests
//	   stay node-local checks. Every table must be in the map: DDL that
//	   leaves a table without canonical form (no primary key, a type
//	   rowcanon has no form for) fails. Only networks speaking
//	   PostgreSQL's SQL run it (genesis protocol_version 5, or an
//	   upgrade); new networks start at DefaultGenesis (4).
//
// Max is Latest unless the build lowers it (maxVersionOverride, set with
// -ldflags "-X github.com/relchain/relchain/protocol.maxVersionOverride=1"):
// the way to build "the previous release" for upgrade tests. The override
// can only lower the maximum; a release build leaves it empty.
package protocol
