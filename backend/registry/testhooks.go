//go:build testhooks

package registry

import (
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/sqlite"
)

// A test-hooks build can turn the gate off (Spec.NoGate).
func init() {
	testHooks = true
	sqliteNoGate = sqlite.UnsafeWithoutGate()
	postgresNoGate = postgres.UnsafeWithoutGate()
	mysqlNoGate = mysql.UnsafeWithoutGate()
}
