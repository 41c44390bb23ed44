//go:build !purego

#include "textflag.h"

// ctrOne adds one to the last byte of a counter block (the low byte of
// the big-endian counter: the blocks here count from 0 to 127 only).
DATA ctrOne<>+0(SB)/8, $0
DATA ctrOne<>+8(SB)/8, $0x0100000000000000
GLOBL ctrOne<>(SB), RODATA|NOPTR, $16

// KEY_EVEN derives the next even round key in X1 from X1 and the
// AESKEYGENASSIST output in X2 (FIPS-197 key expansion, Intel's AES-NI
// white paper, AES-256: RotWord+SubWord+Rcon word in lane 3).
#define KEY_EVEN \
	PSHUFD $0xff, X2, X2 \
	MOVO   X1, X4        \
	PSLLO  $4, X4        \
	PXOR   X4, X1        \
	PSLLO  $4, X4        \
	PXOR   X4, X1        \
	PSLLO  $4, X4        \
	PXOR   X4, X1        \
	PXOR   X2, X1

// KEY_ODD derives the next odd round key in X3 from X3 and the new even
// key in X1 (SubWord without rotation or Rcon, lane 2).
#define KEY_ODD \
	AESKEYGENASSIST $0x00, X1, X2 \
	PSHUFD $0xaa, X2, X2 \
	MOVO   X3, X4        \
	PSLLO  $4, X4        \
	PXOR   X4, X3        \
	PSLLO  $4, X4        \
	PXOR   X4, X3        \
	PSLLO  $4, X4        \
	PXOR   X4, X3        \
	PXOR   X2, X3

// ROUND applies round key off(BX) to the eight blocks X0-X7.
#define ROUND(off) \
	MOVOU off(BX), X8 \
	AESENC X8, X0     \
	AESENC X8, X1     \
	AESENC X8, X2     \
	AESENC X8, X3     \
	AESENC X8, X4     \
	AESENC X8, X5     \
	AESENC X8, X6     \
	AESENC X8, X7

// LANES adds (OP = PADDW) or subtracts (PSUBW) block X into the sum's 16
// bytes at off(DI), eight 16-bit little-endian lanes.
#define LANES(OP, X, off) \
	MOVOU off(DI), X8 \
	OP    X, X8       \
	MOVOU X8, off(DI)

#define ALL_LANES(OP) \
	LANES(OP, X0, 0)   \
	LANES(OP, X1, 16)  \
	LANES(OP, X2, 32)  \
	LANES(OP, X3, 48)  \
	LANES(OP, X4, 64)  \
	LANES(OP, X5, 80)  \
	LANES(OP, X6, 96)  \
	LANES(OP, X7, 112)

// KEY_SCHEDULE writes AES-256's 15 round keys for the key at (AX) to
// (BX), 16 bytes each.
#define KEY_SCHEDULE \
	MOVOU (AX), X1 \
	MOVOU 16(AX), X3 \
	MOVOU X1, 0(BX) \
	MOVOU X3, 16(BX) \
	AESKEYGENASSIST $0x01, X3, X2 \
	KEY_EVEN \
	MOVOU X1, 32(BX) \
	KEY_ODD \
	MOVOU X3, 48(BX) \
	AESKEYGENASSIST $0x02, X3, X2 \
	KEY_EVEN \
	MOVOU X1, 64(BX) \
	KEY_ODD \
	MOVOU X3, 80(BX) \
	AESKEYGENASSIST $0x04, X3, X2 \
	KEY_EVEN \
	MOVOU X1, 96(BX) \
	KEY_ODD \
	MOVOU X3, 112(BX) \
	AESKEYGENASSIST $0x08, X3, X2 \
	KEY_EVEN \
	MOVOU X1, 128(BX) \
	KEY_ODD \
	MOVOU X3, 144(BX) \
	AESKEYGENASSIST $0x10, X3, X2 \
	KEY_EVEN \
	MOVOU X1, 160(BX) \
	KEY_ODD \
	MOVOU X3, 176(BX) \
	AESKEYGENASSIST $0x20, X3, X2 \
	KEY_EVEN \
	MOVOU X1, 192(BX) \
	KEY_ODD \
	MOVOU X3, 208(BX) \
	AESKEYGENASSIST $0x40, X3, X2 \
	KEY_EVEN \
	MOVOU X1, 224(BX)

// func expandAddAsm(key *[32]byte, rk *[240]byte, sum *[2048]byte, negate bool)
//
// Adds to (or, with negate, subtracts from) sum, lane by lane mod 2^16,
// the keystream of AES-256 in counter mode under key with a zero IV: the
// encryptions of the counter blocks 0 to 127. rk is scratch for the key
// schedule. The result equals expand's (TestAsmMatchesReference).
TEXT ·expandAddAsm(SB), NOSPLIT, $0-25
	MOVQ key+0(FP), AX
	MOVQ rk+8(FP), BX
	MOVQ sum+16(FP), DI
	MOVBQZX negate+24(FP), DX

	KEY_SCHEDULE

	// Counter blocks, eight at a time: X9 the next counter, X10 one.
	PXOR  X9, X9
	MOVOU ctrOne<>(SB), X10
	MOVQ  $16, CX

