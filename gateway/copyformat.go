package gateway

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// COPY data formats: decoders for COPY FROM STDIN (streaming: a row may span CopyData
// messages, and nothing is kept beyond the row being read) and encoders for COPY TO
// STDOUT, as PostgreSQL defines them (https://www.postgresql.org/docs/current/sql-copy.html).

// stateBadCopyFormat is PostgreSQL's bad_copy_file_format.
const stateBadCopyFormat = "22P04"

// copyRowError is a row the decoder cannot read (its line set by the caller's context).
func copyRowError(code, format string, a ...any) *pgwire.Error {
	return &pgwire.Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// rowDecoder splits a COPY stream into rows. Text and CSV rows are []any of nil and
// string; binary rows hold what pgwire.Codec decodes (nil, int64, float64, string, []byte,
// bool, time.Time). emit gets each row with its line (binary: its tuple number), 1-based.
type rowDecoder interface {
	feed(p []byte, emit func(row []any, line int) error) error
	// finish ends the stream: a row left unfinished is an error.
	finish(emit func(row []any, line int) error) error
	// line is the line (tuple) the decoder is at, for errors.
	line() int
}

// newRowDecoder returns the decoder of o's format for ncols columns; oids are the
// columns' types (binary only); maxRow bounds one row's bytes.
func newRowDecoder(o *copyOptions, ncols int, oids []uint32, maxRow int) rowDecoder {
	if o.format == "binary" {
		return &binaryDecoder{ncols: ncols, oids: oids, maxRow: maxRow, codec: pgwire.NewCodec()}
	}
	return &textDecoder{o: o, ncols: ncols, maxRow: maxRow, csv: o.format == "csv", skipHeader: o.header}
}

// textDecoder reads the text and CSV formats.
type textDecoder struct {
	o          *copyOptions
	csv        bool
	ncols      int
	maxRow     int
	buf        []byte // bytes of the unfinished row
	lineNo     int    // lines consumed
	skipHeader bool
	ended      bool // \. seen: the rest is ignored
	names      []string
	cur        int // the line of the record being decoded
}

func (d *textDecoder) line() int {
	if d.cur == 0 {
		return d.lineNo + 1
	}
	return d.cur
}

func (d *textDecoder) feed(p []byte, emit func([]any, int) error) error {
	if d.ended {
		return nil
	}
	d.buf = append(d.buf, p...)
	off := 0
	for !d.ended {
		end, lines, ok := d.recordEnd(d.buf[off:])
		if !ok {
			break
		}
		rec := d.buf[off : off+end]
		off += end + 1
		d.cur = d.lineNo + 1
		d.lineNo += lines
		if err := d.record(rec, d.cur, emit); err != nil {
			return err
		}
	}
	d.buf = append(d.buf[:0], d.buf[off:]...)
	d.cur = 0
	if d.maxRow > 0 && len(d.buf) > d.maxRow {
		return copyRowError(stateProgramLimit, "a COPY row is longer than %d bytes", d.maxRow)
	}
	return nil
}

// recordEnd finds the newline ending the first record of b: its offset and the lines the
// record spans (CSV quotes may hold newlines); ok false: b holds no whole record yet.
func (d *textDecoder) recordEnd(b []byte) (end, lines int, ok bool) {
	if !d.csv {
		i := bytes.IndexByte(b, '\n')
		return i, 1, i >= 0
	}
	q, e := d.o.quote, d.o.escape
	in := false
	lines = 1
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == e && i+1 < len(b) && (b[i+1] == q || b[i+1] == e) && (e != q || b[i+1] == q):
			i++
		case in && c == e && e != q && i+1 >= len(b):
			return 0, 0, false // the escaped byte has not arrived
		case in && c == q && e == q && i+1 >= len(b):
			return 0, 0, false // a doubled quote or the closing one: undecided yet
		case c == q:
			in = !in
		case c == '\n' && in:
			lines++
		case c == '\n':
			return i, lines, true
		}
	}
	return 0, 0, false
}

// finish handles a last row without its newline.
func (d *textDecoder) finish(emit func([]any, int) error) error {
	if d.ended || len(d.buf) == 0 {
		return nil
	}
	rec := d.buf
	d.buf = nil
	if d.csv {
		if _, _, ok := d.recordEnd(append(append([]byte{}, rec...), '\n')); !ok {
			return copyRowError(stateBadCopyFormat, "unterminated CSV quoted field")
		}
	}
	d.lineNo++
	d.cur = d.lineNo
	return d.record(rec, d.lineNo, emit)
}

