package pggate

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/relchain/relchain/sqlcheck"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Rewrite rules (see also sqlcheck's package documentation).
//
// A clock call site (now(), current_timestamp[(p)], transaction_timestamp(),
// statement_timestamp(), clock_timestamp(), localtimestamp[(p)],
// current_date, current_time[(p)], localtime[(p)], unqualified or
// pg_catalog.) becomes a literal of env.Time (UTC, microseconds, truncated)
// cast to the call's type, with the call's precision:
//
//	now()              '2026-11-22 07:21:43.123456+00'::timestamptz
//	current_timestamp(0) '2026-11-22 07:21:43.123456+00'::timestamptz(0)
//	localtimestamp     '2026-11-22 07:21:43.123456'::timestamp
//	current_date       '2026-11-22'::date
//	current_time       '07:21:43.123456+00'::timetz
//	localtime(3)       '07:21:43.123456'::time(3)
//
// The literals carry their own zone (+00) or none, so their values do not
// depend on the session's TimeZone (which the backend pins to UTC anyway).
//
// The k-th random() call site (k = 0, 1, ... in the gate's walk order)
// becomes the float8 literal of the top 53 bits of
// SHA-256("relchain/random/v1" | env.Seed | k as 8 bytes big-endian) times
// 2^-53, a value in [0, 1), written in the shortest form that reads back
// exactly.
//
// The rewritten statement is PostgreSQL's deparse of the parse tree with
// those nodes replaced. A statement whose deparse does not parse back to
// the same tree is rejected, so what runs is exactly what the gate checked.

// siteKind is what a rewritten call site becomes.
type siteKind uint8

const (
	kindTimestamptz siteKind = iota
	kindTimestamp
	kindDate
	kindTime
	kindTimetz
	kindRandom
)

var kindTypes = [...]string{
	kindTimestamptz: "timestamptz",
	kindTimestamp:   "timestamp",
	kindDate:        "date",
	kindTime:        "time",
	kindTimetz:      "timetz",
	kindRandom:      "float8",
}

// site is one call site to rewrite.
type site struct {
	node   *pg_query.Node // the Node holding the call
	kind   siteKind
	typmod int32 // precision, or -1
	rnd    int   // for kindRandom: its number among the random() sites
}

// rename is an output column to name explicitly in the rewrite.
type rename struct {
	target *pg_query.ResTarget
	name   string
}

// isEnvCall reports whether n is a call the rewrite replaces.
func isEnvCall(n *pg_query.Node) bool {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_SqlvalueFunction:
		return true
	case *pg_query.Node_FuncCall:
		names := stringsOf(v.FuncCall.GetFuncname())
		if len(names) == 2 && names[0] == "pg_catalog" {
			names = names[1:]
		}
		if len(names) == 1 {
			_, clock := clockFuncs[names[0]]
			return clock || names[0] == "random"
		}
	}
	return false
}

// hole is a site as the template knows it.
type hole struct {
	kind siteKind
	rnd  int
}

// template is the rewritten text of a statement with a hole per call site,
// in text order: parts[0] hole[0] parts[1] ... hole[n-1] parts[n].
type template struct {
	parts []string
	holes []hole
}

// placeholderPrefix starts the string literals that mark the holes while
// the template is being built; a number is added to it if the statement
// itself holds the prefix.
const placeholderPrefix = "relchain_env_"

// buildTemplate replaces every site of tree by a cast of a placeholder
// string literal, deparses the tree, and cuts the text at the placeholders.
// It fails unless the deparsed text parses back to the same tree.
func buildTemplate(tree *pg_query.ParseResult, sites []site, renames []rename) (*template, error) {
	for _, r := range renames {
		r.target.Name = r.name
	}
	for nonce := 0; nonce < 8; nonce++ {
		prefix := placeholderPrefix + strconv.Itoa(nonce) + "_"
		quoted := make([]string, len(sites))
		for k, s := range sites {
			quoted[k] = "'" + prefix + strconv.Itoa(k) + "'"
			s.node.Node = placeholderCast(s, prefix+strconv.Itoa(k))
		}
		text, err := pg_query.Deparse(tree)
		if err != nil {
			return nil, fmt.Errorf("this statement reads the clock or random numbers and cannot be rewritten: PostgreSQL's deparser fails on it (%v)", err)
		}
		if strings.Count(text, prefix) != len(sites) {
			continue // the statement holds the prefix itself
		}
		type at struct{ pos, k int }
		var ats []at
		for k, q := range quoted {
			p := strings.Index(text, q)
			if p < 0 {
				return nil, errors.New("this statement reads the clock or random numbers and cannot be rewritten: a call site is missing from its deparse")
			}
			ats = append(ats, at{p, k})
		}
		if err := sameTree(tree, text); err != nil {
			return nil, err
		}
		slices.SortFunc(ats, func(a, b at) int { return a.pos - b.pos })
		t := &template{}
		from := 0
		for _, a := range ats {
			t.parts = append(t.parts, text[from:a.pos])
			t.holes = append(t.holes, hole{kind: sites[a.k].kind, rnd: sites[a.k].rnd})
			from = a.pos + len(quoted[a.k])
		}
		t.parts = append(t.parts, text[from:])
		return t, nil
	}
	return nil, errors.New("this statement reads the clock or random numbers and cannot be rewritten: it holds the rewriter's placeholder text")
}

