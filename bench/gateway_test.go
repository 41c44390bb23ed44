package bench

import (
	"math/rand/v2"
	"testing"
)

// A transfer's two accounts differ, stay in range, and the skewed key set
// puts its hot share on the hot accounts.
func TestTransferKeysAreDistinctAndSkewed(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	uniform, allHot := uniformKeys(3), skewedKeys(1000, 2, 1)
	hot := 0
	skewed := skewedKeys(1000, 10, 0.9)
	for range 10000 {
		a, b := uniform(r)
		if a == b || a < 1 || a > 3 || b < 1 || b > 3 {
			t.Fatalf("uniform over 3: %d, %d", a, b)
		}
		if a, b := allHot(r); !(a == 1 && b == 2 || a == 2 && b == 1) {
			t.Fatalf("all on 2 hot accounts: %d, %d", a, b)
		}
		if a, b := skewed(r); a <= 10 && b <= 10 {
			hot++
		}
	}
	// 90% chosen hot, plus the few uniform picks that land there.
	if hot < 8800 || hot > 9200 {
		t.Fatalf("%d of 10000 skewed transfers between hot accounts; want about 9000", hot)
	}
}
