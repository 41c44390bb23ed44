package api

// QueryPath is the abci_query path of the SQL read path.
const QueryPath = "/sql"

// GrantsPath is the abci_query path of the permission state: the genesis
// admins and every key's grants (no request data).
const GrantsPath = "/grants"

// System statements: a statement whose text is exactly one of these is a
// relchain system transaction, executed by relchain itself (never by the
// database), by an admin key only. Arguments: the grantee's 32-byte ed25519
// public key (bytes) and a table name (text), or "*" for every table.
const (
	SystemGrant  = "@relchain grant write"
	SystemRevoke = "@relchain revoke write"
)

// Validator membership system statements (admin keys only). Arguments:
// the validator's 32-byte ed25519 consensus public key (bytes), for add and
// power its voting power (int, at least 1), and last a force flag (bool)
// that lets a change lower the number of faults the set tolerates.
const (
	SystemValidatorAdd    = "@relchain validator add"
	SystemValidatorPower  = "@relchain validator power"
	SystemValidatorRemove = "@relchain validator remove"
)

// AllTables in a grant means every table, present and future.
const AllTables = "*"

// Grants is the JSON value of a /grants query.
type Grants struct {
	Height int64 `json:"height"`
	// Open: the genesis names no admin, so every key may do everything.
	Open   bool                `json:"open"`
	Admins []string            `json:"admins"` // hex public keys
	Grants map[string][]string `json:"grants"` // hex public key -> tables it may write
}

// QueryRequest is the JSON body (abci_query data) of a /sql query.
type QueryRequest struct {
	SQL  string `json:"sql"`
	Args []any  `json:"args,omitempty"`
	// MinHeight makes the node wait until it has committed this height.
	MinHeight int64 `json:"min_height,omitempty"`
	// WaitMillis bounds that wait (capped by the node's own limit).
	WaitMillis int64 `json:"wait_ms,omitempty"`
}

// QueryResponse is the JSON value of a successful /sql query.
//
// Types has one type per column: a PostgreSQL type name ("bool", "int2",
// "int4", "int8", "float4", "float8", "numeric", "text", "varchar",
// "bpchar", "bytea", "date", "time", "timestamp", "timestamptz",
// "interval", "json", "jsonb", "uuid", and on PostgreSQL networks also
// "timetz" and arrays of these, named with a leading underscore as
// PostgreSQL names them: "_int4" is int4[]), whatever the node's database,
// or "" when it cannot tell (then read the value as it comes). Values keep
// their JSON form (a SQLite "bool" column holds 0 and 1).
//
// Typmods, when present, has one PostgreSQL type modifier per column
// (numeric(p,s): (p<<16|s)+4, varchar(n) and char(n): n+4, timestamp(p):
// p), -1 where there is none; absent where the database reports none.
type QueryResponse struct {
	Height  int64    `json:"height"`
	Columns []string `json:"columns"`
	Types   []string `json:"types,omitempty"`
	Typmods []int32  `json:"typmods,omitempty"`
	Rows    [][]any  `json:"rows"`
}

// DescribePath is the abci_query path that describes one statement
// without executing it: request data a JSON DescribeRequest, response a
// JSON DescribeResponse (what a PostgreSQL client's Parse + Describe
// needs). Reads and writes (INSERT/UPDATE/DELETE ... RETURNING) are
// described on committed state; nothing is written and the statement
// passes the same gate as a query. A statement the database cannot
// compile fails with CodeQueryFailed and the database's message.
const DescribePath = "/describe"

// DescribeRequest is the JSON body of a DescribePath query.
type DescribeRequest struct {
	SQL string `json:"sql"`
}

// DescribeResponse is what a statement takes and returns. Params has one
// type per placeholder ($1.. on PostgreSQL, ? on SQLite and MySQL), ""
// where the database cannot tell; Columns is empty when the statement
// returns no rows (an INSERT without RETURNING). Types are those of
// QueryResponse.Types.
type DescribeResponse struct {
	Height  int64        `json:"height"`
	Params  []string     `json:"params"`
	Columns []ColumnType `json:"columns"`
}

// ColumnType is one result column of a DescribeResponse. Typmod is its
// PostgreSQL type modifier (see QueryResponse.Typmods), absent where there
// is none.
type ColumnType struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Typmod *int32 `json:"typmod,omitempty"`
}

// StatementResult is the outcome of one statement of a committed tx:
// returned columns and rows (SELECT, RETURNING) and rows affected.
type StatementResult struct {
	Columns      []string `json:"columns,omitempty"`
	Rows         [][]any  `json:"rows,omitempty"`
	RowsAffected int64    `json:"rows_affected"`
}

