//go:build !amd64 || purego

package statedigest

const hasExpandAsm = false

func expandAddAsm(key *[32]byte, rk *[240]byte, sum *[Size]byte, negate bool) {
	panic("statedigest: no assembly expansion on this platform")
}
