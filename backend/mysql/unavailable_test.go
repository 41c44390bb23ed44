package mysql

import (
	"database/sql/driver"
	"fmt"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
)

// A lost or killed connection is transient whatever form the driver
// gives it; a statement's own errors and other node faults are not, and
// a statement failing with a transient number is never a tx result.
func TestTransientKnowsLostConnections(t *testing.T) {
	my := func(n uint16) error { return fmt.Errorf("exec: %w", &gomysql.MySQLError{Number: n}) }
	for _, err := range []error{my(2006), my(2013), my(1053), my(1927), my(3169), my(4031), gomysql.ErrInvalidConn, driver.ErrBadConn} {
		if !transient(err) {
			t.Errorf("%v is not transient", err)
		}
	}
	for _, err := range []error{my(1062), my(1205), my(1114), my(1064)} {
		if transient(err) {
			t.Errorf("%v is transient", err)
		}
	}
	k := &block{session: &session{}}
	for _, n := range []uint16{4031, 3169, 1927} {
		if be := k.stmtError(my(n)); backend.AsError(be) != nil {
			t.Errorf("error %d became a tx result: %v", n, be)
		}
	}
}
