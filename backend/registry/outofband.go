package registry

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoOutOfBand is ExecOutOfBand's error in a default build.
var ErrNoOutOfBand = errors.New("running SQL outside the chain (fault injection) needs a test-hooks build of relchain " +
	"(go build -tags testhooks ./cmd/relchain, or make build-testhooks)")

// outOfBandExec runs statements on a backend's database outside the chain,
// by driver name; registered in a test-hooks build only
// (outofband_testhooks.go), so a default build links none of it.
var outOfBandExec = map[string]func(ctx context.Context, s Spec, stmts []string) error{}

// ExecOutOfBand runs stmts, in order, directly on the database s locates,
// with the database's own client driver: outside the chain, without a
// block, the gate or the backend's capture (a node's database changed
// behind its back, which the node must then notice). FAULT INJECTION
// ONLY: relchain debug tamper and the e2e harness's tamper perturbation.
// A default build refuses with ErrNoOutOfBand.
func (d Driver) ExecOutOfBand(ctx context.Context, s Spec, stmts []string) error {
	run, ok := outOfBandExec[d.Name]
	if !ok {
		if !testHooks {
			return ErrNoOutOfBand
		}
		return fmt.Errorf("the %s backend cannot run SQL outside the chain: %w", d.Name, errors.ErrUnsupported)
	}
	return run(ctx, s, stmts)
}