// record decodes one record (without its newline).
func (d *textDecoder) record(rec []byte, line int, emit func([]any, int) error) error {
	rec = bytes.TrimSuffix(rec, []byte{'\r'})
	if string(rec) == `\.` {
		d.ended = true
		return nil
	}
	if d.skipHeader {
		d.skipHeader = false
		return nil
	}
	var row []any
	var err error
	if d.csv {
		row, err = d.csvFields(rec)
	} else {
		row, err = d.textFields(rec)
	}
	if err != nil {
		return err
	}
	if len(row) == 1 && d.ncols == 0 && row[0] == "" {
		row = nil
	}
	if len(row) > d.ncols {
		return copyRowError(stateBadCopyFormat, "extra data after last expected column")
	}
	if len(row) < d.ncols {
		return copyRowError(stateBadCopyFormat, "missing data for column %d", len(row)+1)
	}
	return emit(row, line)
}

// textFields splits a text-format record at unescaped delimiters and decodes each field.
func (d *textDecoder) textFields(rec []byte) ([]any, error) {
	var row []any
	start := 0
	for i := 0; i <= len(rec); i++ {
		if i < len(rec) && rec[i] == '\\' {
			i++
			continue
		}
		if i == len(rec) || rec[i] == d.o.delim {
			raw := rec[start:min(i, len(rec))]
			if string(raw) == d.o.null {
				row = append(row, nil)
			} else {
				v, err := unescapeText(raw)
				if err != nil {
					return nil, err
				}
				row = append(row, v)
			}
			start = i + 1
		}
	}
	return row, nil
}

