package txn

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Envelope versions. Encode writes VersionSingle for a Tx without Groups
// or Expect, VersionBatch for one with Groups and VersionExpect for one
// with Expect; Decode reads all three.
const (
	// VersionSingle: the bc-transaction is one wl-transaction, executed
	// atomically.
	VersionSingle = 1
	// VersionBatch: the statements are split into wl-transactions
	// (Tx.Groups), each executed atomically on its own.
	VersionBatch = 2
	// VersionExpect: one wl-transaction whose statements carry what the
	// client observed when it ran them (Tx.Expect): an interactive
	// transaction that commits only if the block reproduces it.
	VersionExpect = 3
	// Version is the newest version this package speaks.
	Version = VersionExpect
)

// magic starts every encoded envelope so that stray bytes are rejected early.
var magic = [3]byte{'R', 'L', 'C'}

// Limits that keep a hostile envelope from making a decoder allocate without bound.
const (
	MaxStatements = 65535
	MaxArgs       = 4096
	MaxChainID    = 64
)

// ArgKind is the type tag of an argument.
type ArgKind uint8

// Argument kinds. The numeric values are part of the wire format.
const (
	KindNull  ArgKind = 0
	KindInt   ArgKind = 1
	KindFloat ArgKind = 2
	KindText  ArgKind = 3
	KindBytes ArgKind = 4
	KindBool  ArgKind = 5
)

