package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
)

// laneBlocksLine matches a node's relchain_lane_blocks_total sample.
var laneBlocksLine = regexp.MustCompile(`(?m)^relchain_lane_blocks_total\{outcome="(parallel|abandoned)"\} ([0-9.e+]+)$`)

// checkLanes, on a network whose manifest sets lanes, notes each node's
// blocks run on lanes and abandoned for the serial run (its metrics, since
// its process started), and fails the run when no validator with more
// than one lane ran a block on them: the manifest would then not test
// parallel execution at all.
func checkLanes(ctx context.Context, r *run) error {
	if len(r.m.Lanes) == 0 {
		return nil
	}
	parallel := 0.0
	for i, k := range r.m.Lanes {
		if k < 2 || !r.nw.running(i) {
			continue
		}
		counts, err := laneBlocks(ctx, r.nw.net.Nodes[i].Metrics)
		if err != nil {
			return fmt.Errorf("node %d's lane metrics: %w", i, err)
		}
		r.nw.note(fmt.Sprintf("node %d (%d lanes): %g blocks on lanes, %g attempts abandoned for the serial run", i, k, counts["parallel"], counts["abandoned"]))
		parallel += counts["parallel"]
	}
	if parallel == 0 {
		r.rep.violate("lanes", "the manifest sets lanes but no validator ran a block on them")
	}
	return nil
}

// laneBlocks reads relchain_lane_blocks_total from a node's metrics.
func laneBlocks(ctx context.Context, metrics string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metrics+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, m := range laneBlocksLine.FindAllSubmatch(body, -1) {
		v, err := strconv.ParseFloat(string(m[2]), 64)
		if err != nil {
			return nil, err
		}
		out[string(m[1])] = v
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no relchain_lane_blocks_total in %s/metrics", metrics)
	}
	return out, nil
}
