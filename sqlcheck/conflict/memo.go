package conflict

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Memo is a Catalog that remembers the analyses it served. A block
// repeats a few statement texts with other arguments, and analysing one
// (walking its parse tree) costs 5-17 µs. A Memo keeps:
//
//   - for a text whose answer depends on no argument (no key pinned by a
//     parameter $n), the answer itself: every Smallbank transfer that
//     finds its accounts by a literal name gets the same Access;
//   - for a text whose answer does, a template per argument shape: the
//     answer computed with each argument's key value replaced by a mark
//     naming the parameter and the key's kind (argMark), into which a
//     later call's arguments are filled (instantiate).
//
// The template is sound because an argument reaches the analysis only
// through argValue, whose success depends on the argument's shape alone
// (argShape: an int64, a string that is a canonical integer, another
// string, anything else), and its text goes only into a key's Row, never
// into a decision: arguments of one shape take the analysis down the same
// path to the same keys, with their own values in the rows. Filling
// normalizes again (two parameters may bring equal values).
//
// A backend makes one Memo per schema it reads and hands it out until the
// schema changes; Analyze finds it by type. It changes no answer: what it
// returns is what Analyze computes without it (TestMemoAnswersAsAnalyze).
type Memo struct {
	Catalog
	mu sync.RWMutex
	m  map[string]Access // by text: answers that depend on no argument
	t  map[string]Access // by text and argument shape: templates
}

// maxMemo bounds each of a Memo's maps: past it, that map starts again
// empty.
const maxMemo = 4096

// NewMemo wraps cat, a catalog that does not change.
func NewMemo(cat Catalog) *Memo { return &Memo{Catalog: cat} }

func (m *Memo) get(sql string) (Access, bool) {
	m.mu.RLock()
	acc, ok := m.m[sql]
	m.mu.RUnlock()
	if !ok {
		return Access{}, false
	}
	return acc.clone(), true
}

func (m *Memo) put(sql string, acc Access) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= maxMemo {
		m.m = make(map[string]Access)
	}
	m.m[sql] = acc.clone()
}

// template is sql's template for arguments of shape, if remembered. A
// template is never handed out: instantiate copies it.
func (m *Memo) template(sql, shape string) (Access, bool) {
	m.mu.RLock()
	tpl, ok := m.t[sql+"\x00"+shape]
	m.mu.RUnlock()
	return tpl, ok
}

func (m *Memo) putTemplate(sql, shape string, tpl Access) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.t == nil || len(m.t) >= maxMemo {
		m.t = make(map[string]Access)
	}
	m.t[sql+"\x00"+shape] = tpl.clone()
}

// argShape is what of each argument decides argValue's success.
func argShape(args []any) string {
	b := make([]byte, len(args))
	for i, v := range args {
		switch v := v.(type) {
		case int64:
			b[i] = 'i'
		case string:
			b[i] = 's'
			if _, ok := intText(v); ok {
				b[i] = 'n'
			}
		default:
			b[i] = 'o'
		}
	}
	return string(b)
}

// argMark stands for parameter $i's key value of kind k in a template.
// It starts with a NUL byte, which no argument's text in a template and
// no literal of a text that has a template holds (analyzeWith).
func argMark(i int, k Kind) string {
	return "\x00" + strconv.Itoa(i) + ":" + strconv.Itoa(int(k))
}

// parseMark is the parameter and kind of a mark; false for anything else.
func parseMark(s string) (i int, k Kind, ok bool) {
	rest, isMark := strings.CutPrefix(s, "\x00")
	if !isMark {
		return 0, 0, false
	}
	is, ks, found := strings.Cut(rest, ":")
	i, err1 := strconv.Atoi(is)
	kn, err2 := strconv.Atoi(ks)
	if !found || err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return i, Kind(kn), true
}

// instantiate is the template's answer for args (of the template's
// shape): each mark replaced by its argument's key value, normalized.
// false if an argument does not give its value (a shape that differs).
func (a Access) instantiate(args []any) (Access, bool) {
	reads, ok1 := fill(a.Reads, args)
	writes, ok2 := fill(a.Writes, args)
	if !ok1 || !ok2 {
		return Access{}, false
	}
	acc := Access{Reads: reads, Writes: writes, All: a.All}
	acc.normalize()
	return acc, true
}

// fill is keys with the marks in their rows replaced by args' values.
func fill(keys []Key, args []any) ([]Key, bool) {
	if keys == nil {
		return nil, true
	}
	out := make([]Key, len(keys))
	for j, k := range keys {
		if strings.IndexByte(k.Row, 0) >= 0 {
			parts, ok := splitRowKey(k.Row)
			if !ok {
				return nil, false
			}
			for n, p := range parts {
				i, kind, isMark := parseMark(p)
				if !isMark {
					continue
				}
				if i < 1 || i > len(args) {
					return nil, false
				}
				if parts[n], ok = argValue(args[i-1], kind); !ok {
					return nil, false
				}
			}
			k.Row = rowKey(parts)
		}
		out[j] = k
	}
	return out, true
}

// splitRowKey is rowKey's values back.
func splitRowKey(row string) ([]string, bool) {
	var vals []string
	for row != "" {
		n, rest, found := strings.Cut(row, ":")
		size, err := strconv.Atoi(n)
		if !found || err != nil || size < 0 || size > len(rest) {
			return nil, false
		}
		vals = append(vals, rest[:size])
		row = rest[size:]
	}
	return vals, true
}

// clone is a with slices of its own.
func (a Access) clone() Access {
	return Access{Reads: slices.Clone(a.Reads), Writes: slices.Clone(a.Writes), All: a.All}
}
