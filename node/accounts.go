package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend/mysql"
)

// WithUnsafeSuperuser is relchain.toml's backend.unsafe_superuser = true
// for this run (relchain node --unsafe-superuser): the node may open its
// database with roles or accounts that hold server-wide or dangerous
// privileges. Tests only: any statement that slips past the gate then acts
// with them.
func WithUnsafeSuperuser() Option { return func(o *options) { o.unsafeSuperuser = true } }

// PrepareMySQLAccounts turns the administrator's DSN of a new MySQL/MariaDB
// node (init, testnet, localnet, add-node) into the node's least-privilege
// accounts: it creates the database and a writer and a reader account
// (mysql.SetupAccounts) and points b at them. A DSN whose account may not
// create accounts is kept as it is (an operator's own least-privilege
// account; the node checks its privileges when it starts). Other backends
// are left alone.
func PrepareMySQLAccounts(b *BackendConfig) error {
	if b.Kind != "mysql" || b.ReaderDSN != "" {
		return nil
	}
	db, err := mysql.DatabaseName(b.DSN)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, r, err := mysql.SetupAccounts(ctx, b.DSN, db)
	var me *gomysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1044 || me.Number == 1227 || me.Number == 1142 || me.Number == 1410) {
		return nil // not an administrator: the DSN is the operator's own account
	}
	if err != nil {
		return fmt.Errorf("create the node's database accounts: %w", err)
	}
	b.DSN, b.ReaderDSN = w, r
	return nil
}

// mysqlAccountOptions are the Open options of a node's accounts.
func mysqlAccountOptions(b BackendConfig) []mysql.Option {
	var opts []mysql.Option
	if b.ReaderDSN != "" {
		opts = append(opts, mysql.WithReaderDSN(b.ReaderDSN))
	}
	if b.UnsafeSuperuser {
		opts = append(opts, mysql.WithUnsafeSuperuser())
	}
	return opts
}
