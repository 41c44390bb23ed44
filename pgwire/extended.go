package pgwire

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5/pgproto3"
)

// statement is a parsed (prepared) statement.
type statement struct {
	sql   string
	empty bool // the query string held no statement: Execute answers EmptyQueryResponse
	desc  Description
	bytes int // counted against MaxSessionMemory
}

// portal is a bound statement; its result is computed at the first Execute and then handed
// out in row-limited batches.
type portal struct {
	stmt          *statement
	params        []any
	resultFormats []int16
	result        *Result
	sent          int // rows of result already sent
	bytes         int // counted against MaxSessionMemory (the Result is not)
}

// formatFor resolves Bind's result-format codes for column i (none: text; one: all).
func (p *portal) formatFor(i int) int16 {
	switch len(p.resultFormats) {
	case 0:
		return formatText
	case 1:
		return p.resultFormats[0]
	}
	if i < len(p.resultFormats) {
		return p.resultFormats[i]
	}
	return formatText
}

func (c *conn) parse(ctx context.Context, m *pgproto3.Parse) error {
	if m.Name != "" && c.stmts[m.Name] != nil {
		return errorf(codeDuplicatePreparedStmt, "prepared statement %q already exists", m.Name)
	}
	if err := c.fits(statementOverhead+len(m.Query), c.statementBytes(m.Name)); err != nil {
		return err // before the Session spends work on it
	}
	pieces, err := c.sess.Split(m.Query)
	if err != nil {
		return err
	}
	if len(pieces) > 1 {
		return errorf(codeSyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	declared := slices.Clone(m.ParameterOIDs)
	st := &statement{empty: len(pieces) == 0, desc: Description{Params: declared}}
	if !st.empty {
		st.sql = pieces[0]
		err = c.run(ctx, func(ctx context.Context) error {
			var err error
			st.desc, err = c.sess.Describe(ctx, st.sql, slices.Clone(declared))
			return err
		})
		if err != nil {
			return err
		}
		st.desc.Params = mergeDeclared(st.desc.Params, declared)
	}
	if err := c.putStatement(m.Name, st); err != nil {
		return err
	}
	c.be.Send(&pgproto3.ParseComplete{})
	return nil
}

// mergeDeclared keeps what Parse declared wherever the Session left a type open or short.
func mergeDeclared(described, declared []uint32) []uint32 {
	out := slices.Clone(described)
	for i, oid := range declared {
		if i >= len(out) {
			out = append(out, oid)
		} else if out[i] == 0 {
			out[i] = oid
		}
	}
	return out
}

func (c *conn) bind(m *pgproto3.Bind) error {
	st := c.stmts[m.PreparedStatement]
	if st == nil {
		return errorf(codeUndefinedPreparedStmt, "prepared statement %q does not exist", m.PreparedStatement)
	}
	if m.DestinationPortal != "" && c.portals[m.DestinationPortal] != nil {
		return errorf(codeDuplicateCursor, "portal %q already exists", m.DestinationPortal)
	}
	if len(m.Parameters) != len(st.desc.Params) {
		return errorf(codeProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d",
			len(m.Parameters), m.PreparedStatement, len(st.desc.Params))
	}
	paramFormats, err := resolveFormats(m.ParameterFormatCodes, len(m.Parameters), "parameter")
	if err != nil {
		return err
	}
	resultCount := len(st.desc.Columns)
	if len(m.ResultFormatCodes) <= 1 {
		resultCount = len(m.ResultFormatCodes) // one code applies to however many columns come
	}
	if _, err := resolveFormats(m.ResultFormatCodes, resultCount, "result"); err != nil {
		return err
	}
	params := make([]any, len(m.Parameters))
	for i, raw := range m.Parameters {
		v, err := decodeParam(c.types, st.desc.Params[i], paramFormats[i], raw)
		if err != nil {
			code := codeInvalidTextRepr
			if paramFormats[i] == formatBinary {
				code = codeInvalidBinaryRepr
			}
			return errorf(code, "invalid value for parameter $%d (type OID %d): %v", i+1, st.desc.Params[i], err)
		}
		params[i] = v
	}
	p := &portal{stmt: st, params: params, resultFormats: slices.Clone(m.ResultFormatCodes)}
	if err := c.putPortal(m.DestinationPortal, p); err != nil {
		return err
	}
	c.be.Send(&pgproto3.BindComplete{})
	return nil
}

// resolveFormats expands Bind's format codes to one per value: none → text, one → all.
func resolveFormats(codes []int16, n int, what string) ([]int16, error) {
	out := make([]int16, n)
	for _, code := range codes {
		if code != formatText && code != formatBinary {
			return nil, errorf(codeProtocolViolation, "unsupported format code: %d", code)
		}
	}
	switch {
	case len(codes) == 0:
	case len(codes) == 1:
		for i := range out {
			out[i] = codes[0]
		}
	case len(codes) == n:
		copy(out, codes)
	default:
		return nil, errorf(codeProtocolViolation, "bind message has %d %s formats but %d %ss", len(codes), what, n, what)
	}
	return out, nil
}

func (c *conn) describe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st := c.stmts[m.Name]
		if st == nil {
			return errorf(codeUndefinedPreparedStmt, "prepared statement %q does not exist", m.Name)
		}
		oids := make([]uint32, len(st.desc.Params))
		for i, oid := range st.desc.Params {
			oids[i] = wireOID(oid)
		}
		c.be.Send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
		c.sendRowDescription(st.desc.Columns, func(int) int16 { return formatText })
	case 'P':
		p := c.portals[m.Name]
		if p == nil {
			return errorf(codeUndefinedCursor, "portal %q does not exist", m.Name)
		}
		c.sendRowDescription(p.stmt.desc.Columns, p.formatFor)
	default:
		return fatalf(codeProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

func (c *conn) sendRowDescription(cols []Column, formatFor func(int) int16) {
	if cols == nil {
		c.be.Send(&pgproto3.NoData{})
		return
	}
	c.be.Send(rowDescription(cols, formatFor))
}

func (c *conn) execute(ctx context.Context, m *pgproto3.Execute) error {
	p := c.portals[m.Portal]
	if p == nil {
		return errorf(codeUndefinedCursor, "portal %q does not exist", m.Portal)
	}
	if p.stmt.empty {
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	if p.result == nil {
		err := c.run(ctx, func(ctx context.Context) error {
			var err error
			p.result, err = c.sess.Execute(ctx, p.stmt.sql, p.params)
			return err
		})
		if err != nil {
			return err
		}
		if p.result == nil {
			p.result = &Result{}
		}
		if err := c.applyEffects(p.result, p); err != nil {
			return err
		}
		if p.result.CopyIn != nil || p.result.CopyOut != nil {
			res, err := c.copyResult(ctx, p.result)
			if err != nil {
				return err
			}
			p.result = &Result{Tag: res.Tag} // executing the portal again repeats only the tag
		}
	}
	return c.sendPortalRows(p, int(m.MaxRows))
}

// sendPortalRows sends up to limit (0: all) unsent rows, then PortalSuspended or
// CommandComplete. The rows are encoded with the columns Describe promised, if any.
func (c *conn) sendPortalRows(p *portal, limit int) error {
	res := p.result
	cols := res.Columns
	if p.stmt.desc.Columns != nil {
		if len(cols) != len(p.stmt.desc.Columns) {
			return errorf(codeInternal, "statement returned %d columns but was described with %d",
				len(cols), len(p.stmt.desc.Columns))
		}
		cols = p.stmt.desc.Columns
	} else if cols != nil && len(res.Rows) > 0 {
		return errorf(codeInternal, "statement returned rows but was described as returning none")
	}
	rows := res.Rows[p.sent:]
	suspended := limit > 0 && len(rows) > limit
	if suspended {
		rows = rows[:limit]
	}
	resumed := p.sent > 0
	n, err := c.sendRows(cols, rows, p.formatFor)
	p.sent += n
	if err != nil {
		return err
	}
	if suspended {
		c.be.Send(&pgproto3.PortalSuspended{})
		return nil
	}
	c.sendNotices(res)
	c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(commandTag(res, n, resumed))})
	return nil
}

func (c *conn) closeTarget(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		c.dropStatement(m.Name, true)
	case 'P':
		c.dropPortal(m.Name)
	default:
		return fatalf(codeProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.be.Send(&pgproto3.CloseComplete{})
	return nil
}

// Memory a connection keeps between messages: statements and portals, counted by the bytes
// of their text and values plus a fixed overhead, bounded by MaxSessionMemory.
const (
	statementOverhead = 256
	valueOverhead     = 16
)

func (st *statement) size() int {
	n := statementOverhead + len(st.sql) + 4*len(st.desc.Params)
	for _, col := range st.desc.Columns {
		n += valueOverhead + len(col.Name)
	}
	return n
}

func (p *portal) size() int {
	n := statementOverhead + 2*len(p.resultFormats)
	for _, v := range p.params {
		n += valueOverhead
		switch x := v.(type) {
		case string:
			n += len(x)
		case []byte:
			n += len(x)
		}
	}
	return n
}

func (c *conn) statementBytes(name string) int {
	if st := c.stmts[name]; st != nil {
		return st.bytes
	}
	return 0
}

func (c *conn) portalBytes(name string) int {
	if p := c.portals[name]; p != nil {
		return p.bytes
	}
	return 0
}

// fits is nil when add more bytes fit in the connection's budget once free bytes (of a
// statement or portal being replaced) are released; otherwise 54000.
func (c *conn) fits(add, free int) error {
	limit := c.srv.maxSessionMemory()
	if limit > 0 && c.retained-free+add > limit {
		return errorf(codeProgramLimitExceeded,
			"prepared statements and portals of this connection would hold %d bytes, more than the limit of %d bytes; close some first",
			c.retained-free+add, limit)
	}
	return nil
}

// putStatement stores st under name if it fits, replacing the statement there.
func (c *conn) putStatement(name string, st *statement) error {
	st.bytes = st.size()
	free := c.statementBytes(name)
	if err := c.fits(st.bytes, free); err != nil {
		return err
	}
	c.retained += st.bytes - free
	c.stmts[name] = st
	return nil
}

// dropStatement removes a statement (missing: nothing) and, withPortals, the portals built
// from it (Close does; a simple Query dropping the unnamed statement does not).
func (c *conn) dropStatement(name string, withPortals bool) {
	st := c.stmts[name]
	if st == nil {
		return
	}
	for pname, p := range c.portals {
		if withPortals && p.stmt == st {
			c.dropPortal(pname)
		}
	}
	c.retained -= st.bytes
	delete(c.stmts, name)
}

// putPortal stores p under name if it fits, replacing the portal there.
func (c *conn) putPortal(name string, p *portal) error {
	p.bytes = p.size()
	free := c.portalBytes(name)
	if err := c.fits(p.bytes, free); err != nil {
		return err
	}
	c.retained += p.bytes - free
	c.portals[name] = p
	return nil
}

func (c *conn) dropPortal(name string) {
	if p := c.portals[name]; p != nil {
		c.retained -= p.bytes
		delete(c.portals, name)
	}
}

func (c *conn) clearPortals() {
	for name := range c.portals {
		c.dropPortal(name)
	}
}
