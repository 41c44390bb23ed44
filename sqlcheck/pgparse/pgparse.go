package pgparse

import (
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Bounds of the cache: past maxEntries texts it starts again empty; an
// encoding longer than maxEncoding is not kept (such a text is parsed
// again by the next pass; statements are short).
const (
	maxEntries  = 1024
	maxEncoding = 64 << 10
)

var cache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Forget empties the cache. Tests that measure the parser's own work (the
// gates' linearity tests) call it before each run: a text whose encoding
// is kept costs only its decoding, so a small text kept and a large one
// not (past maxEncoding) would read as superlinear growth.
func Forget() {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	cache.m = nil
}

// Parse is pg_query.Parse(sql): the parse tree of sql, the caller's own,
// or libpg_query's error. sql must have passed prescan.Check
// (prescan.PostgreSQL). A text parsed recently is decoded from its kept
// encoding without calling libpg_query again.
func Parse(sql string) (*pg_query.ParseResult, error) {
	enc, ok := lookup(sql)
	if !ok {
		var err error
		if enc, err = parser.ParseToProtobuf(sql); err != nil {
			return nil, err
		}
		keep(sql, enc)
	}
	tree := &pg_query.ParseResult{}
	if err := proto.Unmarshal(enc, tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// lookup is the kept encoding of sql.
func lookup(sql string) ([]byte, bool) {
	cache.mu.Lock()
	defer cache.mu.Unlock()
	enc, ok := cache.m[sql]
	return enc, ok
}

// keep keeps the encoding of sql (never changed after: callers only read
// it).
func keep(sql string, enc []byte) {
	if len(enc) > maxEncoding {
		return
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if cache.m == nil || len(cache.m) >= maxEntries {
		cache.m = make(map[string][]byte)
	}
	cache.m[strings.Clone(sql)] = enc // not the caller's larger buffer
}

// Children calls fn on each message directly below m (the set message
// fields, each element of a list), in field order, until fn returns
// false; it reports whether every call returned true. The walks over
// parse trees share it; a Node's hundreds of kinds are one oneof, asked
// which field it holds (childFields).
func Children(m protoreflect.Message, fn func(protoreflect.Message) bool) bool {
	for _, c := range childFields(m.Descriptor()) {
		fd := c.field
		if c.oneof != nil {
			if fd = m.WhichOneof(c.oneof); fd == nil || fd.Kind() != protoreflect.MessageKind {
				continue
			}
		} else if !m.Has(fd) {
			continue
		}
		if !fd.IsList() {
			if !fn(m.Get(fd).Message()) {
				return false
			}
			continue
		}
		l := m.Get(fd).List()
		for j := 0; j < l.Len(); j++ {
			if !fn(l.Get(j).Message()) {
				return false
			}
		}
	}
	return true
}

// childField is a message field of a message type that may hold a child:
// a field outside any oneof, or a oneof (field nil) holding messages.
type childField struct {
	field protoreflect.FieldDescriptor
	oneof protoreflect.OneofDescriptor
}

var childFieldsByType sync.Map // protoreflect.FullName -> []childField

// childFields are md's message fields in field order, each oneof once (at
// its first field); computed once per message type.
func childFields(md protoreflect.MessageDescriptor) []childField {
	if v, ok := childFieldsByType.Load(md.FullName()); ok {
		return v.([]childField)
	}
	var out []childField
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if od.Fields().Get(0) == fd {
				out = append(out, childField{oneof: od})
			}
			continue
		}
		if fd.Kind() == protoreflect.MessageKind && !fd.IsMap() {
			out = append(out, childField{field: fd})
		}
	}
	childFieldsByType.Store(md.FullName(), out)
	return out
}
