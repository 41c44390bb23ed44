package pgwire

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// flushEveryRows bounds how many DataRows are buffered before they are written out.
const flushEveryRows = 1000

// simpleQuery runs a Query message: Split, then Execute each statement in order, stopping at
// the first error. Describe is not called: RowDescription comes from Result.Columns.
func (c *conn) simpleQuery(ctx context.Context, sql string) bool {
	// PostgreSQL drops the unnamed statement and portal when a simple query arrives.
	c.dropPortal("")
	c.dropStatement("", false)
	stmts, err := c.sess.Split(sql)
	if err != nil {
		c.sendError(err, false)
		stmts = nil
	} else if len(stmts) == 0 {
		c.be.Send(&pgproto3.EmptyQueryResponse{})
	}
	for _, stmt := range stmts {
		if !c.simpleStatement(ctx, stmt) {
			break
		}
	}
	if c.fatalSent {
		return false
	}
	c.readyForQuery()
	return c.be.Flush() == nil
}

// simpleStatement executes one statement of a simple query; false: it failed (error sent).
func (c *conn) simpleStatement(ctx context.Context, stmt string) bool {
	var res *Result
	err := c.run(ctx, func(ctx context.Context) error {
		var err error
		res, err = c.sess.Execute(ctx, stmt, nil)
		return err
	})
	if err != nil {
		c.sendError(err, c.takeCancelled())
		return false
	}
	if res == nil {
		res = &Result{}
	}
	if err := c.applyEffects(res, nil); err != nil {
		c.sendError(err, false)
		return false
	}
	if res.CopyIn != nil || res.CopyOut != nil {
		return c.simpleCopy(ctx, res)
	}
	text := func(int) int16 { return formatText }
	if res.Columns != nil {
		c.be.Send(rowDescription(res.Columns, text))
	}
	n, err := c.sendRows(res.Columns, res.Rows, text)
	if err != nil {
		c.sendError(err, false)
		return false
	}
	c.sendNotices(res)
	c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(commandTag(res, n, false))})
	return true
}

// sendNotices queues res's notices (Result.Notices).
func (c *conn) sendNotices(res *Result) {
	for _, n := range res.Notices {
		c.be.Send(&pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: "00000", Message: n})
	}
}

// sendRows queues rows as DataRows encoded per column OID and format; it returns how many
// rows were sent. A row whose width differs from cols is an internal error.
func (c *conn) sendRows(cols []Column, rows [][]any, formatFor func(int) int16) (int, error) {
	for i, row := range rows {
		if len(row) != len(cols) {
			return i, fmt.Errorf("pgwire: row %d has %d values for %d columns", i, len(row), len(cols))
		}
		values := make([][]byte, len(row))
		for j, v := range row {
			b, err := encodeValue(c.types, cols[j].OID, formatFor(j), v)
			if err != nil {
				return i, fmt.Errorf("pgwire: column %q: %w", cols[j].Name, err)
			}
			values[j] = b
		}
		c.be.Send(&pgproto3.DataRow{Values: values})
		if (i+1)%flushEveryRows == 0 {
			if err := c.be.Flush(); err != nil {
				return i, fmt.Errorf("pgwire: writing rows: %w", err)
			}
		}
	}
	return len(rows), nil
}

// commandTag is res.Tag, defaulting to "SELECT <n>" for a row-returning statement. partial:
// the rows came from several Executes of one portal, so a SELECT tag counts only the last
// batch (n), as PostgreSQL reports it.
func commandTag(res *Result, n int, partial bool) string {
	if res.Tag == "" && res.Columns != nil {
		return fmt.Sprintf("SELECT %d", n)
	}
	if partial && strings.HasPrefix(res.Tag, "SELECT ") {
		return fmt.Sprintf("SELECT %d", n)
	}
	return res.Tag
}

// simpleCopy finishes a COPY statement of a simple query; false: it failed.
func (c *conn) simpleCopy(ctx context.Context, res *Result) bool {
	res, err := c.copyResult(ctx, res)
	if err != nil {
		if !c.fatalSent {
			c.sendError(err, c.takeCancelled())
		}
		return false
	}
	c.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(res.Tag)})
	return true
}
