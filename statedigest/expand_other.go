//go:build !amd64 || purego

package statedigest

// expandAsms: no assembly expansion on this platform or build.
var expandAsms []asmExpansion
