package sqlcheck

import "slices"

// Verdict is a text gate's full answer for one statement text, as its
// VerdictCache keeps it: what the statement does, or why it is refused.
type Verdict struct {
	// Analysis is shared by every reader of the cache: Result copies it.
	Analysis Analysis
	Err      error
}

// Refusal is the verdict refusing a text with err.
func Refusal(err error) *Verdict { return &Verdict{Err: err} }

// Acceptance is the verdict accepting a statement that is DDL or not and
// writes the tables writes (in any order, with repeats): Analysis.Writes
// sorted and without duplicates, nil if there are none.
func Acceptance(ddl bool, writes []string) *Verdict {
	v := &Verdict{Analysis: Analysis{DDL: ddl}}
	if len(writes) > 0 {
		slices.Sort(writes)
		v.Analysis.Writes = slices.Compact(writes)
	}
	return v
}

// Result is the verdict as Analyze returns it: the refusal with an empty
// Analysis, or the Analysis with a Writes slice of the caller's own.
func (v *Verdict) Result() (Analysis, error) {
	if v.Err != nil {
		return Analysis{}, v.Err
	}
	a := v.Analysis
	if a.Writes != nil {
		a.Writes = slices.Clone(a.Writes)
	}
	return a, nil
}
