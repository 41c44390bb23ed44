package pgwire

import "context"

// Session is what a connection executes; it is not safe for concurrent use (one per
// connection), except that the ctx passed to Describe/Execute is cancelled by a CancelRequest
// (and when the server closes).
type Session interface {
	// Split splits a simple-query string into statements (the dialect decides). "" or only
	// comments/semicolons → no statements (EmptyQueryResponse).
	Split(sql string) ([]string, error)
	// Describe returns the statement's parameter types (paramOIDs holds what Parse declared,
	// 0 = infer; return a full list) and its result columns (nil: it returns no rows).
	Describe(ctx context.Context, sql string, paramOIDs []uint32) (Description, error)
	// Execute runs one statement with decoded parameters and returns its result.
	Execute(ctx context.Context, sql string, params []any) (*Result, error)
	// TxStatus is the ReadyForQuery status: 'I' idle, 'T' in a transaction, 'E' failed
	// transaction.
	TxStatus() byte
	// Close releases the session; pgwire calls it exactly once per session.
	Close()
}

// ParameterReporter is implemented by a Session whose settings clients
// follow (PostgreSQL's GUC_REPORT parameters: TimeZone, DateStyle,
// application_name …). It returns their values by the names ParameterStatus
// uses. pgwire reports them after authentication (over its own defaults)
// and, before every later ReadyForQuery, sends a ParameterStatus for each
// one whose value differs from what the client was last told, as
// PostgreSQL 14 and later do: a SET, RESET, DISCARD ALL or ROLLBACK that
// changes one is reported once, when its query or Sync ends.
type ParameterReporter interface {
	ReportedParameters() map[string]string
}

// Column is one result column: its name and PostgreSQL type OID (0 is sent as text), and
// its type modifier (numeric precision and scale, varchar length, timestamp precision) when
// HasTypmod is set; otherwise RowDescription carries -1, no modifier.
type Column struct {
	Name      string
	OID       uint32
	Typmod    int32
	HasTypmod bool
}

// Description is what Describe reports about a statement.
type Description struct {
	Params  []uint32
	Columns []Column
}

// Result is what Execute returns for one statement.
type Result struct {
	// Columns is nil for a statement that returns no rows.
	Columns []Column
	// Rows holds values of type nil, int64, float64, string, []byte, bool or time.Time
	// (other types pgtype can encode for the column's OID also work).
	Rows [][]any
	// Tag is the CommandComplete tag, e.g. "INSERT 0 1", "UPDATE 2", "SELECT 3", "BEGIN".
	// Empty: "SELECT <rows>" when Columns is set.
	Tag string
	// DeallocateAll removes every named prepared statement of the
	// connection (SQL DEALLOCATE ALL, DISCARD ALL); otherwise a non-empty
	// Deallocate removes the one of that name, and the statement fails
	// with 26000 if there is none (DEALLOCATE name). ClosePortals closes
	// every portal but the one running (DISCARD ALL). As in PostgreSQL,
	// the unnamed statement stays.
	DeallocateAll bool
	Deallocate    string
	ClosePortals  bool
	// Notices are sent to the client as NoticeResponse messages (severity NOTICE, SQLSTATE
	// 00000), in order, before the statement's CommandComplete: what psql prints as "NOTICE:"
	// and drivers hand to their notice handlers.
	Notices []string
	// CopyOut, when set, makes the result a COPY TO STDOUT stream (Columns and Rows unused).
	CopyOut *CopyOut
	// CopyIn, when set, starts a COPY FROM STDIN: the statement's result is what CopyIn.Done
	// returns (Columns, Rows and Tag unused).
	CopyIn CopyIn
}

// CopyOut is a COPY … TO STDOUT result: pgwire sends CopyOutResponse, one CopyData per element
// of Data (already in the COPY format the statement asked for), CopyDone, then CommandComplete
// with Result.Tag.
type CopyOut struct {
	Binary  bool // the overall format: binary (true) or text/CSV
	Columns int  // the number of columns, for the per-column formats
	Data    [][]byte
}

// CopyIn receives a COPY … FROM STDIN stream. A Session returns one in Result.CopyIn; pgwire
// then sends CopyInResponse and calls Data for each CopyData message in order, then exactly one
// of Done (the client's CopyDone) or Abort (CopyFail, a Data error, a protocol error, the idle
// timeout or the end of the connection). The ctx of Data and Done is cancelled by a
// CancelRequest.
type CopyIn interface {
	// Format is the overall format (binary or text/CSV) and the number of columns, for
	// CopyInResponse.
	Format() (binary bool, columns int)
	// Data takes the payload of one CopyData message (any split of the stream: rows may span
	// messages). An error ends the COPY: pgwire sends it, calls Abort and drops the client's
	// remaining copy messages.
	Data(ctx context.Context, p []byte) error
	// Done ends the stream: the COPY's result (Tag "COPY n") or its error.
	Done(ctx context.Context) (*Result, error)
	// Abort ends the COPY without Done; reason is the client's CopyFail text ("" otherwise).
	// Its error, if any, is what the client is told; nil: pgwire's own error.
	Abort(reason string) error
}
