package app

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
)

// changeEvent is version v of block info as an api.ChangeEvent.
func changeEvent(v backend.RowVersion, info backend.HistoryBlockInfo) (api.ChangeEvent, error) {
	ev := api.ChangeEvent{Op: eventOp(v.Op)}
	var err error
	if v.BeforeKnown && v.Before != nil {
		if ev.Before, err = rowJSON(v.Before); err != nil {
			return ev, fmt.Errorf("history: row before block %d: %w", v.Height, err)
		}
	}
	if v.Image != nil {
		if ev.After, err = rowJSON(v.Image); err != nil {
			return ev, fmt.Errorf("history: row after block %d: %w", v.Height, err)
		}
	}
	keyVals, err := rowcanon.DecodeKey(v.Key)
	if err != nil {
		return ev, fmt.Errorf("history: key of a version of block %d: %w", v.Height, err)
	}
	src := api.ChangeSource{Table: v.Table, Key: hex.EncodeToString(v.Key), KeyValues: make([]any, len(keyVals)), Height: v.Height, TxIndex: -1, Txs: []api.ChangeTx{},
		AppHash: hex.EncodeToString(info.AppHash), BeforeKnown: v.BeforeKnown || v.Op == backend.HistoryInsert}
	if info.TimeUnixNano != 0 {
		src.BlockTime = time.Unix(0, info.TimeUnixNano).UTC().Format(time.RFC3339Nano)
	}
	for i, kv := range keyVals {
		src.KeyValues[i] = valueJSON(kv)
	}
	for _, i := range v.Txs {
		tx := api.ChangeTx{Index: i}
		for _, t := range info.Txs {
			if t.Index == i {
				tx.Hash, tx.Signer = hex.EncodeToString(t.Hash), hex.EncodeToString(t.Signer)
			}
		}
		src.Txs = append(src.Txs, tx)
		src.TxIndex, src.TxHash, src.Signer = tx.Index, tx.Hash, tx.Signer
	}
	ev.Source = src
	return ev, nil
}

// eventOp is a version's op as a change event's.
func eventOp(op backend.HistoryOp) string {
	switch op {
	case backend.HistoryInsert:
		return "c"
	case backend.HistoryDelete:
		return "d"
	}
	return "u"
}

// rowJSON decodes a canonical row image into column → value.
func rowJSON(image []byte) (map[string]any, error) {
	_, cols, err := rowcanon.DecodeRow(image)
	if err != nil {
		return nil, err
	}
	m := make(map[string]any, len(cols))
	for _, c := range cols {
		m[c.Name] = valueJSON(c.Value)
	}
	return m, nil
}

// valueJSON is a canonical value as JSON (api.ChangeEvent).
func valueJSON(v rowcanon.Value) any {
	switch v.Kind() {
	case rowcanon.KindNull:
		return nil
	case rowcanon.KindBool:
		return v.AsBool()
	case rowcanon.KindInt:
		return v.AsInt()
	case rowcanon.KindFloat:
		f := v.AsFloat()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v.String()
		}
		return f
	case rowcanon.KindText, rowcanon.KindNumeric:
		return v.AsString()
	case rowcanon.KindJSON:
		if json.Valid([]byte(v.AsString())) {
			return json.RawMessage(v.AsString())
		}
		return v.AsString()
	}
	return v.String()
}
