package e2e

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// fatalLogTexts are the lines that say a node's consensus or process died:
// CometBFT's consensus panic (it ends consensus, the node then halts) and
// Go's own panic and fatal error.
var fatalLogTexts = []string{consensusFailure, "panic: ", "fatal error: "}

const consensusFailure = "CONSENSUS FAILURE"

// expectsConsensusFailure reports whether the schedule breaks node i's
// data (tamper, disk-full): its consensus may end, as that fault's check
// requires it to stop.
func (m *Manifest) expectsConsensusFailure(i int) bool {
	for _, p := range m.Perturb {
		if p.Node == i && (p.Action == ActTamper || p.Action == ActDiskFull) {
			return true
		}
	}
	return false
}

// checkLogs (logs-clean) reads every node's log once the nodes stopped:
// a line with a fatalLogTexts text is a violation (the first three per
// node are quoted), except a consensus failure on a node whose data the
// schedule breaks; the error-level lines are counted for the report
// (CometBFT's plain format starts them "E[", its JSON one says
// "level":"error").
func checkLogs(r *run) {
	r.rep.LogErrors = make([]int, len(r.nw.net.Nodes))
	for i := range r.nw.net.Nodes {
		path := r.nw.net.LogFile(i)
		f, err := os.Open(path)
		if err != nil {
			r.rep.violate(InvLogsClean, fmt.Sprintf("node%d: %v", i, err))
			continue
		}
		fatal := 0
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "E[") || strings.Contains(line, `"level":"error"`) {
				r.rep.LogErrors[i]++
			}
			for _, t := range fatalLogTexts {
				if t == consensusFailure && r.m.expectsConsensusFailure(i) {
					continue
				}
				if strings.Contains(line, t) {
					if fatal++; fatal <= 3 {
						r.rep.violate(InvLogsClean, fmt.Sprintf("node%d (%s): %s", i, path, oneLine(line, 300)))
					}
					break
				}
			}
		}
		if err := sc.Err(); err != nil {
			r.rep.violate(InvLogsClean, fmt.Sprintf("node%d: read %s: %v", i, path, err))
		}
		f.Close()
	}
}

// oneLine cuts s to limit bytes.
func oneLine(s string, limit int) string {
	if len(s) > limit {
		return s[:limit] + "…"
	}
	return s
}
