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
}

// portal is a bound statement; its result is computed at the first Execute and then handed
// out in row-limited batches.
type portal struct {
	stmt          *statement
	params        []any
	resultFormats []int16
	result        *Result
	sent          int // rows of result already sent
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
	c.stmts[m.Name] = st
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
	c.portals[m.DestinationPortal] = &portal{stmt: st, params: params, resultFormats: slices.Clone(m.ResultFormatCodes)}
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
	c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(commandTag(res, n, resumed))})
	return nil
}

func (c *conn) closeTarget(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		if st := c.stmts[m.Name]; st != nil {
			// Closing a statement closes the portals built from it.
			for name, p := range c.portals {
				if p.stmt == st {
					delete(c.portals, name)
				}
			}
			delete(c.stmts, m.Name)
		}
	case 'P':
		delete(c.portals, m.Name)
	default:
		return fatalf(codeProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.be.Send(&pgproto3.CloseComplete{})
	return nil
}
