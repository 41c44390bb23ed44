package sqlcheck

import "strings"

// ContainsFold reports whether s contains word (lower-case ASCII) in any
// case, without copying s: one byte compared per position of s but where
// word's first letter is. A cheap test before a parse: a text that does
// not name word need not be parsed for it.
func ContainsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}
