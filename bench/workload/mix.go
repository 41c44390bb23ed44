package workload

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
)

// Mix draws transaction kinds with fixed relative weights.
type Mix struct {
	kinds []string
	cum   []int // cumulative weights, parallel to kinds
}

// NewMix checks weights (kind → relative weight; kinds with weight 0 do
// not occur) against the workload's known kinds. Kinds are ordered by
// name, so the same weights always draw the same stream. name prefixes
// errors.
func NewMix(name string, weights map[string]int, known []string) (Mix, error) {
	var m Mix
	total := 0
	for _, k := range slices.Sorted(maps.Keys(weights)) {
		wt := weights[k]
		if !slices.Contains(known, k) {
			return Mix{}, fmt.Errorf("%s: unknown transaction kind %q in mix (kinds: %s)", name, k, strings.Join(known, ", "))
		}
		if wt < 0 {
			return Mix{}, fmt.Errorf("%s: negative weight %d for %s", name, wt, k)
		}
		if wt == 0 {
			continue
		}
		total += wt
		m.kinds = append(m.kinds, k)
		m.cum = append(m.cum, total)
	}
	if total == 0 {
		return Mix{}, errors.New(name + ": the mix has no kind with a positive weight")
	}
	return m, nil
}

// Pick draws one kind.
func (m Mix) Pick(r *rand.Rand) string {
	n := r.IntN(m.cum[len(m.cum)-1])
	for i, c := range m.cum {
		if n < c {
			return m.kinds[i]
		}
	}
	return m.kinds[len(m.kinds)-1]
}

// Kinds lists the kinds that occur, by name.
func (m Mix) Kinds() []string { return slices.Clone(m.kinds) }
