package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/dialect"
)

// shadowDir holds the shadow gate's databases of a node home (app's
// shadow.go): node-local, rebuilt from the chain's DDL log at every start.
func shadowDir(home string) string { return filepath.Join(home, "data", "shadow") }

// shadowOption gives the executor of a validator of a network over
// several engines the shadow gate's database: an empty SQLite database
// speaking PostgreSQL's SQL at the genesis' translator version, in a
// directory of its own under shadowDir, removed when it is closed. What
// an earlier process left there is removed first.
func shadowOption(home string, params app.Params) app.ExecutorOption {
	_ = os.RemoveAll(shadowDir(home))
	return app.WithShadow(func(ctx context.Context) (backend.Backend, error) {
		if err := os.MkdirAll(shadowDir(home), 0o700); err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp(shadowDir(home), "gate-")
		if err != nil {
			return nil, err
		}
		d, err := registry.Lookup("sqlite")
		if err != nil {
			return nil, err
		}
		be, err := d.Open(ctx, registry.Spec{DSN: filepath.Join(dir, "shadow.db"), SQLDialect: dialect.SQLPostgres, SQLDialectVersion: params.TranslatorVersion("sqlite")})
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("open the shadow gate's SQLite database: %w", err)
		}
		return removeOnClose{Backend: be, dir: dir}, nil
	})
}

// removeOnClose is a shadow database whose directory goes with it.
type removeOnClose struct {
	backend.Backend
	dir string
}

func (r removeOnClose) Close() error {
	err := r.Backend.Close()
	_ = os.RemoveAll(r.dir)
	return err
}
