//go:build !testhooks

package node

import (
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
)

// hookOptions are empty in a default build: it has no test hooks (see
// testhooks.go, built with -tags testhooks).
type hookOptions struct{}

// wrap is the application CometBFT reaches: a itself.
func (hookOptions) wrap(a *app.App, _ log.Logger) abci.Application { return a }

// crashPoint does nothing in a default build (see testhooks.go).
func crashPoint(string) {}

// afterStoreWrite does nothing in a default build (see testhooks.go).
func afterStoreWrite(string) {}
