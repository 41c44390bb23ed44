package statedigest

// asmExpansion is an assembly expansion: it adds (negate: subtracts) the
// expansion of the element whose AES key is key to sum, with rk as scratch
// for the key schedule. Every one must compute exactly what keystream and
// addLanes do (TestAsmMatchesReference).
type asmExpansion struct {
	name string
	add  func(key *[32]byte, rk *[240]byte, sum *[Size]byte, negate bool)
	ok   bool // the CPU has what it needs
}

// available keeps the expansions the CPU can run, in the order given.
func available(all ...asmExpansion) []asmExpansion {
	var out []asmExpansion
	for _, a := range all {
		if a.ok {
			out = append(out, a)
		}
	}
	return out
}

// expandAdd is the expansion Add and Remove use: the first of expandAsms,
// or nil for the portable path. Tests set it to each in turn.
var expandAdd = first(expandAsms)

func first(asms []asmExpansion) func(key *[32]byte, rk *[240]byte, sum *[Size]byte, negate bool) {
	if len(asms) == 0 {
		return nil
	}
	return asms[0].add
}
