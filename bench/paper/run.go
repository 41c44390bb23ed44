package paper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/relchain/relchain/bench"
)

// Measured is an experiment with its results.
type Measured struct {
	Experiment Experiment `json:"experiment"`
	// Results is parallel to Experiment.Points; nil where the point failed.
	Results []*bench.Result `json:"results"`
	// Errors is parallel to Experiment.Points; "" where the point
	// succeeded.
	Errors []string `json:"errors"`
}

// Suite is a run of a plan.
type Suite struct {
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	// Machine: cores, memory, CPU, Go version.
	Machine string `json:"machine"`
	// Command is the exact command line that ran the suite.
	Command  string     `json:"command"`
	Quick    bool       `json:"quick"`
	Measured []Measured `json:"measured"`
}

// Failed counts the points that failed.
func (s *Suite) Failed() int {
	n := 0
	for _, m := range s.Measured {
		for _, e := range m.Errors {
			if e != "" {
				n++
			}
		}
	}
	return n
}

// Run measures every point of plan through run. Identical points of
// different experiments (Distinct) are measured once and share the
// Result. A failed point is recorded in its Measured.Errors and the suite
// goes on; once ctx is done, the remaining points are recorded as not run.
// progress, if set, is called before each measurement with the number of
// measurements done so far, their total and the point (its Label prefixed
// with the experiment ID). Suite.Command is os.Args; Suite.Quick is left
// for the caller to set.
func Run(ctx context.Context, plan []Experiment, run RunFunc, progress func(done, total int, p Point)) *Suite {
	s := &Suite{Started: time.Now(), Machine: Machine(), Command: strings.Join(os.Args, " ")}
	type outcome struct {
		res *bench.Result
		err string
	}
	distinct := Distinct(plan)
	done := map[string]outcome{}
	for i, p := range distinct {
		if progress != nil {
			progress(i, len(distinct), p)
		}
		res, err := measure(ctx, run, p)
		o := outcome{res: res}
		if err != nil {
			o = outcome{err: err.Error()}
		}
		done[p.key()] = o
	}
	for _, e := range plan {
		m := Measured{Experiment: e, Results: make([]*bench.Result, len(e.Points)), Errors: make([]string, len(e.Points))}
		for i, p := range e.Points {
			o := done[p.key()]
			m.Results[i], m.Errors[i] = o.res, o.err
		}
		s.Measured = append(s.Measured, m)
	}
	s.Seconds = time.Since(s.Started).Seconds()
	return s
}

// measure runs one point, turning a panic, a nil Result and a cancelled
// context into errors.
func measure(ctx context.Context, run RunFunc, p Point) (res *bench.Result, err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("not run: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	res, err = run(ctx, p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errNoResult
	}
	return res, nil
}

var errNoResult = errors.New("runner returned no result")

// Machine describes this machine: cores, memory, CPU model, OS and Go
// version.
func Machine() string {
	parts := []string{fmt.Sprintf("%d cores", runtime.NumCPU())}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
				var kb float64
				if _, err := fmt.Sscan(f[1], &kb); err == nil {
					parts = append(parts, fmt.Sprintf("%.1f GiB memory", kb/(1<<20)))
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				parts = append(parts, strings.TrimSpace(v))
				break
			}
		}
	}
	parts = append(parts, runtime.GOOS+"/"+runtime.GOARCH, runtime.Version())
	return strings.Join(parts, ", ")
}