// ExecData is the JSON document in a successful tx's result data: one
// entry per statement, in order (or, for a batch envelope, one entry per
// wl-transaction in Batch), and the tx's effect digest.
type ExecData struct {
	Results []StatementResult `json:"results"`
	// Batch holds one outcome per wl-transaction of a batch envelope
	// (txn.Tx.Groups); Results is then empty. The bc-transaction's own
	// code is CodeOK whenever it was executed, whatever its wl-transactions'
	// outcomes.
	Batch []WLResult `json:"batch,omitempty"`
	// Effects is the tx's effect digest, lower-case hex: the SHA-256 of
	// the change records of every row the tx inserted, updated or deleted
	// (on PostgreSQL also its schema changes), in the backend's canonical
	// order and encoding, the same records that enter the block's change
	// digest. Absent when the tx changed no row. Result data is part of
	// consensus, so the digest is committed with the block; when nodes
	// disagree on a block, the first tx whose Effects differ is where their
	// databases went apart. Digests are comparable between nodes of one
	// backend kind only.
	Effects string `json:"effects,omitempty"`
}

// WLResult is the outcome of one wl-transaction of a batch: Code is
// CodeOK and Results holds one entry per statement when it committed;
// otherwise Code says why it was rolled back and Failure names the
// statement (1-based within the wl-transaction).
type WLResult struct {
	Code    uint32            `json:"code"`
	Results []StatementResult `json:"results,omitempty"`
	Failure *FailureData      `json:"failure,omitempty"`
}

// FailureData is the JSON document in a failed tx's result data. Every
// field is deterministic; the backend's message is in the result log.
type FailureData struct {
	Statement int    `json:"statement,omitempty"` // 1-based index of the failing statement
	Class     string `json:"class,omitempty"`     // failure class, e.g. "constraint"
	SQLState  string `json:"sqlstate,omitempty"`
	Reason    string `json:"reason,omitempty"` // envelope rejections: what was wrong
}

// ExecInfo is the JSON in a failed tx's result info on a network over
// several engines, where the result data records only the failure's
// SQLSTATE class ("22000"): the executing node's own SQLSTATE ("22P02") and
// failure class. Each node says its own; it is not part of consensus.
type ExecInfo struct {
	SQLState string `json:"sqlstate"`
	Class    string `json:"class,omitempty"`
}

// InfoData is the JSON in abci_info's data.
type InfoData struct {
	Backend     string `json:"backend"`
	BlockAtomic bool   `json:"block_atomic"`
	// SQLDialect is the network's SQL dialect when the genesis names one
	// (sql_dialect; "" is the backend's own): "postgres" on a SQLite
	// network speaks PostgreSQL's SQL.
	SQLDialect string `json:"sql_dialect,omitempty"`
}

// NoncePath is the abci_query path of a key's replay window as of the
// node's last committed block: request data the key's 32-byte ed25519
// public key (raw bytes), response a JSON NonceResponse. A signer asks it
// when it starts, to number its first envelope above every nonce another
// process of the key used. Node-local read of committed state, not part
// of consensus.
const NoncePath = "/nonce"

// NonceResponse answers a NoncePath query.
type NonceResponse struct {
	// Executed is the key's highest executed nonce (0: the key never
	// executed a transaction), as a decimal string (a uint64 does not
	// survive JSON numbers in every client).
	Executed uint64 `json:"executed,string"`
	// Height is the committed height it was read at.
	Height int64 `json:"height"`
}

// StatsPath is the abci_query path of the node's own per-block timings:
// request data {"from": H, "to": H} (JSON), response a JSON array of
// BlockTiming. The timings are this node's local measurements, not part
// of consensus; the node keeps the most recent blocks only.
const StatsPath = "/stats/blocks"

// StatsRequest is the JSON body of a StatsPath query.
type StatsRequest struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// BlockTiming is how long one block spent in each phase on one node, in
// microseconds of its monotonic clock. Propose runs from the previous
// block's commit to this block's proposal reaching the application
// (PrepareProposal on the proposer, ProcessProposal elsewhere: it includes
// timeout_commit and gossip); Consensus from there to FinalizeBlock
// (prevotes and precommits); Execute is FinalizeBlock (every
// bc-transaction, the digests); Commit from FinalizeBlock's end to the end
// of the db-commit (CometBFT saving its state, then Commit).
type BlockTiming struct {
	Height      int64 `json:"height"`
	Txs         int   `json:"txs"`
	ProposeUS   int64 `json:"propose_us"`
	ConsensusUS int64 `json:"consensus_us"`
	ExecuteUS   int64 `json:"execute_us"`
	CommitUS    int64 `json:"commit_us"`
	// Lanes is how the block's txs ran where the node has lanes (parallel
	// execution, node-local): LanesParallel, LanesAbandoned,
	// LanesDeclined, LanesUnanalysed, or "" (serially: lanes off, too few
	// txs, or the block did not split).
	Lanes string `json:"lanes,omitempty"`
}

