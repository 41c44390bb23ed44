// Package ops holds the operator's tools on a node home, what the
// relchain commands of the same names run: TakeCheckpoint and Backup
// (relchain checkpoint, relchain backup), Restore (relchain restore, from a
// backup file, with CometBFT's offline state-sync bootstrap), Recover
// (relchain recover, and relchain node's on_mismatch = "recover"), Verify
// (relchain verify) and Dump (relchain dump). They run beside or instead
// of a node, never inside one.
//
// One package, not one per tool: backup, restore and recover share the
// backup file's manifest and progress reporting and the same staging of a
// checkpoint (internal/dbrestore), and each is a page or two; splitting
// them would only export what they share.
//
// Layering (internal/lint): ops imports node for a home's configuration
// and layout (LoadConfig, CheckpointDir, Config.BackendSpec, the halt
// record); node never imports ops. What both need (restoring a checkpoint
// beside the live database, opening CometBFT's stores, the light client)
// lives below both, in internal/dbrestore and internal/cometstore: the
// running node's state sync installs a snapshot exactly as Recover does.
package ops
