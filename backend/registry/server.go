package registry

import (
	"github.com/relchain/relchain/backend"
)

// serverDriver is the Driver of a database server's backend (its dialect
// says Server): every node needs its own database (a DSN), and recover and
// state sync restore a checkpoint beside the live database through ops.
func serverDriver(d Driver, checkpoints func(dir string) ([]backend.Checkpoint, error), ops ServerOps) Driver {
	if !d.Server {
		panic("registry: serverDriver for " + d.Name + ", which package dialect lists as a file database")
	}
	d.Checkpoints = checkpoints
	d.Restore = &ops
	return d
}

// commonOptions are the options every backend takes from s, in backend O's
// own Option type: noGate (set in a test-hooks build only; checkNoGate
// refuses s.NoGate otherwise) and withCheckpoints for s.Checkpoints.
func commonOptions[O any](s Spec, noGate O, withCheckpoints func(dir string, every int64, keep int, onError func(error)) O) ([]O, error) {
	if err := checkNoGate(s); err != nil {
		return nil, err
	}
	var opts []O
	if s.NoGate {
		opts = append(opts, noGate)
	}
	if c := s.Checkpoints; c.Every > 0 {
		opts = append(opts, withCheckpoints(c.Dir, c.Every, c.Keep, c.OnError))
	}
	return opts, nil
}
