package api

import (
	"errors"
	"fmt"
)

// Row history and change data capture (issue 36, items 5 and 6;
// docs/history-and-changes.md). A node keeps every version of the rows of
// the authenticated tables, one per block that changed a row, and serves
// them on two abci_query paths.
const (
	// HistoryPath serves one row's versions: the request data is a
	// HistoryRequest, the response value a HistoryResponse.
	HistoryPath = "/history"
	// ChangesPath serves every version of a range of blocks in commit
	// order (change data capture): a ChangesRequest, a ChangesResponse.
	ChangesPath = "/changes"
)

// Limits of a history read.
const (
	// DefaultHistoryLimit is a request's limit when it names none.
	DefaultHistoryLimit = 1000
	// MaxHistoryLimit is the largest limit a request may name.
	MaxHistoryLimit = 10_000
)

// HistoryRequest asks for the versions of one row at heights from
// FromHeight on (0: from the oldest the node holds). The row is named by
// its canonical key (rowcanon.EncodeKey, base64 in JSON) or by the values
// of its primary key in column order (KeyValues: JSON integers, strings
// and booleans).
type HistoryRequest struct {
	Table      string `json:"table"`
	Key        []byte `json:"key,omitempty"`
	KeyValues  []any  `json:"key_values,omitempty"`
	FromHeight int64  `json:"from_height,omitempty"`
	Limit      int    `json:"limit,omitempty"`
}

// Check reports whether r is a well-formed request.
func (r HistoryRequest) Check() error {
	switch {
	case r.Table == "":
		return errors.New("history request: no table")
	case len(r.Key) == 0 && len(r.KeyValues) == 0:
		return errors.New("history request: neither a key nor key values")
	case len(r.Key) > 0 && len(r.KeyValues) > 0:
		return errors.New("history request: both a key and key values")
	case len(r.Key) >= MaxProofKeyLen:
		return fmt.Errorf("history request: key of %d bytes, at most %d", len(r.Key), MaxProofKeyLen-1)
	}
	return checkRange(r.FromHeight, r.Limit)
}

// ChangesRequest asks for the versions of the blocks at heights from
// FromHeight on (0: from the oldest the node holds), at most Limit
// versions but never part of a block.
type ChangesRequest struct {
	FromHeight int64 `json:"from_height,omitempty"`
	Limit      int   `json:"limit,omitempty"`
}

// Check reports whether r is a well-formed request.
func (r ChangesRequest) Check() error { return checkRange(r.FromHeight, r.Limit) }

func checkRange(from int64, limit int) error {
	switch {
	case from < 0:
		return fmt.Errorf("history request: from_height %d", from)
	case limit < 0 || limit > MaxHistoryLimit:
		return fmt.Errorf("history request: limit %d, from 1 to %d (0: %d)", limit, MaxHistoryLimit, DefaultHistoryLimit)
	}
	return nil
}

// ChangeEvent is one row version as an event, in a Debezium-like
// envelope: Op is "c" (the block inserted the row), "u" (updated it) or
// "d" (deleted it); Before and After are the row before and after the
// block as column → value (nil: no row, or before the history's start:
// Source.BeforeKnown says which). Values are JSON: integers, floats
// (NaN and infinities as strings), booleans, strings (text; numeric as
// its decimal string; bytea as \x hex; date, timestamp and uuid in
// PostgreSQL's output syntax), and json columns as JSON.
type ChangeEvent struct {
	Op     string         `json:"op"`
	Before map[string]any `json:"before"`
	After  map[string]any `json:"after"`
	Source ChangeSource   `json:"source"`
}

// ChangeSource says where a ChangeEvent comes from. Key is the row's
// canonical key in hex, KeyValues its primary-key values. TxIndex, TxHash
// and Signer name the last tx of the block whose changes named the row
// (-1 and empty when none did: a rescanned table, TRUNCATE, DDL); Txs
// lists every one. TxHash is CometBFT's (SHA-256 of the tx), hex;
// Signer the ed25519 public key, hex; BlockTime RFC 3339 UTC; AppHash
// the AppHash after the block, hex.
type ChangeSource struct {
	Table       string     `json:"table"`
	Key         string     `json:"key"`
	KeyValues   []any      `json:"key_values"`
	Height      int64      `json:"height"`
	TxIndex     int        `json:"tx_index"`
	TxHash      string     `json:"tx_hash"`
	Signer      string     `json:"signer"`
	Txs         []ChangeTx `json:"txs"`
	BlockTime   string     `json:"block_time"`
	AppHash     string     `json:"app_hash"`
	BeforeKnown bool       `json:"before_known"`
}

// ChangeTx is one tx that changed a row.
type ChangeTx struct {
	Index  int    `json:"index"`
	Hash   string `json:"hash"`
	Signer string `json:"signer"`
}

// HistoryResponse is a row's versions, ascending by height. Start and
// End are the heights the node's history holds (Start 0: none).
type HistoryResponse struct {
	Start  int64         `json:"start"`
	End    int64         `json:"end"`
	Events []ChangeEvent `json:"events"`
}

// ChangesResponse is the versions of whole blocks in commit order
// (height, table, key). Next is the height to ask from to continue:
// after the last block returned, or End+1 when none was (blocks that
// changed no row are skipped).
type ChangesResponse struct {
	Start  int64         `json:"start"`
	End    int64         `json:"end"`
	Next   int64         `json:"next"`
	Events []ChangeEvent `json:"events"`
}
