//go:build testhooks

package app

import (
	"bytes"
	"os"
	"sync"

	"github.com/relchain/relchain/api"
)

// This file is built with -tags testhooks only: a node whose read paths
// lie, for the tests of verified reads (issue 36). The environment
// variable RELCHAIN_UNSAFE_BYZANTINE_READS of the node's process picks
// the lie:
//
//	tamper-row    /proof: every row image served has its last byte flipped
//	drop-row      /proof: a range's answer leaves out its first row
//	stale         /proof: the first answer to each question, forever
//	forge-base    /proof: the AppHash's base has a byte flipped
//	tamper-query  /query: the first cell of every row is "byzantine"
//
// A default build has none of this: the hooks stay the identity.
const byzantineEnv = "RELCHAIN_UNSAFE_BYZANTINE_READS"

func init() {
	switch os.Getenv(byzantineEnv) {
	case "tamper-row":
		byzantineProof = tamperRows
	case "drop-row":
		byzantineProof = dropRow
	case "stale":
		byzantineProof = (&staleAnswers{first: map[string]api.ProofResponse{}}).answer
	case "forge-base":
		byzantineProof = func(r api.ProofResponse) api.ProofResponse {
			r.Base = bytes.Clone(r.Base)
			if len(r.Base) > 0 {
				r.Base[0] ^= 1
			}
			return r
		}
	case "tamper-query":
		byzantineQuery = tamperQuery
	}
}

func tamperRows(r api.ProofResponse) api.ProofResponse {
	rows := make([]api.ProofRow, len(r.Rows))
	for i, row := range r.Rows {
		img := bytes.Clone(row.Image)
		if len(img) > 0 {
			img[len(img)-1] ^= 1
		}
		rows[i] = api.ProofRow{Key: row.Key, Image: img}
	}
	r.Rows = rows
	return r
}

func dropRow(r api.ProofResponse) api.ProofResponse {
	if len(r.Key) == 0 && len(r.Rows) > 0 {
		r.Rows = r.Rows[1:]
	}
	return r
}

// staleAnswers keeps the first answer to each question.
type staleAnswers struct {
	mu    sync.Mutex
	first map[string]api.ProofResponse
}

func (s *staleAnswers) answer(r api.ProofResponse) api.ProofResponse {
	q := string(encodeJSON(api.ProofRequest{Table: r.Table, Key: r.Key, Lo: r.Lo, Hi: r.Hi}))
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.first[q]; ok {
		return old
	}
	s.first[q] = r
	return r
}

func tamperQuery(r api.QueryResponse) api.QueryResponse {
	rows := make([][]any, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = append([]any(nil), row...)
		if len(rows[i]) > 0 {
			rows[i][0] = "byzantine"
		}
	}
	r.Rows = rows
	return r
}
