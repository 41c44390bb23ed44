package pgwire

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// fakeStats counts what the fake sessions of one server saw.
type fakeStats struct {
	opened, closed atomic.Int64
	sleeping       chan struct{} // receives when a SLEEP statement starts waiting
	cancelled      atomic.Int64  // SLEEP statements that ended through their ctx
	mu             sync.Mutex
	lastParams     []any
	copied         []byte   // what the fake COPY IN received
	copyEnds       []string // "done", or "abort: <reason>", one per COPY IN
}

func newFakeStats() *fakeStats { return &fakeStats{sleeping: make(chan struct{}, 16)} }

// fakeSession is a tiny in-memory "dialect" for exercising the protocol:
//
//	SELECT $1::int8, $2::text …  echoes its parameters (column types from the casts)
//	SELECT 1                     one int4 row
//	SELECT NOTICE                one int4 row, with two notices
//	SELECT * FROM series(N)      N int8 rows
//	SELECT ALLTYPES              one row with a value of every supported type
//	SELECT SLEEP                 waits for its ctx (a CancelRequest) or 10 s
//	FAIL <code> <message>        fails with that SQLSTATE
//	PLAINERR                     fails with a non-*Error error
//	FATALERR                     fails with a FATAL *Error (the connection closes)
//	BEGIN / COMMIT / ROLLBACK    transaction status
//	INSERT …                     "INSERT 0 1"
type fakeSession struct {
	stats *fakeStats
	tx    byte
	once  sync.Once
}

var (
	paramRE  = regexp.MustCompile(`\$(\d+)(?:::(\w+))?`)
	seriesRE = regexp.MustCompile(`(?i)^SELECT \* FROM series\((\d+)\)$`)
)

var fakeTypes = map[string]uint32{
	"bool": pgtype.BoolOID, "int2": pgtype.Int2OID, "int4": pgtype.Int4OID, "int8": pgtype.Int8OID,
	"float4": pgtype.Float4OID, "float8": pgtype.Float8OID, "numeric": pgtype.NumericOID,
	"text": pgtype.TextOID, "varchar": pgtype.VarcharOID, "bpchar": pgtype.BPCharOID, "name": pgtype.NameOID,
	"bytea": pgtype.ByteaOID, "date": pgtype.DateOID, "timestamp": pgtype.TimestampOID,
	"timestamptz": pgtype.TimestamptzOID, "uuid": pgtype.UUIDOID, "json": pgtype.JSONOID, "jsonb": pgtype.JSONBOID,
	"unknown": pgtype.UnknownOID,
}

var allTypesColumns = []Column{
	{Name: "i2", OID: pgtype.Int2OID}, {Name: "i4", OID: pgtype.Int4OID}, {Name: "i8", OID: pgtype.Int8OID}, {Name: "f4", OID: pgtype.Float4OID},
	{Name: "f8", OID: pgtype.Float8OID}, {Name: "b", OID: pgtype.BoolOID}, {Name: "t", OID: pgtype.TextOID}, {Name: "by", OID: pgtype.ByteaOID},
	{Name: "n", OID: pgtype.NumericOID}, {Name: "d", OID: pgtype.DateOID}, {Name: "ts", OID: pgtype.TimestampOID},
	{Name: "tz", OID: pgtype.TimestamptzOID}, {Name: "u", OID: pgtype.UUIDOID}, {Name: "j", OID: pgtype.JSONOID}, {Name: "jb", OID: pgtype.JSONBOID},
	{Name: "nul", OID: pgtype.Int8OID}, {Name: "untyped", OID: 0},
}

var allTypesRow = []any{
	int64(-2), int64(40000), int64(1) << 40, float64(1.5), float64(-2.25), true, "héllo", []byte{0, 1, 0xff},
	"12345.6789", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC),
	time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `{"a":1}`, `{"b": [1, 2]}`,
	nil, int64(7),
}

