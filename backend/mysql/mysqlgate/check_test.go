package mysqlgate

import (
	"testing"

	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

func TestCorpus(t *testing.T) { sqlchecktest.CheckCorpus(t, corpus, 250, check) }

// TestCheckIsCachedAndStable checks that the cached verdict is the uncached
// one, call after call.
func TestCheckIsCachedAndStable(t *testing.T) { sqlchecktest.CheckCached(t, corpus, check, Check) }

func sameVerdict(a, b error) bool { return sqlchecktest.SameVerdict(a, b) }
