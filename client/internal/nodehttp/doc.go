// Package nodehttp is the HTTP transport of relchain's clients of a
// node's CometBFT RPC (package client and the light client of
// client/lightverify): connections kept for concurrent callers but
// dropped before the node's own idle limit, and reads sent again on a new
// connection when a kept one turns out closed by the node, which
// otherwise fails a read with "EOF" (and, in a light client, drops a
// witness as faulty).
package nodehttp
