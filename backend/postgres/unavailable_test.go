package postgres

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// The server's way of ending a session (57P01..57P03, 08xxx) and a lost
// transport are transient; a statement's own errors and the node's other
// faults (disk full, too many connections outside a connect) are not.
func TestTransientKnowsTheServersWaysOfEndingASession(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("exec: %w", &pgconn.PgError{Severity: "FATAL", Code: code}) }
	for _, err := range []error{pg("57P01"), pg("57P02"), pg("57P03"), pg("08006"), pg("08003"), io.ErrUnexpectedEOF} {
		if !transient(err) {
			t.Errorf("%v is not transient", err)
		}
	}
	for _, err := range []error{pg("23505"), pg("53100"), pg("53300"), pg("55000"), pg("57014"), pg("XX000"), pg("54001"), errors.New("x")} {
		if transient(err) {
			t.Errorf("%v is transient", err)
		}
	}
}
