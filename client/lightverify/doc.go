// Package lightverify gives a relchain client block headers it can trust
// without trusting the node that serves them: CometBFT's light client
// (github.com/cometbft/cometbft/light) checks every header it hands out
// against the validators' signatures, from a trust root the user chose.
//
// A trust root is either the genesis file the user trusts (FromGenesis:
// its chain ID and validator set; header 1 must be signed by that set
// and name it, then header 1 is trusted) or a header the user trusts
// (FromHeader: a height and its hash, as light.TrustOptions).
//
// What relchain needs from a header is an AppHash: the AppHash of block
// H, which commits to every authenticated row of the state after H
// (docs/authenticated-state.md), is carried by the header of height H+1.
// Verifier.AppHashAfter returns it, waiting (bounded by the context) for
// header H+1 when H is the latest block: CometBFT makes a block after one
// that changed the AppHash. When the chain idles after block H, its
// last block H+1 left the AppHash unchanged and no header H+2 is ever
// made; Verifier.Latest then gives the newest header, whose AppHash is
// the state after its parent block, which a proof may be checked
// against instead (client.VerifiedGet does).
package lightverify
