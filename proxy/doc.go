// Package proxy is the verifying side of relchain proxy (issue 36): a
// gateway.ReadVerifier that answers a PostgreSQL client's reads without
// trusting any one node. A read by primary key (recognised by
// PostgreSQL's parser, sqlcheck/pgclass.Classifier.KeyRead) is proven
// against a header CometBFT's light client verified from the user's
// trust root (client.VerifiedKeyRead); any other read needs f+1 nodes'
// alike answers at one height (client.AgreedQuery). An answer that fails
// verification wraps gateway.ErrVerification: the gateway refuses it
// with SQLSTATE XX001, never passing on an unverified answer.
//
// cmd/relchain's proxy command runs a gateway with it; docs/proxy.md is
// the manual.
package proxy
