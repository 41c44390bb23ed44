package docgate

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
)

// Slug is the anchor GitHub gives a heading's text: markup removed (code
// spans keep their text, links their label), lower case, every space a
// hyphen, and every character but letters, digits, marks, hyphens and
// underscores dropped.
func Slug(heading string) string {
	text := inlineLink.ReplaceAllString(heading, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	text = strings.NewReplacer("`", "", "**", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.TrimSpace(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), unicode.IsMark(r):
			b.WriteRune(unicode.ToLower(r))
		case r == ' ':
			b.WriteByte('-')
		case r == '-', r == '_':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors returns the anchors of a markdown page's headings (ATX headings
// outside fenced code blocks); a repeated slug gets GitHub's suffix -1, -2, ….
func Anchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(markdown) {
		text, ok := headingText(line.text)
		if !ok {
			continue
		}
		s := Slug(text)
		if n := seen[s]; n > 0 {
			seen[s] = n + 1
			s = s + "-" + itoa(n)
		} else {
			seen[s] = 1
		}
		anchors[s] = true
	}
	return anchors
}

// headingText is the text of an ATX heading line ("## Text ##").
func headingText(line string) (string, bool) {
	trimmed := strings.TrimLeft(line, "#")
	level := len(line) - len(trimmed)
	if level == 0 || level > 6 || (trimmed != "" && trimmed[0] != ' ' && trimmed[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(trimmed), "#")), true
}

// line is one line of a page with its 1-based number.
type line struct {
	n    int
	text string
}

// proseLines are a page's lines outside fenced code blocks (``` or ~~~).
func proseLines(markdown string) []line {
	var out []line
	fence := ""
	for i, l := range strings.Split(markdown, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		default:
			out = append(out, line{n: i + 1, text: l})
		}
	}
	return out
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