// unescapeText decodes the backslash escapes of the text format.
func unescapeText(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), nil
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(raw) {
			return "", copyRowError(stateBadCopyFormat, "end-of-copy marker corrupt: a backslash ends the line")
		}
		switch c = raw[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(raw) && isHex(raw[i+1]) {
				i++
				v = v*16 + hexVal(raw[i])
				n++
			}
			if n == 0 {
				b.WriteByte('x')
			} else {
				b.WriteByte(byte(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(c - '0')
			for n := 1; n < 3 && i+1 < len(raw) && raw[i+1] >= '0' && raw[i+1] <= '7'; n++ {
				i++
				v = v*8 + int(raw[i]-'0')
			}
			b.WriteByte(byte(v))
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// csvFields splits a CSV record into fields. An unquoted field equal to the NULL string is
// NULL; a quoted one never is (FORCE_NULL and FORCE_NOT_NULL are applied by the caller).
func (d *textDecoder) csvFields(rec []byte) ([]any, error) {
	q, e, delim := d.o.quote, d.o.escape, d.o.delim
	var row []any
	var b []byte
	quoted, in := false, false
	endField := func() {
		if !quoted && string(b) == d.o.null {
			row = append(row, nil)
		} else {
			row = append(row, csvValue{s: string(b), quoted: quoted})
		}
		b, quoted = b[:0], false
	}
	for i := 0; i < len(rec); i++ {
		c := rec[i]
		switch {
		case in && c == e && i+1 < len(rec) && (rec[i+1] == q || rec[i+1] == e) && (e != q || rec[i+1] == q):
			b = append(b, rec[i+1])
			i++
		case c == q:
			in = !in
			quoted = true
		case !in && c == delim:
			endField()
		default:
			b = append(b, c)
		}
	}
	if in {
		return nil, copyRowError(stateBadCopyFormat, "unterminated CSV quoted field")
	}
	endField()
	return d.applyForce(row), nil
}

// csvValue is a CSV field before FORCE_NULL / FORCE_NOT_NULL.
type csvValue struct {
	s      string
	quoted bool
}

// applyForce turns csvValues into strings and nils, with FORCE_NULL / FORCE_NOT_NULL.
func (d *textDecoder) applyForce(row []any) []any {
	for i, v := range row {
		name := ""
		if i < len(d.names) {
			name = d.names[i]
		}
		switch x := v.(type) {
		case nil:
			if containsName(d.o.forceNotNull, name) {
				row[i] = d.o.null
			}
		case csvValue:
			row[i] = x.s
			if x.quoted && x.s == d.o.null && containsName(d.o.forceNull, name) {
				row[i] = nil
			}
		}
	}
	return row
}

func containsName(list []string, name string) bool {
	for _, n := range list {
		if n == name {
			return true
		}
	}
	return false
}

// pgcopySignature opens a binary COPY stream.
var pgcopySignature = []byte("PGCOPY\n\xff\r\n\x00")

// binaryDecoder reads the binary format.
type binaryDecoder struct {
	ncols  int
	oids   []uint32
	maxRow int
	codec  *pgwire.Codec
	buf    []byte
	header bool // the header was read
	tuples int
	ended  bool
}

func (d *binaryDecoder) line() int { return d.tuples + 1 }

func (d *binaryDecoder) feed(p []byte, emit func([]any, int) error) error {
	if d.ended {
		if len(p) > 0 {
			return copyRowError(stateBadCopyFormat, "received copy data after EOF marker")
		}
		return nil
	}
	d.buf = append(d.buf, p...)
	off := 0
	defer func() { d.buf = append(d.buf[:0], d.buf[off:]...) }()
	if !d.header {
		n, err := d.readHeader(d.buf)
		if err != nil || n == 0 {
			return err
		}
		off, d.header = n, true
	}
	for !d.ended {
		n, row, err := d.tuple(d.buf[off:])
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		off += n
		if row == nil {
			d.ended = true
			if off != len(d.buf) {
				return copyRowError(stateBadCopyFormat, "received copy data after EOF marker")
			}
			break
		}
		d.tuples++
		if err := emit(row, d.tuples); err != nil {
			return err
		}
	}
	if d.maxRow > 0 && len(d.buf)-off > d.maxRow {
		return copyRowError(stateProgramLimit, "a COPY row is longer than %d bytes", d.maxRow)
	}
	return nil
}

// readHeader reads the signature, flags and header extension: the bytes they take, 0 when
// they have not all arrived.
func (d *binaryDecoder) readHeader(b []byte) (int, error) {
	n := min(len(b), len(pgcopySignature))
	if !bytes.Equal(b[:n], pgcopySignature[:n]) {
		return 0, copyRowError(stateBadCopyFormat, "COPY file signature not recognized")
	}
	if len(b) < 19 {
		return 0, nil
	}
	flags := binary.BigEndian.Uint32(b[11:15])
	if flags&(1<<16) != 0 {
		return 0, copyRowError(stateBadCopyFormat, "invalid COPY file header (WITH OIDS)")
	}
	if flags&^uint32(0xffff) != 0 {
		return 0, copyRowError(stateBadCopyFormat, "unrecognized critical flags in COPY file header")
	}
	ext := binary.BigEndian.Uint32(b[15:19])
	if ext > 1<<20 {
		return 0, copyRowError(stateBadCopyFormat, "invalid COPY file header (wrong length)")
	}
	if len(b) < 19+int(ext) {
		return 0, nil
	}
	return 19 + int(ext), nil
}

// tuple reads one tuple: its bytes (0: not all arrived) and values (nil row: the trailer).
func (d *binaryDecoder) tuple(b []byte) (int, []any, error) {
	if len(b) < 2 {
		return 0, nil, nil
	}
	count := int16(binary.BigEndian.Uint16(b))
	if count == -1 {
		return 2, nil, nil
	}
	if int(count) != d.ncols {
		return 0, nil, copyRowError(stateBadCopyFormat, "row field count is %d, expected %d", count, d.ncols)
	}
	off := 2
	// First make sure the whole tuple is here, then decode it.
	for range d.ncols {
		if len(b) < off+4 {
			return 0, nil, nil
		}
		n := int32(binary.BigEndian.Uint32(b[off:]))
		off += 4
		if n < -1 {
			return 0, nil, copyRowError(stateBadCopyFormat, "invalid field size")
		}
		if n > 0 {
			if d.maxRow > 0 && int(n) > d.maxRow {
				return 0, nil, copyRowError(stateProgramLimit, "a COPY row is longer than %d bytes", d.maxRow)
			}
			if len(b) < off+int(n) {
				return 0, nil, nil
			}
			off += int(n)
		}
	}
	row := make([]any, d.ncols)
	p := 2
	for i := range row {
		n := int32(binary.BigEndian.Uint32(b[p:]))
		p += 4
		if n == -1 {
			continue
		}
		v, err := d.codec.Decode(d.oids[i], true, b[p:p+int(n)])
		if err != nil {
			return 0, nil, copyRowError("22P03", "incorrect binary data format in column %d: %v", i+1, err)
		}
		row[i] = v
		p += int(n)
	}
	return off, row, nil
}

func (d *binaryDecoder) finish(func([]any, int) error) error {
	if d.ended {
		return nil
	}
	if len(d.buf) == 0 {
		return nil // nothing sent, or the end of a tuple: the trailer is optional (PostgreSQL)
	}
	return copyRowError(stateBadCopyFormat, "unexpected EOF in COPY data (no end-of-data marker)")
}

// Encoders for COPY TO.

// copyEncoder renders rows in a COPY format.
type copyEncoder struct {
	o     *copyOptions
	codec *pgwire.Codec
	oids  []uint32
	names []string
}

// header is the stream's opening chunk: the binary header or a header line (nil: none).
func (e *copyEncoder) header() []byte {
	switch {
	case e.o.format == "binary":
		return append(append([]byte{}, pgcopySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
	case !e.o.header:
		return nil
	}
	var b []byte
	for i, n := range e.names {
		if i > 0 {
			b = append(b, e.o.delim)
		}
		b = e.appendText(b, n, i, true)
	}
	return append(b, '\n')
}

// trailer is the stream's closing chunk (nil: none).
func (e *copyEncoder) trailer() []byte {
	if e.o.format == "binary" {
		return []byte{0xff, 0xff}
	}
	return nil
}

// row renders one row.
func (e *copyEncoder) row(vals []any) ([]byte, error) {
	var b []byte
	if e.o.format == "binary" {
		b = binary.BigEndian.AppendUint16(b, uint16(len(vals)))
		for i, v := range vals {
			if v == nil {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			enc, err := e.codec.Encode(e.oid(i), true, v)
			if err != nil {
				return nil, err
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(enc)))
			b = append(b, enc...)
		}
		return b, nil
	}
	for i, v := range vals {
		if i > 0 {
			b = append(b, e.o.delim)
		}
		if v == nil {
			b = append(b, e.o.null...)
			continue
		}
		enc, err := e.codec.Encode(e.oid(i), false, v)
		if err != nil {
			return nil, err
		}
		b = e.appendText(b, string(enc), i, false)
	}
	return append(b, '\n'), nil
}

func (e *copyEncoder) oid(i int) uint32 {
	if i < len(e.oids) && e.oids[i] != 0 {
		return e.oids[i]
	}
	return 25
}

// appendText appends one non-null value: escaped (text) or quoted when needed (CSV).
func (e *copyEncoder) appendText(b []byte, s string, col int, header bool) []byte {
	if e.o.format != "csv" {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch c {
			case '\\':
				b = append(b, '\\', '\\')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\v':
				b = append(b, '\\', 'v')
			default:
				if c == e.o.delim {
					b = append(b, '\\')
				}
				b = append(b, c)
			}
		}
		return b
	}
	q, esc := e.o.quote, e.o.escape
	need := e.o.forceAll || (!header && col < len(e.names) && containsName(e.o.forceQuote, e.names[col])) ||
		s == e.o.null || s == `\.` || strings.IndexByte(s, e.o.delim) >= 0 || strings.IndexByte(s, q) >= 0 ||
		strings.ContainsAny(s, "\r\n") || (esc != q && strings.IndexByte(s, esc) >= 0)
	if !need {
		return append(b, s...)
	}
	b = append(b, q)
	for i := 0; i < len(s); i++ {
		if s[i] == q || s[i] == esc {
			b = append(b, esc)
		}
		b = append(b, s[i])
	}
	return append(b, q)
}

// copyArg turns one decoded COPY value into an envelope argument for a column of type
// typ: integers, booleans, floats and byte strings typed (every backend stores them
// alike), everything else as its text, which the backend reads as PostgreSQL would.
func copyArg(typ string, v any) (txn.Arg, error) {
	s, isText := v.(string)
	if !isText {
		if t, ok := v.(time.Time); ok && typ == "date" {
			return txn.Text(t.Format("2006-01-02")), nil
		}
		return argOf(v)
	}
	switch typ {
	case "int2", "int4", "int8":
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return txn.Arg{}, fmt.Errorf("invalid input syntax for type integer: %q", s)
		}
		return txn.Int(n), nil
	case "bool":
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "t", "true", "yes", "y", "on", "1":
			return txn.Bool(true), nil
		case "f", "false", "no", "n", "off", "0":
			return txn.Bool(false), nil
		}
		return txn.Arg{}, fmt.Errorf("invalid input syntax for type boolean: %q", s)
	case "float4", "float8":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return txn.Arg{}, fmt.Errorf("invalid input syntax for type double precision: %q", s)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return txn.Text(s), nil
		}
		return txn.Float(f), nil
	case "bytea":
		b, err := byteaText(s)
		if err != nil {
			return txn.Arg{}, err
		}
		return txn.Bytes(b), nil
	}
	return txn.Text(s), nil
}

// byteaText decodes bytea's text input: hex (\x…) or the escape format.
func byteaText(s string) ([]byte, error) {
	if strings.HasPrefix(s, `\x`) {
		h := strings.Join(strings.Fields(s[2:]), "")
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, fmt.Errorf("invalid hexadecimal data for type bytea")
		}
		return b, nil
	}
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && s[i+2] >= '0' && s[i+2] <= '7' && s[i+3] >= '0' && s[i+3] <= '7':
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return nil, fmt.Errorf("invalid input syntax for type bytea")
		}
	}
	return out, nil
}