// The outcomes of BlockTiming.Lanes.
const (
	LanesParallel   = "parallel"   // on lanes
	LanesAbandoned  = "abandoned"  // an attempt on lanes given up, then serially
	LanesDeclined   = "declined"   // split, run serially: measured faster here
	LanesUnanalysed = "unanalysed" // not analysed: recent blocks did not split
)

// RehearsePath is the abci_query path of the rehearsal of an interactive
// transaction. The request data is a signed request (txn.SignRehearsal,
// format version 2; txn.Rehearsal documents the bytes): the chain id, a
// recent height, the sender's public key and the transaction's statements
// so far, in the envelope's statement encoding, signed by the sender's
// ed25519 key over txn.RehearsalDomain and those bytes. The node answers
// the JSON RehearseResponse. Before anything runs it refuses:
//   - a request larger than the genesis max_tx_bytes, or one that does not
//     decode (version 1's bare key included): CodeQueryBadInput;
//   - another chain's: CodeWrongChain;
//   - a signature that does not verify for the key, chain id, height and
//     statements: CodeBadSignature;
//   - a height older than RehearsalWindow blocks before the node's
//     committed height, or more than RehearsalAhead after it:
//     CodeStaleRequest, with the node's height in the response's Height.
//
// The node then runs the statements in its block db-transaction on
// committed state, exactly as a block would run them in one
// bc-transaction (gate, permissions, bounds), and rolls everything back:
// nothing is written. A rehearsal never waits long for a lock a reader
// holds: see app/DESIGN.md (rehearsal lock bounds).
//
// A request of format 3 also carries a probe (txn.Rehearsal.Probe): one
// read-only statement the node runs after the statements, when they all
// succeeded, in the same db-transaction, so it sees their schema changes
// and writes; it runs under the read policy of a read (QueryPath: the
// backend's read gate, its catalog filtering, its row, size and time
// limits), not the block gate, and is rolled back with the rest. Its
// outcome is the response's Probe. It never enters a bc-transaction.
const RehearsePath = "/rehearse"

// The freshness window of a signed request's height (RehearsePath), in
// blocks relative to the node's committed height: a request signed at a
// height more than RehearsalWindow behind, or RehearsalAhead ahead (a
// client may have learned its height from a node further along), is
// refused with CodeStaleRequest.
const (
	RehearsalWindow = 100
	RehearsalAhead  = 10
)

// RehearseResponse is the outcome of a rehearsal. When every statement
// succeeded, Code is CodeOK and Statements holds one entry per statement;
// otherwise Code and Failure are the tx result a block would give
// (Failure.Statement names the statement) and Statements is empty.
type RehearseResponse struct {
	Height     int64                `json:"height"`
	Code       uint32               `json:"code"`
	Failure    *FailureData         `json:"failure,omitempty"`
	Log        string               `json:"log,omitempty"`
	Statements []RehearsedStatement `json:"statements,omitempty"`
	// Probe is the outcome of the request's probe (see RehearsePath): set
	// when the request had one and every statement succeeded.
	Probe *ProbeResult `json:"probe,omitempty"`
}

// ProbeResult is the outcome of a rehearsal's probe: with Code CodeOK its
// rows, columns and column types (as a QueryResponse's); otherwise
// CodeQueryFailed with the backend's message in Log and its class and
// SQLSTATE in Failure (the read gate's refusal: 42501), or
// CodeUnknownPath when this node's backend cannot run a probe.
type ProbeResult struct {
	Code    uint32       `json:"code"`
	Log     string       `json:"log,omitempty"`
	Failure *FailureData `json:"failure,omitempty"`
	Columns []string     `json:"columns,omitempty"`
	Types   []string     `json:"types,omitempty"`
	// Typmods: one PostgreSQL type modifier per column, as QueryResponse's.
	Typmods []int32 `json:"typmods,omitempty"`
	Rows    [][]any `json:"rows,omitempty"`
}

// RehearsedStatement is one statement's results in a rehearsal, and the
// observation a client that saw them puts in its envelope (txn.Tx.Expect).
type RehearsedStatement struct {
	Columns      []string `json:"columns,omitempty"`
	Rows         [][]any  `json:"rows,omitempty"`
	RowsAffected int64    `json:"rows_affected"`
	Observation  []byte   `json:"observation"`
}
