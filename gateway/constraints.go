package gateway

import (
	"context"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// SET CONSTRAINTS changes when a transaction checks its DEFERRABLE
// constraints (Django writes `SET CONSTRAINTS "name" IMMEDIATE` after
// adding a foreign key and before dropping one, and `SET CONSTRAINTS ALL
// IMMEDIATE` / `ALL DEFERRED` when loading fixtures). Inside a transaction
// it is one of the transaction's statements: rehearsed with the ones
// before it and sent in its bc-transaction, where the node's database
// applies it to the statements after it and to the end-of-transaction
// check (backend/sqlite/deferkeys.go, backend/postgres/deferred.go).

// setConstraintsOutside answers SET CONSTRAINTS outside a transaction
// block. PostgreSQL warns that it has no effect there and completes it,
// after checking that the constraints it names exist; the gateway
// rehearses it alone for that check and sends nothing to the chain.
func (s *session) setConstraintsOutside(ctx context.Context, stmt txn.Statement) (*pgwire.Result, error) {
	resp, err := s.rehearse(ctx, []txn.Statement{stmt}, nil)
	if err != nil {
		return nil, nodeError(err)
	}
	if resp.Code != api.CodeOK {
		return nil, rehearsalFailure(resp, 1)
	}
	return &pgwire.Result{Tag: "SET CONSTRAINTS"}, nil
}
