package mysqltest

// The shared server's life cycle and helpers (serverdb.TestServer), under
// the names of this package.
var (
	// Main runs the tests and then stops the private server, if one was
	// started. Use it as a package's TestMain:
	//
	//	func TestMain(m *testing.M) { mysqltest.Main(m) }
	Main = server.Main
	// Shutdown stops the private server and removes its directory. It is
	// safe to call when none was started.
	Shutdown = server.Shutdown
	// ServerDSN returns the base DSN (no database selected), starting the
	// private server on first use. It fails or skips t as described in the
	// package documentation when no server is available.
	ServerDSN = server.DSN
	// Exec runs sql on the server (no database selected).
	Exec = server.Exec
)
