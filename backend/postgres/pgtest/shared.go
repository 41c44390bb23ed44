package pgtest

// The shared server's life cycle and helpers (serverdb.TestServer), under
// the names of this package.
var (
	// Main runs the tests and then stops the private cluster, if one was
	// started. Use it as a package's TestMain:
	//
	//	func TestMain(m *testing.M) { pgtest.Main(m) }
	Main = server.Main
	// Shutdown stops the private cluster and removes its directory. It is
	// safe to call when none was started.
	Shutdown = server.Shutdown
	// ServerDSN returns the base DSN (a superuser on the maintenance
	// database), starting the private cluster on first use. It fails or
	// skips t as described in the package documentation when no server is
	// available.
	ServerDSN = server.DSN
	// UncreatedDSN returns a DSN naming a database that does not exist yet,
	// and its name; whatever creates it, the database is dropped when the
	// test ends (best effort).
	UncreatedDSN = server.UncreatedDSN
	// Exec runs sql on the maintenance database as the superuser.
	Exec = server.Exec
	// ExecIn runs sql (one or more statements) on the database of dsn.
	ExecIn = server.ExecIn
)
