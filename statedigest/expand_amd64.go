//go:build !purego

package statedigest

import "golang.org/x/sys/cpu"

// hasExpandAsm: expandAddAsm needs AES-NI (its SSE2 is baseline amd64).
var hasExpandAsm = cpu.X86.HasAES

// expandAddAsm adds (negate: subtracts) the expansion under key to sum
// lane by lane: AES-256-CTR's keystream as keystream makes it, generated
// and added in registers, with rk as the key schedule's scratch. One call
// replaces aes.NewCipher, cipher.NewCTR, the keystream's buffer and
// addLanes: no allocation, and each keystream block is added as it is made.
//
//go:noescape
func expandAddAsm(key *[32]byte, rk *[240]byte, sum *[Size]byte, negate bool)
