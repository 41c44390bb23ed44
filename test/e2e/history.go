package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

// Phases of an operation in the history.
const (
	PhaseInvoke  = "invoke"
	PhaseOK      = "ok"
	PhaseFail    = "fail"
	PhaseUnknown = "unknown"
	// PhaseAbsent resolves an unknown write: no node has the tx.
	PhaseAbsent = "absent"
)

// Why a write's signed bytes were sent again.
const (
	// ResendUnknown: the first submission's outcome was unknown; the
	// client sends the same bytes to the next node, as an application
	// retrying would.
	ResendUnknown = "after-unknown"
	// ResendRandom: a share of writes (load.resend) is sent again later,
	// whatever their outcome.
	ResendRandom = "random"
	// ResendRestart: writes acknowledged before a restart of every node
	// (restart-all) are sent again once the nodes are back.
	ResendRestart = "after-restart-all"
)

// Op is one line of history.jsonl: a client operation's invocation or
// its outcome, or the checker's resolution of an unknown outcome.
type Op struct {
	T      float64 `json:"t"` // seconds since the load started
	Client int     `json:"client"`
	Kind   string  `json:"kind"` // "write", "resend", "read" or "resolve"
	Phase  string  `json:"phase"`
	ID     int64   `json:"id,omitempty"` // the write's id
	Hash   string  `json:"hash,omitempty"`
	Node   int     `json:"node"`
	Height int64   `json:"height,omitempty"`
	Code   uint32  `json:"code,omitempty"`
	Error  string  `json:"error,omitempty"`
	// Reads: rows seen, and the acknowledged ids they missed.
	Seen    int     `json:"seen,omitempty"`
	Missing []int64 `json:"missing,omitempty"`
	// Resends: why the bytes were sent again.
	Why string `json:"why,omitempty"`
}

// write is what the history knows of one write.
type write struct {
	ID     int64
	Client int
	Hash   string
	Phase  string // latest outcome: invoke (in flight), ok, fail, unknown, absent
	Height int64
	Code   uint32
	// Bank transfers: what moved.
	Src, Dst int
	Amount   int64
	// Resolved says the outcome came from the checker's lookup.
	Resolved bool
	// Raw is the signed tx (not logged): what a resend sends again.
	Raw []byte
	// Resends are the outcomes of sending Raw again.
	Resends []resend
}

// resend is one sending again of a write's signed bytes, and what the
// node answered.
type resend struct {
	Why    string
	Node   int
	Phase  string // invoke (in flight), ok, fail, unknown
	Height int64
	Code   uint32
	Error  string
}

// History logs every operation to a JSON-lines file and keeps the
// writes' latest outcomes for the checker. Safe for concurrent use.
type History struct {
	start time.Time
	mu    sync.Mutex
	f     *os.File
	enc   *json.Encoder
	w     map[int64]*write
	reads []Op
}

// NewHistory creates path and starts the clock.
func NewHistory(path string) (*History, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create history: %w", err)
	}
	return &History{start: time.Now(), f: f, enc: json.NewEncoder(f), w: map[int64]*write{}}, nil
}

// Close flushes the file.
func (h *History) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.f.Close()
}

func (h *History) log(op Op) {
	op.T = time.Since(h.start).Seconds()
	_ = h.enc.Encode(op) // a history that cannot be written fails at Close
}

// Invoke records a write about to be submitted.
func (h *History) Invoke(w write, node int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.Phase = PhaseInvoke
	h.w[w.ID] = &w
	h.log(Op{Client: w.Client, Kind: "write", Phase: PhaseInvoke, ID: w.ID, Hash: w.Hash, Node: node})
}

// Complete records a write's outcome: phase ok, fail or unknown.
func (h *History) Complete(id int64, node int, phase string, height int64, code uint32, errText string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.w[id]
	w.Phase, w.Height, w.Code = phase, height, code
	h.log(Op{Client: w.Client, Kind: "write", Phase: phase, ID: id, Hash: w.Hash, Node: node, Height: height, Code: code, Error: errText})
}

// Resend records that write id's signed bytes are sent again to node,
// and returns the resend's index for CompleteResend.
func (h *History) Resend(id int64, node int, why string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.w[id]
	w.Resends = append(w.Resends, resend{Why: why, Node: node, Phase: PhaseInvoke})
	h.log(Op{Client: w.Client, Kind: "resend", Phase: PhaseInvoke, ID: id, Hash: w.Hash, Node: node, Why: why})
	return len(w.Resends) - 1
}

// CompleteResend records resend k's outcome. A resend acknowledged ok
// acknowledges a write whose own outcome is unknown (or still in
// flight): the client now knows it committed, at that height.
func (h *History) CompleteResend(id int64, k int, phase string, height int64, code uint32, errText string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.w[id]
	rs := &w.Resends[k]
	rs.Phase, rs.Height, rs.Code, rs.Error = phase, height, code, errText
	if phase == PhaseOK && (w.Phase == PhaseUnknown || w.Phase == PhaseInvoke) {
		w.Phase, w.Height = PhaseOK, height
	}
	h.log(Op{Client: w.Client, Kind: "resend", Phase: phase, ID: id, Hash: w.Hash, Node: rs.Node, Height: height, Code: code, Error: errText, Why: rs.Why})
}

// Resolve records the checker's lookup of an unknown write.
func (h *History) Resolve(id int64, node int, phase string, height int64, code uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.w[id]
	w.Phase, w.Height, w.Code, w.Resolved = phase, height, code, true
	h.log(Op{Client: w.Client, Kind: "resolve", Phase: phase, ID: id, Hash: w.Hash, Node: node, Height: height, Code: code})
}

// Read records a read at a minimum height.
func (h *History) Read(op Op) {
	h.mu.Lock()
	defer h.mu.Unlock()
	op.Kind = "read"
	h.log(op)
	h.reads = append(h.reads, op)
}

// AckedUpTo returns the ids of the writes acknowledged at heights <= hmax,
// and the highest acknowledged height.
func (h *History) AckedUpTo(hmax int64) (ids []int64, top int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range h.w {
		if w.Phase == PhaseOK && !w.Resolved {
			if w.Height <= hmax {
				ids = append(ids, w.ID)
			}
			top = max(top, w.Height)
		}
	}
	slices.Sort(ids)
	return ids, top
}

// Writes returns a copy of every write, by id.
func (h *History) Writes() []write {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]write, 0, len(h.w))
	for _, w := range h.w {
		c := *w
		c.Resends = slices.Clone(w.Resends)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b write) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// AckedRaw returns the signed bytes of up to n writes acknowledged ok,
// the oldest first, with their ids.
func (h *History) AckedRaw(n int) (ids []int64, raws [][]byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range h.w {
		if w.Phase == PhaseOK && len(w.Raw) > 0 {
			ids = append(ids, w.ID)
		}
	}
	slices.Sort(ids)
	ids = ids[:min(n, len(ids))]
	for _, id := range ids {
		raws = append(raws, h.w[id].Raw)
	}
	return ids, raws
}

// Reads returns the reads logged.
func (h *History) Reads() []Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.reads)
}
