package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/relchain/relchain/api"
)

// QueryAllRounds bounds how often QueryAll re-asks the nodes for a common
// height.
const QueryAllRounds = 10

// MismatchError reports nodes that answered a query differently at the
// same height: at least one of them is faulty (byzantine, or its database
// diverged).
type MismatchError struct {
	SQL    string
	Height int64
	// Agreeing are the nodes of the largest group of identical answers,
	// Disagreeing every other node. Majority says whether Agreeing is more
	// than half of the nodes asked; without one, no answer can be trusted.
	Agreeing    []string
	Disagreeing []string
	Majority    bool
	// Answer is the largest group's answer.
	Answer *api.QueryResponse
}

func (e *MismatchError) Error() string {
	if e.Majority {
		return fmt.Sprintf("query %q at height %d: node(s) %s disagree with the majority %s",
			e.SQL, e.Height, strings.Join(e.Disagreeing, ", "), strings.Join(e.Agreeing, ", "))
	}
	return fmt.Sprintf("query %q at height %d: no majority: %s answered alike, %s differently",
		e.SQL, e.Height, strings.Join(e.Agreeing, ", "), strings.Join(e.Disagreeing, ", "))
}

// NoCommonHeightError is returned when the nodes kept answering at
// different heights (the chain moved on faster than they could be asked,
// or a node lags or lies about its height).
type NoCommonHeightError struct {
	SQL     string
	Heights map[string]int64 // node -> height of its last answer
	Rounds  int
}

func (e *NoCommonHeightError) Error() string {
	nodes := make([]string, 0, len(e.Heights))
	for n := range e.Heights {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = fmt.Sprintf("%s at %d", n, e.Heights[n])
	}
	return fmt.Sprintf("query %q: the nodes did not answer at one height in %d rounds (%s)", e.SQL, e.Rounds, strings.Join(parts, ", "))
}

// QueryAll runs a read-only query on every client's node and cross-checks
// the answers. It asks with minHeight, then re-asks with min_height set to
// the highest height any node answered at, until all answer at the same
// height (at most QueryAllRounds rounds; then *NoCommonHeightError). If
// they agree it returns the common answer; if their rows or columns differ
// it returns a *MismatchError naming the disagreeing nodes (a single node
// may be byzantine). A node that fails to answer makes QueryAll fail with
// an error naming it.
func QueryAll(ctx context.Context, clients []*Client, minHeight int64, sql string, args ...any) (*api.QueryResponse, error) {
	if len(clients) == 0 {
		return nil, errors.New("QueryAll: no clients")
	}
	h := minHeight
	var heights map[string]int64
	for round := 0; round < QueryAllRounds; round++ {
		resps := make([]*api.QueryResponse, len(clients))
		errs := make([]error, len(clients))
		var wg sync.WaitGroup
		for i, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resps[i], errs[i] = c.Query(ctx, h, sql, args...)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("query %q on node %s (min_height %d): %w", sql, clients[i].url, h, err)
			}
		}
		heights = map[string]int64{}
		maxH, same := resps[0].Height, true
		for i, r := range resps {
			heights[clients[i].url] = r.Height
			if r.Height != resps[0].Height {
				same = false
			}
			maxH = max(maxH, r.Height)
		}
		if same {
			names := make([]string, len(clients))
			for i, c := range clients {
				names[i] = c.url
			}
			return compareAnswers(sql, names, resps)
		}
		h = maxH
	}
	return nil, &NoCommonHeightError{SQL: sql, Heights: heights, Rounds: QueryAllRounds}
}

// compareAnswers groups answers given at one height; all alike: that
// answer, otherwise a *MismatchError.
func compareAnswers(sql string, nodes []string, resps []*api.QueryResponse) (*api.QueryResponse, error) {
	type group struct {
		key   string
		nodes []string
		first int
	}
	var groups []*group
	byKey := map[string]*group{}
	for i, r := range resps {
		k, err := answerKey(r)
		if err != nil {
			return nil, fmt.Errorf("query %q: compare the answer of node %s: %w", sql, nodes[i], err)
		}
		g := byKey[k]
		if g == nil {
			g = &group{key: k, first: i}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.nodes = append(g.nodes, nodes[i])
	}
	if len(groups) == 1 {
		return resps[0], nil
	}
	// Largest group first; ties keep the order of the nodes.
	sort.SliceStable(groups, func(a, b int) bool { return len(groups[a].nodes) > len(groups[b].nodes) })
	e := &MismatchError{SQL: sql, Height: resps[0].Height, Agreeing: groups[0].nodes,
		Majority: 2*len(groups[0].nodes) > len(nodes) && len(groups[0].nodes) > len(groups[1].nodes),
		Answer:   resps[groups[0].first]}
	for _, g := range groups[1:] {
		e.Disagreeing = append(e.Disagreeing, g.nodes...)
	}
	return nil, e
}

// answerKey is a canonical form of an answer's columns and rows (the
// cells are json.Numbers, strings, booleans and nulls as decoded).
func answerKey(r *api.QueryResponse) (string, error) {
	b, err := json.Marshal(struct {
		C []string `json:"c"`
		R [][]any  `json:"r"`
	}{r.Columns, r.Rows})
	return string(b), err
}