func (k ArgKind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindText:
		return "text"
	case KindBytes:
		return "bytes"
	case KindBool:
		return "bool"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Arg is one typed positional argument. Only the field matching Kind is used.
type Arg struct {
	Kind  ArgKind
	Int   int64
	Float float64
	Text  string
	Bytes []byte
	Bool  bool
}

// Null, Int, Float, Text, Bytes and Bool build arguments.
func Null() Arg              { return Arg{Kind: KindNull} }
func Int(v int64) Arg        { return Arg{Kind: KindInt, Int: v} }
func Float(v float64) Arg    { return Arg{Kind: KindFloat, Float: v} }
func Text(v string) Arg      { return Arg{Kind: KindText, Text: v} }
func Bytes(v []byte) Arg     { return Arg{Kind: KindBytes, Bytes: v} }
func Bool(v bool) Arg        { return Arg{Kind: KindBool, Bool: v} }
func (a Arg) IsNull() bool   { return a.Kind == KindNull }
func (a Arg) String() string { return fmt.Sprintf("%s:%v", a.Kind, a.Value()) }

// Value returns the argument as a Go value for a database driver:
// nil, int64, float64, string, []byte or bool.
func (a Arg) Value() any {
	switch a.Kind {
	case KindInt:
		return a.Int
	case KindFloat:
		return a.Float
	case KindText:
		return a.Text
	case KindBytes:
		return a.Bytes
	case KindBool:
		return a.Bool
	}
	return nil
}

// Statement is one SQL statement with its positional arguments.
type Statement struct {
	SQL  string
	Args []Arg
}

// Tx is a bc-transaction.
type Tx struct {
	ChainID    string
	Nonce      uint64
	PubKey     ed25519.PublicKey
	Statements []Statement
	// Groups, when not empty, splits Statements into wl-transactions (a
	// pseudo-synchronous batch): the first Groups[0] statements are the
	// first wl-transaction, and so on. Every entry is at least 1 and they
	// add up to len(Statements). Each wl-transaction is executed in its own
	// savepoint and has its own outcome; a failing one is rolled back
	// alone. Without Groups the whole bc-transaction is one wl-transaction.
	Groups []int
	// Expect, when not empty, has one entry per statement (and no Groups):
	// an Observation of the statement's results as the client saw them,
	// or nil where the client asked for no check. The executor compares
	// each statement's results in the block with it, and rolls the whole
	// bc-transaction back with a conflict when one differs.
	Expect    []Observation
	Signature []byte
}

// Observation is what a client observed of one statement's results: an
// ObserveMode byte followed by the 32-byte digest of the observed part
// (see package app's Observe).
type Observation []byte

// ObservationSize is the size of a non-nil Observation.
const ObservationSize = 33

// ObserveMode says which part of a statement's results an Observation
// digests.
type ObserveMode byte

const (
	// ObserveAll digests the columns, every row's values and the rows
	// affected.
	ObserveAll ObserveMode = 1
	// ObserveCounts digests only how many rows the statement returned and
	// affected: for statements whose values depend on the block's clock or
	// random seed, which differ between the client's run and the block.
	ObserveCounts ObserveMode = 2
)

// CheckExpect reports whether Expect is valid: empty, or one well-formed
// entry (nil or ObservationSize bytes with a known mode) per statement,
// and no Groups.
func (t *Tx) CheckExpect() error {
	if len(t.Expect) == 0 {
		return nil
	}
	if len(t.Groups) > 0 {
		return errors.New("a transaction cannot carry both wl-transaction groups and observations")
	}
	if len(t.Expect) != len(t.Statements) {
		return fmt.Errorf("%d observations for %d statements", len(t.Expect), len(t.Statements))
	}
	for i, o := range t.Expect {
		if len(o) == 0 {
			continue
		}
		if len(o) != ObservationSize {
			return fmt.Errorf("observation %d has %d bytes, want %d", i+1, len(o), ObservationSize)
		}
		if m := ObserveMode(o[0]); m != ObserveAll && m != ObserveCounts {
			return fmt.Errorf("observation %d has unknown mode %d", i+1, m)
		}
	}
	return nil
}

// CheckGroups reports whether Groups is a valid split of Statements.
func (t *Tx) CheckGroups() error {
	if len(t.Groups) == 0 {
		return nil
	}
	sum := 0
	for i, g := range t.Groups {
		if g < 1 {
			return fmt.Errorf("wl-transaction %d has %d statements, want at least 1", i+1, g)
		}
		sum += g
		if sum > len(t.Statements) {
			break
		}
	}
	if sum != len(t.Statements) {
		return fmt.Errorf("wl-transactions cover %d statements, the transaction has %d", sum, len(t.Statements))
	}
	return nil
}

// WL returns the statements of the i-th wl-transaction (0-based) and the
// index of its first statement in Statements. Without Groups, WL(0) is
// every statement.
func (t *Tx) WL(i int) ([]Statement, int) {
	if len(t.Groups) == 0 {
		return t.Statements, 0
	}
	off := 0
	for _, g := range t.Groups[:i] {
		off += g
	}
	return t.Statements[off : off+t.Groups[i]], off
}

// NumWL returns the number of wl-transactions t carries.
func (t *Tx) NumWL() int {
	if len(t.Groups) == 0 {
		return 1
	}
	return len(t.Groups)
}

// Errors returned by Decode and Verify. Callers map them to result codes.
var (
	ErrMalformed    = errors.New("malformed envelope")
	ErrBadSignature = errors.New("bad signature")
)

// SignBytes returns the bytes the signature covers: the whole encoding
// without the trailing signature.
func (t *Tx) SignBytes() []byte {
	return t.appendBody(make([]byte, 0, t.sizeHint()))
}

// Sign sets PubKey and Signature from priv.
func (t *Tx) Sign(priv ed25519.PrivateKey) {
	t.PubKey = priv.Public().(ed25519.PublicKey)
	t.Signature = ed25519.Sign(priv, t.SignBytes())
}

// Verify checks the signature against PubKey.
func (t *Tx) Verify() error {
	if len(t.PubKey) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: public key has %d bytes, want %d", ErrBadSignature, len(t.PubKey), ed25519.PublicKeySize)
	}
	if len(t.Signature) != ed25519.SignatureSize {
		return fmt.Errorf("%w: signature has %d bytes, want %d", ErrBadSignature, len(t.Signature), ed25519.SignatureSize)
	}
	if !ed25519.Verify(t.PubKey, t.SignBytes(), t.Signature) {
		return fmt.Errorf("%w: signature does not match the transaction and public key", ErrBadSignature)
	}
	return nil
}

// Encode returns the canonical encoding of t (body followed by the signature).
func Encode(t *Tx) []byte {
	b := t.appendBody(make([]byte, 0, t.sizeHint()+ed25519.SignatureSize+2))
	return appendBytes(b, t.Signature)
}