loop:
	MOVOU 0(BX), X8
	MOVO  X9, X0
	PADDB X10, X9
	MOVO  X9, X1
	PADDB X10, X9
	MOVO  X9, X2
	PADDB X10, X9
	MOVO  X9, X3
	PADDB X10, X9
	MOVO  X9, X4
	PADDB X10, X9
	MOVO  X9, X5
	PADDB X10, X9
	MOVO  X9, X6
	PADDB X10, X9
	MOVO  X9, X7
	PADDB X10, X9
	PXOR  X8, X0
	PXOR  X8, X1
	PXOR  X8, X2
	PXOR  X8, X3
	PXOR  X8, X4
	PXOR  X8, X5
	PXOR  X8, X6
	PXOR  X8, X7
	ROUND(16)
	ROUND(32)
	ROUND(48)
	ROUND(64)
	ROUND(80)
	ROUND(96)
	ROUND(112)
	ROUND(128)
	ROUND(144)
	ROUND(160)
	ROUND(176)
	ROUND(192)
	ROUND(208)
	MOVOU      224(BX), X8
	AESENCLAST X8, X0
	AESENCLAST X8, X1
	AESENCLAST X8, X2
	AESENCLAST X8, X3
	AESENCLAST X8, X4
	AESENCLAST X8, X5
	AESENCLAST X8, X6
	AESENCLAST X8, X7
	TESTQ DX, DX
	JNZ   subtract
	ALL_LANES(PADDW)
	JMP   next

subtract:
	ALL_LANES(PSUBW)

next:
	ADDQ $128, DI
	DECQ CX
	JNZ  loop
	RET

// ctrPair holds the counter blocks 0 and 1; ctrTwo adds two to both.
DATA ctrPair<>+0(SB)/8, $0
DATA ctrPair<>+8(SB)/8, $0
DATA ctrPair<>+16(SB)/8, $0
DATA ctrPair<>+24(SB)/8, $0x0100000000000000
GLOBL ctrPair<>(SB), RODATA|NOPTR, $32
DATA ctrTwo<>+0(SB)/8, $0
DATA ctrTwo<>+8(SB)/8, $0x0200000000000000
DATA ctrTwo<>+16(SB)/8, $0
DATA ctrTwo<>+24(SB)/8, $0x0200000000000000
GLOBL ctrTwo<>(SB), RODATA|NOPTR, $32

// VROUND applies round key off(BX), in both lanes of Y8, to the sixteen
// blocks in Y0-Y7.
#define VROUND(off) \
	VBROADCASTI128 off(BX), Y8 \
	VAESENC Y8, Y0, Y0 \
	VAESENC Y8, Y1, Y1 \
	VAESENC Y8, Y2, Y2 \
	VAESENC Y8, Y3, Y3 \
	VAESENC Y8, Y4, Y4 \
	VAESENC Y8, Y5, Y5 \
	VAESENC Y8, Y6, Y6 \
	VAESENC Y8, Y7, Y7

// VLANES adds (OP = VPADDW) or subtracts (VPSUBW) the two blocks in Y into
// the sum's 32 bytes at off(DI).
#define VLANES(OP, Y, off) \
	VMOVDQU off(DI), Y8 \
	OP      Y, Y8, Y8   \
	VMOVDQU Y8, off(DI)

#define VALL_LANES(OP) \
	VLANES(OP, Y0, 0)   \
	VLANES(OP, Y1, 32)  \
	VLANES(OP, Y2, 64)  \
	VLANES(OP, Y3, 96)  \
	VLANES(OP, Y4, 128) \
	VLANES(OP, Y5, 160) \
	VLANES(OP, Y6, 192) \
	VLANES(OP, Y7, 224)

// VNEXT puts the next two counter blocks, whitened with round key 0 (Y11),
// in Y and advances the counter Y9 by two (Y10).
#define VNEXT(Y) \
	VPXOR  Y11, Y9, Y \
	VPADDB Y10, Y9, Y9

// func expandAddVAES(key *[32]byte, rk *[240]byte, sum *[2048]byte, negate bool)
//
// expandAddAsm with AVX2 and VAES: two counter blocks per YMM register,
// sixteen per round of the loop.
TEXT ·expandAddVAES(SB), NOSPLIT, $0-25
	MOVQ key+0(FP), AX
	MOVQ rk+8(FP), BX
	MOVQ sum+16(FP), DI
	MOVBQZX negate+24(FP), DX

	KEY_SCHEDULE

	VMOVDQU        ctrPair<>(SB), Y9
	VMOVDQU        ctrTwo<>(SB), Y10
	VBROADCASTI128 0(BX), Y11
	MOVQ           $8, CX

vloop:
	VNEXT(Y0)
	VNEXT(Y1)
	VNEXT(Y2)
	VNEXT(Y3)
	VNEXT(Y4)
	VNEXT(Y5)
	VNEXT(Y6)
	VNEXT(Y7)
	VROUND(16)
	VROUND(32)
	VROUND(48)
	VROUND(64)
	VROUND(80)
	VROUND(96)
	VROUND(112)
	VROUND(128)
	VROUND(144)
	VROUND(160)
	VROUND(176)
	VROUND(192)
	VROUND(208)
	VBROADCASTI128 224(BX), Y8
	VAESENCLAST    Y8, Y0, Y0
	VAESENCLAST    Y8, Y1, Y1
	VAESENCLAST    Y8, Y2, Y2
	VAESENCLAST    Y8, Y3, Y3
	VAESENCLAST    Y8, Y4, Y4
	VAESENCLAST    Y8, Y5, Y5
	VAESENCLAST    Y8, Y6, Y6
	VAESENCLAST    Y8, Y7, Y7
	TESTQ DX, DX
	JNZ   vsubtract
	VALL_LANES(VPADDW)
	JMP   vnext

vsubtract:
	VALL_LANES(VPSUBW)

vnext:
	ADDQ $256, DI
	DECQ CX
	JNZ  vloop
	VZEROUPPER
	RET
