//go:build !purego

package statedigest

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// On an amd64 CPU with AES-NI (CI's among them) the assembly expansion is
// what Add uses, and the tests of it run rather than skip; with AVX2 and
// VAES the faster variant comes first.
func TestAsmSelectedWhereTheCPUHasIt(t *testing.T) {
	if !cpu.X86.HasAES {
		t.Skip("this CPU has no AES-NI: Add uses the portable path")
	}
	if len(expandAsms) == 0 || expandAdd == nil {
		t.Fatal("the CPU has AES-NI but no assembly expansion was selected")
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasAVX512VAES && expandAsms[0].name != "vaes" {
		t.Fatalf("the CPU has AVX2 and VAES but %s was selected", expandAsms[0].name)
	}
}
