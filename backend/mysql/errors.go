package mysql

import (
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
)

// Server error numbers relchain treats specially.
const (
	errLockWaitTimeout = 1205
	errDeadlock        = 1213
)

// classOf maps a MySQL/MariaDB error number onto a backend.Class and a
// SQLSTATE that is the same for the class on every server version (the
// server's own SQLSTATE is mostly HY000 or 42000 and says little).
// ok=false: a node fault (see nodeFault), never a tx result.
func classOf(num uint16) (backend.Class, string, bool) {
	switch num {
	case 1064, 1149: // parse error, syntax error
		return backend.ClassSyntax, "42601", true
	case 1146, 1054, 1305, 1049, 1051, 1091, 1176, 1109, 1356, 1360, 1449, 1630:
		// no such table, column, function, database, unknown table (DROP),
		// can't DROP column/key, key not in table, unknown table in
		// multi-delete, view references invalid objects, no such trigger,
		// definer does not exist, function does not exist (did you mean)
		return backend.ClassUndefined, "42P01", true
	case 1050, 1060, 1061, 1007, 1304, 1359, 1826:
		// table exists, duplicate column, duplicate key name, database
		// exists, routine exists, trigger exists, duplicate FK name
		return backend.ClassDuplicate, "42P07", true
	case 1062, 1586, 1557, 1022: // duplicate entry (unique, primary key)
		return backend.ClassConstraint, "23505", true
	case 1048, 1364, 1263: // column cannot be null; no default; NULL into NOT NULL (multi-row)
		return backend.ClassConstraint, "23502", true
	case 1451, 1452, 1216, 1217: // foreign key
		return backend.ClassConstraint, "23503", true
	case 3819, 4025: // check constraint violated (MySQL, MariaDB)
		return backend.ClassConstraint, "23514", true
	case 1406: // data too long
		return backend.ClassData, "22001", true
	case 1264, 1690: // out of range value, BIGINT value out of range
		return backend.ClassData, "22003", true
	case 1365: // division by 0
		return backend.ClassData, "22012", true
	case 1242: // a scalar subquery returned more than one row (PostgreSQL's 21000)
		return backend.ClassOther, "21000", true
	case 1292, 1366, 1265, 1367, 1411, 3140, 4038, 1918, 1916:
		// incorrect value, incorrect string/integer value, data truncated,
		// illegal value, incorrect datetime, invalid JSON, syntax error in
		// JSON, cannot convert, out of range in conversion
		return backend.ClassData, "22000", true
	case 1142, 1143, 1044, 1045, 1227, 1792, 1290, 1370:
		// command/column denied, access denied, needs privilege,
		// read-only transaction, server option prevents (read-only):
		// each node's own grants and settings, and the server's message
		// names the node's user and database. A node fault, never a tx
		// result (statements relchain refuses are the gate's, ClassPermission
		// with the gate's own message).
		return "", "", false
	case 1235, 1295, 1178, 1289, 1163:
		// not supported yet, not supported in prepared protocol, engine
		// does not support, feature disabled, table type does not support
		return backend.ClassNotImplemented, "0A000", true
	case 1118, 1059, 1071, 1074, 1117, 1069, 1070, 3636, 4068, 1709:
		// row size too large, identifier too long, key too long, column
		// too long, too many columns/keys/key parts, recursion limit,
		// index column too long: the statement's own limits, the same on
		// every node of the network's profile (innodb_page_size and
		// innodb_default_row_format are checked before every block,
		// innodb_strict_mode and the recursion limits are pinned per
		// session; see profile.go and DESIGN.md). They stay tx results:
		// a node fault here would let any key with CREATE rights halt
		// every validator, since a block with DDL is not executed early
		// (ProcessProposal) on this backend.
		return backend.ClassResource, "54000", true
	case 1114, 1040, 1153, 1301, 1436, 1135, 1158, 1159, 1160, 1161, 1180, 1037, 1038,
		1016, 1034, 1194, 1195, 1799:
		// table full (disk), too many connections, packet too large and
		// result over max_allowed_packet (checked at Open, but a server
		// reconfigured meanwhile), thread stack, can't create thread,
		// network read/write errors, error during COMMIT,
		// out of memory, can't open file, corrupt table, table marked
		// crashed, online ALTER log too big:
		// this node's resources, never a tx result
		return "", "", false
	case 1197, 1534, 1661, 1662, 1663, 1664, 1665, 1666, 1785:
		// the binary log's cache limits (max_binlog_cache_size,
		// max_binlog_stmt_cache_size), binlog_format and GTID
		// consistency: each node's replication settings, never the
		// statement's
		return "", "", false
	case 1226, 1637, 1036, 1412, 1615, 1467:
		// the account's resource limits (MAX_UPDATES_PER_HOUR ...), too
		// many concurrent transactions, a read-only table
		// (innodb_read_only), a table definition changed under a
		// snapshot or a statement to re-prepare (table_definition_cache),
		// an auto-increment the engine could not read: this node's
		// configuration and history
		return "", "", false
	case errLockWaitTimeout, errDeadlock,
		1206, // lock table full
		2006, 2013, 1053, 1927, 1317, 1028, 1030, 1021, 1041, 3024, 1969:
		// lock wait timeout, deadlock, lock table full, server gone,
		// lost connection, shutdown, connection killed, query
		// interrupted, sort aborted, got error from engine, disk full,
		// out of memory, statement time exceeded (MySQL, MariaDB)
		return "", "", false
	}
	// Any other number is taken as the statement's own failure, the same
	// on every node: halting here would let any client stop the network
	// with a statement that fails in a way not listed above; a node-local
	// failure that slips through makes only that node's AppHash differ,
	// which the divergence watcher catches.
	if num >= 1100 && num < 1200 {
		return backend.ClassInvalid, "42000", true
	}
	return backend.ClassOther, "HY000", true
}

// asBackendError converts a server error in err's chain to a
// *backend.Error, or returns nil (not a server error, or a node fault).
func asBackendError(err error) *backend.Error {
	if e := backend.AsError(err); e != nil {
		return e
	}
	var me *gomysql.MySQLError
	if !errors.As(err, &me) {
		return nil
	}
	class, state, ok := classOf(me.Number)
	if !ok {
		return nil
	}
	return &backend.Error{Class: class, SQLState: state, Message: fmt.Sprintf("%d: %s", me.Number, me.Message)}
}

// mysqlNumber returns the server error number in err's chain, or 0.
func mysqlNumber(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}
