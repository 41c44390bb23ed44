package pgwire

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// The COPY sub-protocol. A Session's Result asks for it: CopyOut is a stream of CopyData
// the Session already formatted; CopyIn receives the client's CopyData while pgwire reads
// the copy-in messages itself (they never reach dispatch). PostgreSQL's rules:
//
//   - Flush and Sync are ignored during copy-in; any other non-copy message aborts the COPY
//     (08P01, the message dropped);
//   - CopyFail aborts it with 57014 "COPY from stdin failed: <the client's text>";
//   - after an error the client's remaining CopyData, CopyDone and CopyFail are dropped
//     (dispatch ignores copy messages outside COPY);
//   - a client that stops sending mid-COPY is timed out like a client idle in a transaction
//     (a COPY is one), FATAL 25P03.

// errCopyConnEnded: the connection ended during copy-in (fatalSent is set; nothing more is
// sent but what is queued).
var errCopyConnEnded = errors.New("pgwire: connection ended during COPY")

// copyResult runs the COPY sub-protocol res asks for and returns the result whose tag ends
// the statement; res itself when it is no COPY.
func (c *conn) copyResult(ctx context.Context, res *Result) (*Result, error) {
	switch {
	case res.CopyIn != nil:
		return c.copyIn(ctx, res.CopyIn)
	case res.CopyOut != nil:
		return res, c.copyOut(res.CopyOut)
	}
	return res, nil
}

// copyFormats is the CopyIn/OutResponse format fields.
func copyFormats(binary bool, columns int) (uint8, []uint16) {
	f := uint16(formatText)
	if binary {
		f = uint16(formatBinary)
	}
	codes := make([]uint16, max(columns, 0))
	for i := range codes {
		codes[i] = f
	}
	return uint8(f), codes
}

// copyOut sends a COPY TO STDOUT stream.
func (c *conn) copyOut(out *CopyOut) error {
	overall, codes := copyFormats(out.Binary, out.Columns)
	c.be.Send(&pgproto3.CopyOutResponse{OverallFormat: overall, ColumnFormatCodes: codes})
	for i, d := range out.Data {
		c.be.Send(&pgproto3.CopyData{Data: d})
		if (i+1)%flushEveryRows == 0 {
			if err := c.be.Flush(); err != nil {
				return errorf(codeConnectionFailure, "writing COPY data: %v", err)
			}
		}
	}
	c.be.Send(&pgproto3.CopyDone{})
	return nil
}

// copyIn runs a COPY FROM STDIN: CopyInResponse, then the client's copy messages until
// CopyDone or CopyFail, each CopyData handed to in.
func (c *conn) copyIn(ctx context.Context, in CopyIn) (*Result, error) {
	overall, codes := copyFormats(in.Format())
	c.be.Send(&pgproto3.CopyInResponse{OverallFormat: overall, ColumnFormatCodes: codes})
	if err := c.be.Flush(); err != nil {
		return nil, c.copyConnEnded(in)
	}
	total, limit := 0, c.srv.maxCopyBytes()
	for {
		c.armCopyTimeout()
		msg, err := c.receive()
		if err != nil {
			// Abort before the FATAL goes out: a client that reads it finds the COPY ended.
			_ = in.Abort("")
			c.receiveFailed(ctx, err)
			c.fatalSent = true
			return nil, errCopyConnEnded
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			total += len(m.Data)
			if limit > 0 && total > limit {
				return nil, c.copyAbort(in, "", errorf(codeProgramLimitExceeded,
					"COPY data exceeds the limit of %d bytes (the listener's MaxCopyBytes)", limit))
			}
			if err := c.run(ctx, func(ctx context.Context) error { return in.Data(ctx, m.Data) }); err != nil {
				return nil, c.copyAbort(in, "", err)
			}
		case *pgproto3.CopyDone:
			var res *Result
			err := c.run(ctx, func(ctx context.Context) error {
				var err error
				res, err = in.Done(ctx)
				return err
			})
			if err != nil {
				return nil, err
			}
			if res == nil {
				res = &Result{}
			}
			return res, nil
		case *pgproto3.CopyFail:
			return nil, c.copyAbort(in, m.Message, errorf(codeQueryCanceled, "COPY from stdin failed: %s", m.Message))
		case *pgproto3.Flush, *pgproto3.Sync:
			// ignored during copy-in, as PostgreSQL does
		case *pgproto3.Terminate:
			return nil, c.copyConnEnded(in)
		default:
			return nil, c.copyAbort(in, "", errorf(codeProtocolViolation, "unexpected message type during COPY from stdin"))
		}
	}
}

// copyAbort ends a copy-in with an error: the Session's own, when it has one, else def.
func (c *conn) copyAbort(in CopyIn, reason string, def error) error {
	if err := in.Abort(reason); err != nil {
		var we *Error
		if errors.As(def, &we) && we.Code == codeQueryCanceled && reason != "" {
			return withDetailOf(we, err)
		}
		return err
	}
	return def
}

// withDetailOf is the CopyFail error with what the Session says happened (what committed)
// as its detail.
func withDetailOf(e *Error, sessErr error) *Error {
	out := *e
	var se *Error
	if errors.As(sessErr, &se) {
		out.Detail, out.Hint = se.Detail, se.Hint
		if out.Detail == "" {
			out.Detail = se.Message
		}
	} else {
		out.Detail = sessErr.Error()
	}
	return &out
}

// copyConnEnded aborts a copy-in whose connection ended (or broke): nothing more is sent.
func (c *conn) copyConnEnded(in CopyIn) error {
	_ = in.Abort("")
	c.fatalSent = true
	return errCopyConnEnded
}

// armCopyTimeout sets the read deadline for the next copy-in message: a COPY is a
// transaction, so the idle-in-transaction timeout applies.
func (c *conn) armCopyTimeout() {
	c.idleErr = errIdleInTx
	var deadline time.Time
	if d := c.srv.idleInTxTimeout(); d > 0 {
		deadline = time.Now().Add(d)
	}
	_ = c.nc.SetReadDeadline(deadline)
}

// Codec encodes and decodes single values the way pgwire does for DataRow columns and Bind
// parameters, for a Session that reads or writes COPY data itself. Not safe for concurrent
// use (one per session).
type Codec struct{ m *pgtype.Map }

// NewCodec returns a Codec.
func NewCodec() *Codec { return &Codec{m: pgtype.NewMap()} }

// Decode decodes src (not nil) of type oid as a Bind parameter: nil, int64, float64, string,
// []byte, bool or time.Time.
func (c *Codec) Decode(oid uint32, binary bool, src []byte) (any, error) {
	f := formatText
	if binary {
		f = formatBinary
	}
	return decodeParam(c.m, oid, f, src)
}

// Encode encodes v (not nil) for a column of type oid as a DataRow value.
func (c *Codec) Encode(oid uint32, binary bool, v any) ([]byte, error) {
	f := formatText
	if binary {
		f = formatBinary
	}
	return encodeValue(c.m, oid, f, v)
}
