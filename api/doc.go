// Package api holds relchain's wire contract with clients: result codes,
// the JSON documents in tx results and in abci_query requests and
// responses. It depends on the standard library only, so clients need
// neither the application nor a backend to speak to a node.
package api
