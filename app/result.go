package app

import (
	"encoding/json"
	"math"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
)

// TxResult is the outcome of one bc-transaction in a block. Code and Data
// are deterministic and enter the AppHash and CometBFT's results hash; Log
// carries the backend's own message and Info (api.ExecInfo) what this
// node's engine said of a failure whose Data records less: both are
// informational only.
type TxResult struct {
	Code uint32
	Data []byte
	Log  string
	Info []byte
}

// execData is the JSON document in a successful tx's Data; it has the
// shape of api.ExecData.
type execData struct {
	Results []*backend.Rows `json:"results"`
	Batch   []wlData        `json:"batch,omitempty"`
	Effects string          `json:"effects,omitempty"`
}

// wlData is one wl-transaction's outcome in a batch; it has the shape of
// api.WLResult.
type wlData struct {
	Code    uint32           `json:"code"`
	Results []*backend.Rows  `json:"results,omitempty"`
	Failure *api.FailureData `json:"failure,omitempty"`
}

// encodeJSON marshals v, which holds only types whose encoding is
// deterministic (encoding/json sorts map keys; floats use the shortest
// representation that round-trips).
func encodeJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only non-finite floats can fail, and sanitizeRows removes them.
		panic("relchain: cannot encode deterministic result: " + err.Error())
	}
	return b
}

// sanitizeRows replaces values JSON cannot carry (NaN, ±Inf) with their
// SQL text so that results stay encodable and identical on every node.
func sanitizeRows(r *backend.Rows) {
	for _, row := range r.Rows {
		for i, v := range row {
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				switch {
				case math.IsNaN(f):
					row[i] = "NaN"
				case f > 0:
					row[i] = "Infinity"
				default:
					row[i] = "-Infinity"
				}
			}
		}
	}
}
