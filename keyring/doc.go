// Package keyring stores a client's ed25519 signing keys as files in a
// directory (by default HOME/keys of the relchain CLI): one JSON file per
// named key, readable only by its owner. The key named "default" signs
// unless another is chosen.
package keyring
