package sqlcheck

import (
	"strings"
	"testing"
)

func TestVerdictCacheComputesOncePerText(t *testing.T) {
	var c VerdictCache[int]
	calls := 0
	compute := func(s string) int { calls++; return len(s) }
	for range 3 {
		if got := c.Get("SELECT 1", compute); got != 8 {
			t.Fatalf("Get = %d, want 8", got)
		}
	}
	if calls != 1 {
		t.Fatalf("computed %d times, want once", calls)
	}
	if v, ok := c.Lookup("SELECT 2"); ok {
		t.Fatalf("Lookup of an unseen text = %d, true", v)
	}
}

func TestVerdictCacheKeepsNoLongTextsAndEmptiesWhenFull(t *testing.T) {
	var c VerdictCache[bool]
	long := strings.Repeat("x", maxCachedText+1)
	c.Put(long, true)
	if _, ok := c.Lookup(long); ok {
		t.Fatal("a text over maxCachedText was cached")
	}
	for i := range maxCachedEntries {
		c.Put(strings.Repeat("y", i%100)+string(rune('a'+i%26))+string(rune(i)), true)
	}
	c.Put("last", true)
	if _, ok := c.Lookup("last"); !ok {
		t.Fatal("the newest verdict is not cached after the cache filled up")
	}
	if n := len(c.m); n > maxCachedEntries {
		t.Fatalf("cache holds %d entries, bound %d", n, maxCachedEntries)
	}
}
