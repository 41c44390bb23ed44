package pgwire

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Error is an error with a SQLSTATE the protocol sends in ErrorResponse. Any other error a
// Session returns is sent as XX000 with its text.
type Error struct {
	Code, Message, Detail, Hint string
	// Where is the error's context (ErrorResponse field W), e.g. "COPY t, line 123".
	Where string
	// Severity is ERROR when empty; FATAL closes the connection after sending.
	Severity string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Detail != "" {
		return fmt.Sprintf("%s (SQLSTATE %s): %s", e.Message, e.Code, e.Detail)
	}
	return fmt.Sprintf("%s (SQLSTATE %s)", e.Message, e.Code)
}

// Severities of ErrorResponse.
const (
	severityError = "ERROR"
	severityFatal = "FATAL"
)

// SQLSTATE codes pgwire itself produces.
const (
	codeProtocolViolation     = "08P01"
	codeInvalidAuthorization  = "28000"
	codeInvalidPassword       = "28P01"
	codeFeatureNotSupported   = "0A000"
	codeProgramLimitExceeded  = "54000"
	codeQueryCanceled         = "57014"
	codeAdminShutdown         = "57P01"
	codeInternal              = "XX000"
	codeSyntaxError           = "42601"
	codeDuplicatePreparedStmt = "42P05"
	codeDuplicateCursor       = "42P03"
	codeUndefinedPreparedStmt = "26000"
	codeUndefinedCursor       = "34000"
	codeInvalidBinaryRepr     = "22P03"
	codeInvalidTextRepr       = "22P02"
	codeConnectionFailure     = "08006"
	codeIdleSessionTimeout    = "57P05"
	codeIdleInTxTimeout       = "25P03"
)

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func fatalf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Severity: severityFatal}
}

// toWireError converts any error into the *Error sent to the client. cancelled reports
// whether a CancelRequest hit the statement that failed: a context error then becomes 57014
// the way PostgreSQL reports "canceling statement due to user request".
func toWireError(err error, cancelled bool) *Error {
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	if cancelled {
		return errorf(codeQueryCanceled, "canceling statement due to user request")
	}
	return &Error{Code: codeInternal, Message: err.Error()}
}

// errorResponse builds the ErrorResponse message for e.
func errorResponse(e *Error) *pgproto3.ErrorResponse {
	sev := e.Severity
	if sev == "" {
		sev = severityError
	}
	code := e.Code
	if code == "" {
		code = codeInternal
	}
	return &pgproto3.ErrorResponse{
		Severity: sev, SeverityUnlocalized: sev, Code: code,
		Message: e.Message, Detail: e.Detail, Hint: e.Hint, Where: e.Where,
	}
}