// placeholderCast is the node that stands for a call site in the template:
// 'placeholder'::pg_catalog.type[(typmod)].
func placeholderCast(s site, placeholder string) *pg_query.Node_TypeCast {
	tn := &pg_query.TypeName{
		Names:    []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode(kindTypes[s.kind])},
		Typemod:  -1,
		Location: -1,
	}
	if s.typmod >= 0 {
		tn.Typmods = []*pg_query.Node{pg_query.MakeAConstIntNode(int64(s.typmod), -1)}
	}
	return &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{
		Arg:      pg_query.MakeAConstStrNode(placeholder, -1),
		TypeName: tn,
		Location: -1,
	}}
}

// sameTree fails unless text parses to tree (source positions aside).
func sameTree(tree *pg_query.ParseResult, text string) error {
	back, err := pg_query.Parse(text)
	if err == nil {
		stripPositions(tree.ProtoReflect())
		stripPositions(back.ProtoReflect())
		if proto.Equal(tree, back) {
			return nil
		}
	}
	return errors.New("this statement reads the clock or random numbers and cannot be rewritten: PostgreSQL's deparser does not reproduce it faithfully")
}

// stripPositions zeroes the source positions of a tree (location fields,
// a statement's position and length), which differ between a text and its
// deparse.
func stripPositions(m protoreflect.Message) {
	var clear []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.MessageKind && fd.IsList():
			l := v.List()
			for j := 0; j < l.Len(); j++ {
				stripPositions(l.Get(j).Message())
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			stripPositions(v.Message())
		case fd.Kind() == protoreflect.Int32Kind && (strings.HasSuffix(string(fd.Name()), "location") || fd.Name() == "stmt_len"):
			clear = append(clear, fd)
		}
		return true
	})
	for _, fd := range clear {
		m.Clear(fd)
	}
}

// fill renders the template with env's values.
func (t *template) fill(env sqlcheck.Env) (string, error) {
	tm := env.Time.UTC()
	if y := tm.Year(); y < 1 || y > 9999 {
		return "", fmt.Errorf("the block time %s cannot be written as a PostgreSQL literal", tm)
	}
	n := 0
	for _, p := range t.parts {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n + 40*len(t.holes))
	for i, h := range t.holes {
		b.WriteString(t.parts[i])
		b.WriteByte('\'')
		switch h.kind {
		case kindTimestamptz:
			b.WriteString(tm.Format("2006-01-02 15:04:05.000000"))
			b.WriteString("+00")
		case kindTimestamp:
			b.WriteString(tm.Format("2006-01-02 15:04:05.000000"))
		case kindDate:
			b.WriteString(tm.Format("2006-01-02"))
		case kindTime:
			b.WriteString(tm.Format("15:04:05.000000"))
		case kindTimetz:
			b.WriteString(tm.Format("15:04:05.000000"))
			b.WriteString("+00")
		case kindRandom:
			b.WriteString(strconv.FormatFloat(randomValue(env.Seed, h.rnd), 'g', -1, 64))
		}
		b.WriteByte('\'')
	}
	b.WriteString(t.parts[len(t.parts)-1])
	return b.String(), nil
}

// randomValue is the value of the k-th random() call site under seed: the
// top 53 bits of SHA-256("relchain/random/v1" | seed | k) times 2^-53.
func randomValue(seed [32]byte, k int) float64 {
	var buf [18 + 32 + 8]byte
	copy(buf[:], "relchain/random/v1")
	copy(buf[18:], seed[:])
	binary.BigEndian.PutUint64(buf[50:], uint64(k))
	sum := sha256.Sum256(buf[:])
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) * 0x1p-53
}
