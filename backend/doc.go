// Package backend defines the contract between relchain's block executor and
// a SQL database, and the result and error types shared by every backend.
//
// Implementations live in sub-packages (backend/sqlite, backend/postgres) and
// must pass the shared conformance suite in backend/backendtest unchanged.
// This package knows nothing of CometBFT, ABCI or the application: it only
// runs SQL.
package backend
