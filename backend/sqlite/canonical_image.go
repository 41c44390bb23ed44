package sqlite

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// parseImage reads a change record's image (rowImage: SQLite's quote() of
// each of n columns, joined by commas) back into the stored values: nil
// (NULL), int64 (an integer), float64 (a REAL, which quote() always
// writes with a point or an exponent; 9.0e+999 is an infinity), string
// ('text' with ” for ') or []byte (X'hex').
func parseImage(img []byte, n int) ([]any, error) {
	vals := make([]any, 0, n)
	for len(vals) < n {
		if len(vals) > 0 {
			if len(img) == 0 || img[0] != ',' {
				return nil, fmt.Errorf("image: no comma after column %d", len(vals))
			}
			img = img[1:]
		}
		v, rest, err := parseQuoted(img)
		if err != nil {
			return nil, fmt.Errorf("image: column %d: %w", len(vals)+1, err)
		}
		vals, img = append(vals, v), rest
	}
	if len(img) != 0 {
		return nil, fmt.Errorf("image: %d bytes after %d columns", len(img), n)
	}
	return vals, nil
}

// parseQuoted reads one quote() value at the start of s.
func parseQuoted(s []byte) (v any, rest []byte, err error) {
	switch {
	case bytes.HasPrefix(s, []byte("NULL")):
		return nil, s[4:], nil
	case len(s) > 0 && s[0] == '\'':
		return parseText(s[1:])
	case bytes.HasPrefix(s, []byte("X'")):
		end := bytes.IndexByte(s[2:], '\'')
		if end < 0 {
			return nil, nil, errors.New("unterminated blob")
		}
		b := make([]byte, end/2)
		if _, err := hex.Decode(b, s[2:2+end]); err != nil || end%2 != 0 {
			return nil, nil, fmt.Errorf("blob %q", s[:3+end])
		}
		return b, s[3+end:], nil
	}
	end := bytes.IndexByte(s, ',')
	if end < 0 {
		end = len(s)
	}
	num := string(s[:end])
	if i, err := strconv.ParseInt(num, 10, 64); err == nil {
		return i, s[end:], nil
	}
	f, err := strconv.ParseFloat(num, 64)
	var ne *strconv.NumError
	if err != nil && !(errors.As(err, &ne) && ne.Err == strconv.ErrRange) {
		return nil, nil, fmt.Errorf("number %q", num)
	}
	return f, s[end:], nil
}

// parseText reads a quoted text's body, s following its opening quote.
func parseText(s []byte) (any, []byte, error) {
	var out []byte
	for {
		i := bytes.IndexByte(s, '\'')
		if i < 0 {
			return nil, nil, errors.New("unterminated text")
		}
		out = append(out, s[:i]...)
		if i+1 < len(s) && s[i+1] == '\'' {
			out = append(out, '\'')
			s = s[i+2:]
			continue
		}
		return string(out), s[i+1:], nil
	}
}