// Hash returns the tx hash of an encoded envelope (SHA-256, as CometBFT).
func Hash(encoded []byte) []byte {
	h := sha256.Sum256(encoded)
	return h[:]
}

func (t *Tx) sizeHint() int {
	n := 16 + len(t.ChainID) + len(t.PubKey) + 3*len(t.Groups) + (ObservationSize+1)*len(t.Expect)
	for _, s := range t.Statements {
		n += len(s.SQL) + 8 + 10*len(s.Args)
		for _, a := range s.Args {
			n += len(a.Text) + len(a.Bytes)
		}
	}
	return n
}

func (t *Tx) appendBody(b []byte) []byte {
	b = append(b, magic[:]...)
	b = append(b, t.version())
	b = appendString(b, t.ChainID)
	b = binary.AppendUvarint(b, t.Nonce)
	b = appendBytes(b, t.PubKey)
	b = binary.AppendUvarint(b, uint64(len(t.Statements)))
	for _, s := range t.Statements {
		b = AppendStatement(b, s)
	}
	switch t.version() {
	case VersionBatch:
		b = binary.AppendUvarint(b, uint64(len(t.Groups)))
		for _, g := range t.Groups {
			b = binary.AppendUvarint(b, uint64(g))
		}
	case VersionExpect:
		for _, o := range t.Expect {
			b = appendBytes(b, o)
		}
	}
	return b
}

// version is the envelope version Encode writes for t.
func (t *Tx) version() byte {
	switch {
	case len(t.Expect) > 0:
		return VersionExpect
	case len(t.Groups) > 0:
		return VersionBatch
	default:
		return VersionSingle
	}
}

// AppendStatement appends the canonical encoding of one statement.
func AppendStatement(b []byte, s Statement) []byte {
	b = appendString(b, s.SQL)
	b = binary.AppendUvarint(b, uint64(len(s.Args)))
	for _, a := range s.Args {
		b = append(b, byte(a.Kind))
		switch a.Kind {
		case KindInt:
			b = binary.AppendVarint(b, a.Int)
		case KindFloat:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(a.Float))
		case KindText:
			b = appendString(b, a.Text)
		case KindBytes:
			b = appendBytes(b, a.Bytes)
		case KindBool:
			if a.Bool {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, p []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(p)))
	return append(b, p...)
}

// Decode parses an encoded envelope. It does not verify the signature.
// Any input that is not exactly the canonical encoding of its value is
// rejected with an error wrapping ErrMalformed.
func Decode(p []byte) (*Tx, error) {
	d := decoder{p: p}
	t, err := d.tx()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if d.off != len(d.p) {
		return nil, fmt.Errorf("%w: %d unexpected trailing bytes", ErrMalformed, len(d.p)-d.off)
	}
	// Canonical form: re-encoding must give the same bytes (this rejects
	// over-long varints and any other alternative spelling).
	if re := Encode(t); string(re) != string(p) {
		return nil, fmt.Errorf("%w: not in canonical form", ErrMalformed)
	}
	return t, nil
}

type decoder struct {
	p   []byte
	off int
}

func (d *decoder) tx() (*Tx, error) {
	if len(d.p) < 4 || [3]byte(d.p[:3]) != magic {
		return nil, errors.New("not a relchain transaction (bad magic)")
	}
	version := d.p[3]
	if version < VersionSingle || version > Version {
		return nil, fmt.Errorf("unsupported envelope version %d (this node speaks %d to %d)", version, VersionSingle, Version)
	}
	d.off = 4
	t := &Tx{}
	var err error
	if t.ChainID, err = d.string(MaxChainID); err != nil {
		return nil, fmt.Errorf("chain id: %w", err)
	}
	if t.Nonce, err = d.uvarint(); err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	pk, err := d.bytes(ed25519.PublicKeySize)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	t.PubKey = ed25519.PublicKey(pk)
	n, err := d.count(MaxStatements)
	if err != nil {
		return nil, fmt.Errorf("statement count: %w", err)
	}
	t.Statements = make([]Statement, n)
	for i := range t.Statements {
		if t.Statements[i], err = d.statement(); err != nil {
			return nil, fmt.Errorf("statement %d: %w", i+1, err)
		}
	}
	switch version {
	case VersionBatch:
		err = d.groups(t)
	case VersionExpect:
		err = d.expectations(t)
	}
	if err != nil {
		return nil, err
	}
	if t.Signature, err = d.bytes(ed25519.SignatureSize); err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	return t, nil
}

