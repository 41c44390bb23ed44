package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Report is what a run did and found; report.json in the report
// directory.
type Report struct {
	mu         sync.Mutex
	Manifest   string  `json:"manifest"`
	Backend    string  `json:"backend"`
	Network    string  `json:"network"` // "netns" or "loopback": where the nodes ran
	Validators int     `json:"validators"`
	Workload   string  `json:"workload"`
	Seed       int64   `json:"seed"`
	Seconds    float64 `json:"seconds"`
	// Events are the perturbations applied, with their times.
	Events []string `json:"events"`
	// Notes say how the nodes took the faults on their data (how fast a
	// node with a full disk or a tampered database stopped, and its line).
	Notes []string `json:"notes,omitempty"`
	Ops   OpCounts `json:"ops"`
	// Per node and write, summed over nodes: acknowledged writes missing,
	// writes present more than once, rows no write explains.
	Lost       int `json:"lost"`
	Duplicated int `json:"duplicated"`
	Phantom    int `json:"phantom"`
	// Divergence counts heights at which two nodes' headers carry
	// different AppHashes; CommonHeight is the height compared up to.
	Divergence   int   `json:"divergence"`
	CommonHeight int64 `json:"common_height"`
	// Stalls counts stretches of more than 3 s without a new block.
	Stalls       int         `json:"stalls"`
	LongestStall float64     `json:"longest_stall_seconds"`
	Recoveries   []Recovery  `json:"recoveries"`
	Halts        []haltWatch `json:"halts,omitempty"`
	// GoOns are faults on one node's data (tamper, disk-full) during
	// which the others must have kept committing.
	GoOns  []haltWatch `json:"went_on,omitempty"`
	Verify []string    `json:"verify"`
	// BlockTimes and Clocks are what block-times-sane and
	// clock-offset-seen measured.
	BlockTimes *BlockTimeFigure `json:"block_times,omitempty"`
	Clocks     []ClockFigure    `json:"clocks,omitempty"`
	// LogErrors counts each node's error-level log lines (logs-clean).
	LogErrors  []int       `json:"log_error_lines,omitempty"`
	Violations []Violation `json:"violations"`
}

// OpCounts counts the history's writes by outcome, and the reads.
type OpCounts struct {
	Invoked        int `json:"invoked"`
	Acked          int `json:"acked"`
	Failed         int `json:"failed"`
	Unknown        int `json:"unknown"`
	ResolvedOK     int `json:"resolved_ok"`
	ResolvedAbsent int `json:"resolved_absent"`
	Reads          int `json:"reads"`
	// Resends of writes' signed bytes, by answer: the committed result,
	// "already executed" (code 8, accepted for a committed tx), another
	// failure, unknown.
	Resent        int `json:"resent"`
	ResentOK      int `json:"resent_ok"`
	ResentReplay  int `json:"resent_replay_answer"`
	ResentFailed  int `json:"resent_failed"`
	ResentUnknown int `json:"resent_unknown"`
}

// Recovery is how long the network took to commit past the height it
// had when a fault ended: FromHeight is the highest height a node
// answered at the undo, ToHeight the lowest live node's height when
// every live node had passed it.
type Recovery struct {
	After      string  `json:"after"`
	Seconds    float64 `json:"seconds"`
	FromHeight int64   `json:"from_height"`
	ToHeight   int64   `json:"to_height"`
}

// Violation is an invariant broken, with the operations involved.
type Violation struct {
	Invariant string `json:"invariant"`
	Detail    string `json:"detail"`
}

func (r *Report) violate(inv, detail string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Violations = append(r.Violations, Violation{inv, detail})
}

func (r *Report) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Notes = append(r.Notes, s)
}

func (r *Report) noteStall(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d > 3*time.Second {
		r.Stalls++
	}
	r.LongestStall = max(r.LongestStall, d.Seconds())
}

func (r *Report) noteRecovery(rec Recovery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Recoveries = append(r.Recoveries, rec)
}

func (r *Report) addEvent(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Events = append(r.Events, e)
}

func (r *Report) addHalt(h haltWatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Halts = append(r.Halts, h)
}

func (r *Report) addGoOn(h haltWatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.GoOns = append(r.GoOns, h)
}

// MaxRecovery is the longest recovery, in seconds.
func (r *Report) MaxRecovery() float64 {
	var m float64
	for _, x := range r.Recoveries {
		m = max(m, x.Seconds)
	}
	return m
}

// Summary is one line for logs and RELIABILITY.md's tables.
func (r *Report) Summary() string {
	return fmt.Sprintf("| %s | %s | %s | %.0f s | %d | %d/%d/%d | %d | %d | %d | %d | %d (longest %.1f s) | %.1f s | %d |",
		r.Manifest, r.Backend, r.Network, r.Seconds, r.Ops.Invoked, r.Ops.Acked, r.Ops.Failed, r.Ops.Unknown,
		r.Lost, r.Duplicated, r.Divergence, r.Ops.Reads, r.Stalls, r.LongestStall, r.MaxRecovery(), len(r.Violations))
}

// Failed describes the violations, or "" if there are none.
func (r *Report) Failed() string {
	if len(r.Violations) == 0 {
		return ""
	}
	var b strings.Builder
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "\n  %s: %s", v.Invariant, v.Detail)
	}
	return fmt.Sprintf("%d violations:%s", len(r.Violations), b.String())
}

func (r *Report) save(dir string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
