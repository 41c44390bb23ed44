package api

import "fmt"

// QueryError is a failed read: a node's answer to abci_query (or to a
// read inside the node, as its PostgreSQL listener makes them) with a
// code other than CodeOK. client.QueryError is this type; it lives here,
// in the wire contract, so that a node can report a failed read the way
// a client sees one without importing the client.
type QueryError struct {
	Code    uint32
	Message string
	// Failure is the failure's class and SQLSTATE when the node's backend
	// classified it (a failed read); nil otherwise.
	Failure *FailureData
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("query %s (code %d): %s", CodeName(e.Code), e.Code, e.Message)
}
