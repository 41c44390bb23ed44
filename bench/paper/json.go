package paper

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/relchain/relchain/bench"
)

// pointJSON is Point as suite.json holds it: bench.Config carries a
// Progress func, which encoding/json cannot encode, and the runner's
// Nodes, which do not describe the measurement.
type pointJSON struct {
	Label         string   `json:"label"`
	Workload      string   `json:"workload"`
	Mode          string   `json:"mode"`
	WLPerBC       int      `json:"wl_per_bc"`
	Submit        string   `json:"submit,omitempty"`
	Clients       int      `json:"clients"`
	Txs           int      `json:"txs"`
	Rows          int      `json:"rows,omitempty"`
	Scale         int      `json:"scale,omitempty"`
	Dialect       string   `json:"dialect,omitempty"`
	Seed          uint64   `json:"seed"`
	Mix           []string `json:"mix,omitempty"`
	Validators    int      `json:"validators"`
	Backend       string   `json:"backend"`
	TimeoutCommit string   `json:"timeout_commit"`
	ABCI          string   `json:"abci,omitempty"`
	RelayLinks    bool     `json:"relay_links,omitempty"`
	LinkDelay     string   `json:"link_delay,omitempty"`
	Baseline      bool     `json:"baseline"`
	Replicas      int      `json:"baseline_replicas,omitempty"`
	Ceiling       bool     `json:"ceiling"`
	Paper         string   `json:"paper,omitempty"`
}

// MarshalJSON encodes p without the Config's Progress func and Nodes.
func (p Point) MarshalJSON() ([]byte, error) {
	c := p.Config
	return json.Marshal(pointJSON{
		Label: p.Label, Workload: c.Workload, Mode: c.Mode, WLPerBC: c.WLPerBC, Submit: c.Submit,
		Clients: c.Clients, Txs: c.Txs, Rows: c.Rows, Scale: c.Scale, Dialect: c.Dialect, Seed: c.Seed,
		Mix: c.Mix, Validators: p.Validators, Backend: p.Backend, TimeoutCommit: p.TimeoutCommit.String(),
		ABCI: p.ABCI, Baseline: p.Baseline, Ceiling: p.Ceiling, Paper: p.Paper,
		RelayLinks: p.RelayLinks, LinkDelay: linkDelayJSON(p), Replicas: p.BaselineReplicas,
	})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (p *Point) UnmarshalJSON(b []byte) error {
	var j pointJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	tc, err := time.ParseDuration(j.TimeoutCommit)
	if err != nil {
		return fmt.Errorf("point %q: timeout_commit: %w", j.Label, err)
	}
	var delay time.Duration
	if j.LinkDelay != "" {
		if delay, err = time.ParseDuration(j.LinkDelay); err != nil {
			return fmt.Errorf("point %q: link_delay: %w", j.Label, err)
		}
	}
	*p = Point{
		Label: j.Label,
		Config: bench.Config{
			Workload: j.Workload, Mode: j.Mode, WLPerBC: j.WLPerBC, Submit: j.Submit, Clients: j.Clients,
			Txs: j.Txs, Rows: j.Rows, Scale: j.Scale, Dialect: j.Dialect, Seed: j.Seed, Mix: j.Mix,
		},
		Validators: j.Validators, Backend: j.Backend, TimeoutCommit: tc, ABCI: j.ABCI,
		Baseline: j.Baseline, Ceiling: j.Ceiling, Paper: j.Paper,
		RelayLinks: j.RelayLinks, LinkDelay: delay, BaselineReplicas: j.Replicas,
	}
	return nil
}

func linkDelayJSON(p Point) string {
	if !p.RelayLinks {
		return ""
	}
	return p.LinkDelay.String()
}