// groups reads a batch envelope's wl-transaction sizes.
func (d *decoder) groups(t *Tx) error {
	g, err := d.count(len(t.Statements))
	if err != nil {
		return fmt.Errorf("wl-transaction count: %w", err)
	}
	if g == 0 {
		return errors.New("a batch envelope has no wl-transactions")
	}
	t.Groups = make([]int, g)
	for i := range t.Groups {
		if t.Groups[i], err = d.count(len(t.Statements)); err != nil {
			return fmt.Errorf("wl-transaction %d size: %w", i+1, err)
		}
	}
	return t.CheckGroups()
}

// expectations reads one observation per statement.
func (d *decoder) expectations(t *Tx) error {
	if len(t.Statements) == 0 {
		return errors.New("an envelope with observations has no statements")
	}
	t.Expect = make([]Observation, len(t.Statements))
	for i := range t.Expect {
		o, err := d.bytes(ObservationSize)
		if err != nil {
			return fmt.Errorf("observation %d: %w", i+1, err)
		}
		if len(o) > 0 {
			t.Expect[i] = Observation(o)
		}
	}
	return t.CheckExpect()
}

// DecodeStatement parses one statement encoded with AppendStatement and
// returns the number of bytes used.
func DecodeStatement(p []byte) (Statement, int, error) {
	d := decoder{p: p}
	s, err := d.statement()
	return s, d.off, err
}

func (d *decoder) statement() (Statement, error) {
	var s Statement
	var err error
	if s.SQL, err = d.string(len(d.p)); err != nil {
		return s, fmt.Errorf("sql: %w", err)
	}
	n, err := d.count(MaxArgs)
	if err != nil {
		return s, fmt.Errorf("argument count: %w", err)
	}
	if n > 0 {
		s.Args = make([]Arg, n)
	}
	for i := range s.Args {
		if s.Args[i], err = d.arg(); err != nil {
			return s, fmt.Errorf("argument %d: %w", i+1, err)
		}
	}
	return s, nil
}

func (d *decoder) arg() (Arg, error) {
	if d.off >= len(d.p) {
		return Arg{}, errors.New("truncated")
	}
	a := Arg{Kind: ArgKind(d.p[d.off])}
	d.off++
	var err error
	switch a.Kind {
	case KindNull:
	case KindInt:
		v, n := binary.Varint(d.p[d.off:])
		if n <= 0 {
			return a, errors.New("bad integer")
		}
		a.Int, d.off = v, d.off+n
	case KindFloat:
		if len(d.p)-d.off < 8 {
			return a, errors.New("truncated float")
		}
		a.Float = math.Float64frombits(binary.BigEndian.Uint64(d.p[d.off:]))
		d.off += 8
	case KindText:
		a.Text, err = d.string(len(d.p))
	case KindBytes:
		a.Bytes, err = d.bytes(len(d.p))
	case KindBool:
		if d.off >= len(d.p) || d.p[d.off] > 1 {
			return a, errors.New("bad boolean")
		}
		a.Bool = d.p[d.off] == 1
		d.off++
	default:
		return a, fmt.Errorf("unknown argument type %d", a.Kind)
	}
	return a, err
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.p[d.off:])
	if n <= 0 {
		return 0, errors.New("truncated or overlong number")
	}
	d.off += n
	return v, nil
}

func (d *decoder) count(max int) (int, error) {
	v, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if v > uint64(max) {
		return 0, fmt.Errorf("%d exceeds the limit of %d", v, max)
	}
	return int(v), nil
}

func (d *decoder) bytes(max int) ([]byte, error) {
	n, err := d.count(max)
	if err != nil {
		return nil, err
	}
	if len(d.p)-d.off < n {
		return nil, errors.New("truncated")
	}
	b := d.p[d.off : d.off+n : d.off+n]
	d.off += n
	return b, nil
}

func (d *decoder) string(max int) (string, error) {
	b, err := d.bytes(max)
	return string(b), err
}
