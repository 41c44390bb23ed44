//go:build !testhooks

package registry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/relchain/relchain/backend/registry"
)

// A default build cannot run SQL outside the chain: every driver's
// ExecOutOfBand (fault injection) refuses, asking for a test-hooks build.
func TestExecOutOfBandNeedsATestHooksBuild(t *testing.T) {
	for _, name := range registry.Names() {
		d, err := registry.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		err = d.ExecOutOfBand(context.Background(), registry.Spec{DSN: t.TempDir() + "/x.db"}, []string{"CREATE TABLE t (a INTEGER)"})
		if !errors.Is(err, registry.ErrNoOutOfBand) {
			t.Errorf("%s: %v, want ErrNoOutOfBand", name, err)
		}
	}
}
