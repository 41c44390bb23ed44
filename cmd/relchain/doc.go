// Command relchain runs and uses relchain networks: validators that
// replicate SQL databases through CometBFT. See `relchain --help`.
package main
