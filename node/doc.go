// Package node embeds a CometBFT v0.38 node with relchain's application
// in-process (the paper's "builtin" variant): it loads a node home
// (CometBFT's config/config.toml and genesis plus relchain's
// config/relchain.toml), opens the configured backend and runs the node
// until stopped. It also creates fresh node homes (Init).
package node