func (f *fakeSession) Split(sql string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(sql, ";") {
		var lines []string
		for _, line := range strings.Split(part, "\n") {
			if i := strings.Index(line, "--"); i >= 0 {
				line = line[:i]
			}
			lines = append(lines, line)
		}
		if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f *fakeSession) Describe(ctx context.Context, sql string, declared []uint32) (Description, error) {
	var d Description
	for _, m := range paramRE.FindAllStringSubmatch(sql, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > 100 {
			return d, &Error{Code: "42P02", Message: fmt.Sprintf("there is no parameter $%s", m[1])}
		}
		for len(d.Params) < n {
			d.Params = append(d.Params, 0)
		}
		if n-1 < len(declared) && declared[n-1] != 0 {
			d.Params[n-1] = declared[n-1]
		} else if oid, ok := fakeTypes[m[2]]; ok {
			d.Params[n-1] = oid
		}
		d.Columns = append(d.Columns, Column{Name: "c" + m[1], OID: d.Params[n-1]})
	}
	upper := strings.ToUpper(sql)
	switch {
	case len(d.Params) > 0:
	case upper == "SELECT 1", upper == "SELECT NOTICE":
		d.Columns = []Column{{Name: "?column?", OID: pgtype.Int4OID}}
	case seriesRE.MatchString(sql):
		d.Columns = []Column{{Name: "n", OID: pgtype.Int8OID}}
	case upper == "SELECT ALLTYPES":
		d.Columns = allTypesColumns
	case upper == "SELECT SLEEP", upper == "PLAINERR", upper == "FATALERR", strings.HasPrefix(upper, "FAIL "),
		upper == "BEGIN", upper == "COMMIT", upper == "ROLLBACK", strings.HasPrefix(upper, "INSERT"),
		strings.HasPrefix(upper, "COPY "):
	default:
		return d, &Error{Code: "42601", Message: fmt.Sprintf("syntax error at or near %q", sql)}
	}
	return d, nil
}

func (f *fakeSession) Execute(ctx context.Context, sql string, params []any) (*Result, error) {
	res, err := f.execute(ctx, sql, params)
	if err != nil && f.tx == 'T' {
		f.tx = 'E'
	}
	return res, err
}

func (f *fakeSession) execute(ctx context.Context, sql string, params []any) (*Result, error) {
	upper := strings.ToUpper(sql)
	if f.tx == 'E' && upper != "ROLLBACK" && upper != "COMMIT" {
		return nil, &Error{Code: "25P02", Message: "current transaction is aborted"}
	}
	switch {
	case upper == "BEGIN":
		f.tx = 'T'
		return &Result{Tag: "BEGIN"}, nil
	case upper == "COMMIT", upper == "ROLLBACK":
		f.tx = 'I'
		return &Result{Tag: upper}, nil
	case strings.HasPrefix(upper, "INSERT"):
		return &Result{Tag: "INSERT 0 1"}, nil
	case strings.HasPrefix(upper, "FAIL "):
		fields := strings.SplitN(sql, " ", 3)
		return nil, &Error{Code: fields[1], Message: fields[len(fields)-1], Detail: "fake detail"}
	case upper == "PLAINERR":
		return nil, errors.New("plain failure")
	case upper == "FATALERR":
		return nil, &Error{Code: "57P01", Message: "session ended", Severity: "FATAL"}
	case upper == "SELECT SLEEP":
		return f.sleep(ctx)
	case upper == "PANIC":
		panic("a bug in the session")
	case upper == "COPY IN":
		return &Result{CopyIn: &fakeCopyIn{stats: f.stats}}, nil
	case strings.HasPrefix(upper, "COPY OUT "):
		n, _ := strconv.Atoi(upper[len("COPY OUT "):])
		out := &CopyOut{Columns: 1}
		for i := range n {
			out.Data = append(out.Data, []byte(fmt.Sprintf("row %d\n", i+1)))
		}
		return &Result{CopyOut: out, Tag: fmt.Sprintf("COPY %d", n)}, nil
	}
	d, err := f.Describe(ctx, sql, nil)
	if err != nil {
		return nil, err
	}
	// A real session reads text parameters with its database's rules; the fake decodes them
	// as pgwire would in binary.
	params = slices.Clone(params)
	for i, p := range params {
		if tp, ok := p.(TextParam); ok {
			if params[i], err = tp.Decode(); err != nil {
				return nil, &Error{Code: "22P02", Message: err.Error()}
			}
		}
	}
	f.stats.mu.Lock()
	f.stats.lastParams = params
	f.stats.mu.Unlock()
	switch {
	case len(d.Params) > 0:
		return &Result{Columns: d.Columns, Rows: [][]any{params}}, nil
	case upper == "SELECT 1":
		return &Result{Columns: d.Columns, Rows: [][]any{{int64(1)}}, Tag: "SELECT 1"}, nil
	case upper == "SELECT ALLTYPES":
		return &Result{Columns: d.Columns, Rows: [][]any{allTypesRow}}, nil
	case upper == "SELECT NOTICE":
		return &Result{Columns: d.Columns, Rows: [][]any{{int64(1)}}, Notices: []string{"first notice", "second notice"}}, nil
	}
	n, _ := strconv.Atoi(seriesRE.FindStringSubmatch(sql)[1])
	res := &Result{Columns: d.Columns, Tag: fmt.Sprintf("SELECT %d", n)}
	for i := 1; i <= n; i++ {
		res.Rows = append(res.Rows, []any{int64(i)})
	}
	return res, nil
}

func (f *fakeSession) sleep(ctx context.Context) (*Result, error) {
	select {
	case f.stats.sleeping <- struct{}{}:
	default:
	}
	select {
	case <-ctx.Done():
		f.stats.cancelled.Add(1)
		return nil, fmt.Errorf("sleep interrupted: %w", ctx.Err())
	case <-time.After(10 * time.Second):
		return &Result{Tag: "SELECT 0", Columns: []Column{}}, nil
	}
}

func (f *fakeSession) TxStatus() byte {
	if f.tx == 0 {
		return 'I'
	}
	return f.tx
}

func (f *fakeSession) Close() {
	closedBefore := true
	f.once.Do(func() { closedBefore = false })
	if closedBefore {
		panic("fakeSession closed twice")
	}
	f.stats.closed.Add(1)
}

// fakeCopyIn is COPY IN: it keeps the bytes, counts lines, and fails on a line "BAD".
type fakeCopyIn struct {
	stats *fakeStats
	data  []byte
}

func (c *fakeCopyIn) Format() (bool, int) { return false, 1 }

func (c *fakeCopyIn) Data(_ context.Context, p []byte) error {
	c.data = append(c.data, p...)
	if i := strings.Index(string(c.data), "BAD\n"); i >= 0 {
		return &Error{Code: "22P04", Message: "bad row", Where: "COPY fake, line " + strconv.Itoa(strings.Count(string(c.data[:i]), "\n")+1)}
	}
	return nil
}

func (c *fakeCopyIn) Done(context.Context) (*Result, error) {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	c.stats.copied = c.data
	c.stats.copyEnds = append(c.stats.copyEnds, "done")
	return &Result{Tag: fmt.Sprintf("COPY %d", strings.Count(string(c.data), "\n"))}, nil
}

func (c *fakeCopyIn) Abort(reason string) error {
	c.stats.mu.Lock()
	defer c.stats.mu.Unlock()
	c.stats.copyEnds = append(c.stats.copyEnds, "abort: "+reason)
	return nil
}

func (s *fakeStats) ends() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.copyEnds...)
}
