package clientcmd

import (
	"crypto/ed25519"
	"net/http"
	"os"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	jsonrpcclient "github.com/cometbft/cometbft/rpc/jsonrpc/client"
	"github.com/spf13/cobra"

	"github.com/relchain/relchain/client"
)

// caFile is the root flag --ca (default $RELCHAIN_CA): the CA that signs
// the nodes' RPC certificates, for https node URLs.
var caFile string

// CAFile is the root flag --ca: the CA that signs the nodes' RPC
// certificates ("": none given).
func CAFile() string { return caFile }

// RegisterCAFlag adds --ca to root's persistent flags.
func RegisterCAFlag(root *cobra.Command) {
	root.PersistentFlags().StringVar(&caFile, "ca", os.Getenv("RELCHAIN_CA"),
		"PEM file of the CA that signed the node's RPC TLS certificate, for an https --node (default $RELCHAIN_CA)")
}

// newClient is a client of the node at url that signs with key (nil:
// read-only), trusting --ca for an https node.
func newClient(url string, key ed25519.PrivateKey) (*client.Client, error) {
	return client.NewWithOptions(url, key, client.Options{CAFile: caFile})
}

// RPCWithCA is a CometBFT RPC client of url trusting the CA in the PEM
// file ca.
func RPCWithCA(url, ca string) (*rpchttp.HTTP, error) {
	tc, err := client.TLSConfig(ca)
	if err != nil {
		return nil, err
	}
	hc, err := jsonrpcclient.DefaultHTTPClient(url)
	if err != nil {
		return nil, err
	}
	if tr, ok := hc.Transport.(*http.Transport); ok {
		tr.TLSClientConfig = tc
	}
	return rpchttp.NewWithClient(url, "/websocket", hc)
}
