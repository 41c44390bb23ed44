package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/relchain/relchain/api"
)

// AgreedRows is the answer of AgreedQuery.
type AgreedRows struct {
	*api.QueryResponse
	Guarantee Guarantee
	Nodes     []string // the nodes that gave it, at Height
	Need      int      // f+1: how many alike answers make it believable
}

// Why says the guarantee for people.
func (a *AgreedRows) Why() string {
	return fmt.Sprintf("%s of %d nodes at height %d (f+1 = %d): %s", a.Guarantee, len(a.Nodes), a.Height, a.Need, strings.Join(a.Nodes, ", "))
}

// AgreedQuery answers a statement no proof covers by asking every node of
// clients (QueryAll: one height, the same columns and rows) and needs
// need = f+1 of them, where f is how many of the validators may be
// faulty: f+1 alike answers hold an honest one when the nodes are
// different validators'. Any node that answers differently is an error
// naming it (a *MismatchError): at least one of the nodes lied.
func AgreedQuery(ctx context.Context, clients []*Client, need int, sql string, args ...any) (*AgreedRows, error) {
	if len(clients) < need {
		return nil, fmt.Errorf("query %q: f+1 agreement needs %d nodes, %d given (name more with --nodes)", sql, need, len(clients))
	}
	res, err := QueryAll(ctx, clients, 0, sql, args...)
	if err != nil {
		return nil, err
	}
	out := &AgreedRows{QueryResponse: res, Guarantee: GuaranteeAgreement, Need: need}
	for _, c := range clients {
		out.Nodes = append(out.Nodes, c.url)
	}
	return out, nil
}

// FaultTolerance is f for n validators: the most that may be faulty,
// (n-1)/3.
func FaultTolerance(n int) int { return (n - 1) / 3 }
