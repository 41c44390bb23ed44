package app

import (
	"testing"
	"time"

	"github.com/relchain/relchain/api"
)

func TestBlockStatsSplitABlockIntoItsPhases(t *testing.T) {
	var s blockStats
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// Block 1: no previous commit seen, so no propose phase.
	s.proposed(1, at(0))
	s.finalizing(1, at(5))
	s.executed(1, 3, at(5), at(7), "")
	s.committed(at(8))
	// Block 2: a proposal in round 0, another in round 1 (the first counts).
	s.proposed(2, at(18))
	s.proposed(2, at(30))
	s.finalizing(2, at(40))
	s.executed(2, 5, at(40), at(52), api.LanesParallel)
	s.committed(at(55))
	// Block 3 arrives by block sync: no proposal.
	s.finalizing(3, at(60))
	s.executed(3, 1, at(60), at(61), "")
	s.committed(at(62))
	got := s.between(1, 3)
	if len(got) != 3 {
		t.Fatalf("kept %d timings, want 3: %+v", len(got), got)
	}
	if b := got[0]; b.Height != 1 || b.Txs != 3 || b.ProposeUS != 0 || b.ConsensusUS != 5000 || b.ExecuteUS != 2000 || b.CommitUS != 1000 {
		t.Errorf("block 1 = %+v", b)
	}
	if b := got[1]; b.Height != 2 || b.Txs != 5 || b.ProposeUS != 10000 || b.ConsensusUS != 22000 || b.ExecuteUS != 12000 || b.CommitUS != 3000 || b.Lanes != api.LanesParallel {
		t.Errorf("block 2 = %+v", b)
	}
	if b := got[2]; b.Height != 3 || b.ProposeUS != 0 || b.ConsensusUS != 0 || b.ExecuteUS != 1000 || b.Lanes != "" {
		t.Errorf("block 3 = %+v", b)
	}
	// Block 4 is executed speculatively (ProcessProposal) before it is
	// decided: the execution is not part of the consensus phase.
	s.proposed(4, at(70))
	s.executed(4, 2, at(71), at(75), api.LanesUnanalysed)
	s.finalizing(4, at(80))
	s.committed(at(81))
	if b := s.between(4, 4)[0]; b.ExecuteUS != 4000 || b.ConsensusUS != 6000 || b.CommitUS != 1000 || b.Txs != 2 || b.Lanes != api.LanesUnanalysed {
		t.Errorf("block 4 = %+v", b)
	}
	if got := s.between(2, 2); len(got) != 1 || got[0].Height != 2 {
		t.Errorf("between(2, 2) = %+v", got)
	}
}

func TestBlockStatsKeepOnlyTheNewestBlocks(t *testing.T) {
	var s blockStats
	now := time.Unix(0, 0)
	for h := int64(1); h <= statsKeep+10; h++ {
		s.finalizing(h, now)
		s.executed(h, 0, now, now, "")
		s.committed(now)
	}
	got := s.between(0, statsKeep+10)
	if len(got) != statsKeep || got[0].Height != 11 || got[len(got)-1].Height != statsKeep+10 {
		t.Fatalf("kept %d timings from %d to %d, want %d from 11", len(got), got[0].Height, got[len(got)-1].Height, statsKeep)
	}
}
