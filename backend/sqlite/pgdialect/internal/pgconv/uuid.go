package pgconv

import "encoding/hex"

// ParseUUID is PostgreSQL's uuid_in (string_to_uuid): 32 hex digits of
// either case, a hyphen allowed after every fourth digit (not after the
// last), the whole optionally in braces, nothing else (no blanks). The
// result is uuid_out's text, lower case and hyphenated 8-4-4-4-12, whose
// byte order is the order of the 16 bytes PostgreSQL compares.
func ParseUUID(s string) (string, error) {
	src := s
	braces := len(src) > 0 && src[0] == '{'
	if braces {
		src = src[1:]
	}
	var b [16]byte
	for i := range b {
		if len(src) < 2 {
			return "", invalidInput("uuid", s)
		}
		hi, ok1 := hexVal(src[0])
		lo, ok2 := hexVal(src[1])
		if !ok1 || !ok2 {
			return "", invalidInput("uuid", s)
		}
		b[i] = hi<<4 | lo
		src = src[2:]
		if len(src) > 0 && src[0] == '-' && i%2 == 1 && i < 15 {
			src = src[1:]
		}
	}
	if braces {
		if len(src) == 0 || src[0] != '}' {
			return "", invalidInput("uuid", s)
		}
		src = src[1:]
	}
	if src != "" {
		return "", invalidInput("uuid", s)
	}
	return FormatUUID(b), nil
}

// FormatUUID is uuid_out: lower-case hex, hyphenated 8-4-4-4-12.
func FormatUUID(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
