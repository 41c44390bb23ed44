//go:build !purego

package statedigest

import "golang.org/x/sys/cpu"

// expandAsms are the assembly expansions this CPU can run, fastest first:
// expandAddAsm needs AES-NI (its SSE2 is baseline amd64), expandAddVAES
// also AVX2 and VAES.
var expandAsms = available(
	asmExpansion{"vaes", expandAddVAES, cpu.X86.HasAES && cpu.X86.HasAVX2 && cpu.X86.HasAVX512VAES},
	asmExpansion{"aesni", expandAddAsm, cpu.X86.HasAES},
)

// expandAddAsm adds (negate: subtracts) the expansion under key to sum
// lane by lane: AES-256-CTR's keystream as keystream makes it, generated
// and added in registers, with rk as the key schedule's scratch. One call
// replaces aes.NewCipher, cipher.NewCTR, the keystream's buffer and
// addLanes: no allocation, and each keystream block is added as it is made.
//
//go:noescape
func expandAddAsm(key *[32]byte, rk *[240]byte, sum *[Size]byte, negate bool)

// expandAddVAES is expandAddAsm on YMM registers, two blocks per
// instruction.
//
//go:noescape
func expandAddVAES(key *[32]byte, rk *[240]byte, sum *[Size]byte, negate bool)
