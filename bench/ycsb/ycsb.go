package ycsb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// Transaction kinds.
const (
	Read            = "Read"
	Update          = "Update"
	ReadModifyWrite = "ReadModifyWrite"
)

// Request distributions.
const (
	Uniform = "uniform"
	Zipfian = "zipfian"
	Latest  = "latest"
)

// Defaults.
const (
	DefaultRecords     = 100_000
	DefaultFields      = 10
	DefaultFieldLength = 100
	DefaultWorkload    = "a"
	// ZipfianConstant is YCSB's default zipfian constant (theta).
	ZipfianConstant = 0.99
	// Table is the name of YCSB's table.
	Table = "usertable"
)

// Options configures the workload; the zero value means the defaults.
type Options struct {
	// Records is the number of records (default 100,000).
	Records int
	// Fields is the number of fields per record (default 10).
	Fields int
	// FieldLength is the length of every field in characters (default 100).
	FieldLength int
	// Workload is the YCSB core workload: "a" (50 % read, 50 % update,
	// the default), "b" (95 / 5), "c" (read only) or "f" (50 % read, 50 %
	// read-modify-write).
	Workload string
	// Distribution is the request distribution: "uniform" (the default,
	// as in the hybrid blockchain database paper), "zipfian" (YCSB's
	// scrambled zipfian, constant 0.99) or "latest" (skewed toward the
	// most recently inserted, i.e. highest, record numbers).
	Distribution string
	// Mix, if set, replaces the workload letter's read/write proportion:
	// weights of Read and of the letter's write kind (Update, or
	// ReadModifyWrite for "f"), e.g. {Read: 5, Update: 95} for a
	// write-heavy mix the core workloads lack.
	Mix map[string]int
}

// Workload is a YCSB core workload.
type Workload struct {
	records, fields, fieldLen int
	name, dist                string
	readW, totalW             int  // reads are readW of every totalW operations; the rest writes
	rmw                       bool // writes are read-modify-writes
	latest                    *zipfParams
}

var _ workload.Workload = (*Workload)(nil)

// New returns a YCSB workload.
func New(o Options) (*Workload, error) {
	w := &Workload{records: o.Records, fields: o.Fields, fieldLen: o.FieldLength, name: strings.ToLower(o.Workload), dist: o.Distribution}
	if w.records == 0 {
		w.records = DefaultRecords
	}
	if w.fields == 0 {
		w.fields = DefaultFields
	}
	if w.fieldLen == 0 {
		w.fieldLen = DefaultFieldLength
	}
	if w.name == "" {
		w.name = DefaultWorkload
	}
	if w.dist == "" {
		w.dist = Uniform
	}
	switch {
	case w.records < 2:
		return nil, fmt.Errorf("ycsb: %d records: need at least 2", w.records)
	case w.fields < 1 || w.fields+1 > txn.MaxArgs:
		return nil, fmt.Errorf("ycsb: %d fields: need 1 to %d", w.fields, txn.MaxArgs-1)
	case w.fieldLen < 1 || w.fieldLen*w.fields > workload.MaxSetupBytes/2:
		return nil, fmt.Errorf("ycsb: field length %d: need 1 to %d for %d fields", w.fieldLen, workload.MaxSetupBytes/2/w.fields, w.fields)
	}
	w.totalW = 100
	switch w.name {
	case "a":
		w.readW = 50
	case "b":
		w.readW = 95
	case "c":
		w.readW = 100
	case "f":
		w.readW, w.rmw = 50, true
	default:
		return nil, fmt.Errorf("ycsb: unknown workload %q (want a, b, c or f)", o.Workload)
	}
	if err := w.applyMix(o.Mix); err != nil {
		return nil, err
	}
	switch w.dist {
	case Uniform, Zipfian:
	case Latest:
		w.latest = newZipfParams(int64(w.records), ZipfianConstant, zeta(int64(w.records), ZipfianConstant))
	default:
		return nil, fmt.Errorf("ycsb: unknown distribution %q (want %q, %q or %q)", o.Distribution, Uniform, Zipfian, Latest)
	}
	seen := make(map[int64]int, w.records)
	for i := range int64(w.records) {
		h := fnvhash64(i)
		if j, dup := seen[h]; dup {
			return nil, fmt.Errorf("ycsb: records %d and %d have the same key %s", j, i, Key(i))
		}
		seen[h] = int(i)
	}
	return w, nil
}

// Name implements workload.Workload: "ycsb-a", "ycsb-b", ...
func (w *Workload) Name() string { return "ycsb-" + w.name }

// Records returns the number of records.
func (w *Workload) Records() int { return w.records }

// Tables implements workload.Workload.
func (w *Workload) Tables() []workload.Table {
	return []workload.Table{{Name: Table, Key: []string{"ycsb_key"}}}
}

// fnvhash64 is YCSB's Utils.fnvhash64 (FNV-1a over the 8 low-order-first
// bytes, then Math.abs).
func fnvhash64(v int64) int64 {
	h := uint64(0xCBF29CE484222325)
	for range 8 {
		h ^= uint64(v & 0xff)
		v >>= 8
		h *= 1099511628211
	}
	x := int64(h)
	if x < 0 {
		x = -x // as Java's Math.abs: MinInt64 stays negative
	}
	return x
}

// Key is the key of record number i, as YCSB builds it with its default
// orderedinserts=false: "user" followed by the FNV hash of i.
func Key(i int64) string { return "user" + strconv.FormatInt(fnvhash64(i), 10) }

// alphabet holds 64 printable ASCII characters ('!' to '`').
const alphabet = "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"

// value fills n printable characters from r.
func value(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := 0; i < n; {
		x := r.Uint64()
		for j := 0; j < 10 && i < n; j++ {
			b[i] = alphabet[x&63]
			x >>= 6
			i++
		}
	}
	return string(b)
}

// InitialValue is the value Setup gives field f of record i.
func (w *Workload) InitialValue(i int64, f int) string {
	return value(rand.New(rand.NewPCG(uint64(i), 0x7963736200000000|uint64(f))), w.fieldLen)
}

func (w *Workload) fieldList() string {
	cols := make([]string, w.fields)
	for f := range cols {
		cols[f] = "field" + strconv.Itoa(f)
	}
	return strings.Join(cols, ", ")
}

// Setup implements workload.Workload: the table, then the records in
// multi-row INSERTs of at most txn.MaxArgs arguments, as many statements
// per bc-transaction as fit MaxSetupBytes.
func (w *Workload) Setup(dialect string) ([][]txn.Statement, error) {
	keyType, err := workload.Lookup(keyTypes, "ycsb's keyTypes", dialect)
	if err != nil {
		return nil, fmt.Errorf("ycsb: %w", err)
	}
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE " + Table + " (ycsb_key " + keyType + " PRIMARY KEY")
	for f := range w.fields {
		fmt.Fprintf(&ddl, ", field%d TEXT", f)
	}
	ddl.WriteString(")")

	const envelope = 2048 // chain id, nonce, key, signature, counts: generous
	perRow := w.fields + 1
	p := &setupPacker{
		dialect: dialect, perRow: perRow, maxRows: txn.MaxArgs / perRow, budget: workload.MaxSetupBytes - envelope,
		head: "INSERT INTO " + Table + " (ycsb_key, " + w.fieldList() + ") VALUES ",
		bcs:  [][]txn.Statement{{{SQL: ddl.String()}}},
	}
	for i := range int64(w.records) {
		row := make([]txn.Arg, 0, perRow)
		row = append(row, txn.Text(Key(i)))
		for f := range w.fields {
			row = append(row, txn.Text(w.InitialValue(i, f)))
		}
		p.add(row)
	}
	p.closeBC()
	bcs := workload.DDLAlone(dialect, p.bcs)
	for _, bc := range bcs { // numbered placeholders in the dialect's own style
		for i := range bc {
			bc[i] = workload.ForDialect(dialect, workload.WL{Kind: "setup", Statements: bc[i : i+1]}).Statements[0]
		}
	}
	return bcs, nil
}

// keyTypes is ycsb_key's type by dialect name (a test holds that every
// database has one): MySQL cannot index TEXT without a prefix length,
// and MariaDB in the postgres dialect (a network over several engines)
// refuses a key of unbounded length.
var keyTypes = map[string]string{
	workload.SQLite:   "TEXT",
	workload.Postgres: "VARCHAR(64)",
	workload.MySQL:    "VARCHAR(64)",
}

// setupPacker packs rows into multi-row INSERTs of at most maxRows rows,
// and the INSERTs into bc-transactions within budget bytes and
// workload.MaxSetupStatements statements.
type setupPacker struct {
	dialect         string
	perRow, maxRows int
	budget          int
	head            string // the INSERT up to VALUES

	bcs     [][]txn.Statement // the finished bc-transactions
	bc      []txn.Statement   // the bc-transaction being filled
	bcBytes int
	sql     strings.Builder // the statement being filled
	args    []txn.Arg
	stBytes int
}

// add appends row to the statement being filled, first closing the
// statement when it is full and the bc-transaction when the row would
// not fit it.
func (p *setupPacker) add(row []txn.Arg) {
	tuple := placeholders(p.dialect, len(p.args)+1, len(row))
	rowBytes := len(tuple) + 2
	for _, a := range row {
		rowBytes += 1 + binary.MaxVarintLen32 + len(a.Text)
	}
	if len(p.args)/p.perRow == p.maxRows {
		p.closeStmt()
	}
	if p.bcBytes+p.stBytes+len(p.head)+16+rowBytes > p.budget || len(p.bc) == workload.MaxSetupStatements && len(p.args) == 0 {
		p.closeBC()
	}
	if len(p.args) == 0 {
		// Renumber: the statement starts afresh.
		tuple = placeholders(p.dialect, 1, len(row))
		p.sql.WriteString(p.head)
		p.stBytes = len(p.head) + 16
	} else {
		p.sql.WriteString(", ")
	}
	p.sql.WriteString(tuple)
	p.args = append(p.args, row...)
	p.stBytes += rowBytes
}

// closeStmt ends the statement being filled, if any.
func (p *setupPacker) closeStmt() {
	if len(p.args) == 0 {
		return
	}
	st := txn.Statement{SQL: p.sql.String(), Args: p.args}
	p.bc = append(p.bc, st)
	p.bcBytes += len(txn.AppendStatement(nil, st))
	p.sql.Reset()
	p.args, p.stBytes = nil, 0
}

// closeBC ends the statement and the bc-transaction being filled, if any.
func (p *setupPacker) closeBC() {
	p.closeStmt()
	if len(p.bc) > 0 {
		p.bcs = append(p.bcs, p.bc)
	}
	p.bc, p.bcBytes = nil, 0
}

// placeholders is "(p1, p2, ...)": n placeholders numbered from first.
func placeholders(dialect string, first, n int) string {
	var b strings.Builder
	b.WriteString("(")
	for k := range n {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(workload.Placeholder(dialect, first+k))
	}
	b.WriteString(")")
	return b.String()
}

// Generator implements workload.Workload.
func (w *Workload) Generator(dialect string, seed uint64, client int) workload.Generator {
	r := rand.New(rand.NewPCG(seed, 0x7963736267656e00^uint64(client)))
	g := &generator{w: w, r: r, dialect: dialect}
	switch w.dist {
	case Zipfian:
		g.zipf = scrambledParams
	case Latest:
		g.zipf = w.latest
	}
	cols := w.fieldList()
	g.read = "SELECT ycsb_key, " + cols + " FROM " + Table + " WHERE ycsb_key = " + workload.Placeholder(dialect, 1)
	g.update = make([]string, w.fields)
	for f := range g.update {
		g.update[f] = fmt.Sprintf("UPDATE %s SET field%d = %s WHERE ycsb_key = %s", Table, f, workload.Placeholder(dialect, 1), workload.Placeholder(dialect, 2))
	}
	return g
}

type generator struct {
	w      *Workload
	r      *rand.Rand
	zipf   *zipfParams
	read   string
	update []string
	// dialect: on MySQL Next numbers the placeholders away (see
	// workload.Positional).
	dialect string
}

// record draws a record number from the request distribution.
func (g *generator) record() int64 {
	n := int64(g.w.records)
	switch g.w.dist {
	case Zipfian:
		return fnvhash64(g.zipf.next(g.r)) % n
	case Latest:
		return n - 1 - g.zipf.next(g.r)
	}
	return g.r.Int64N(n)
}

// Next implements workload.Generator.
func (g *generator) Next() workload.WL { return workload.ForDialect(g.dialect, g.next()) }

func (g *generator) next() workload.WL {
	isRead := g.r.IntN(g.w.totalW) < g.w.readW
	key := txn.Text(Key(g.record()))
	read := txn.Statement{SQL: g.read, Args: []txn.Arg{key}}
	if isRead {
		return workload.WL{Kind: Read, ReadOnly: true, Statements: []txn.Statement{read}}
	}
	f := g.r.IntN(g.w.fields)
	upd := txn.Statement{SQL: g.update[f], Args: []txn.Arg{txn.Text(value(g.r, g.w.fieldLen)), key}}
	if g.w.rmw {
		return workload.WL{Kind: ReadModifyWrite, Statements: []txn.Statement{read, upd}}
	}
	return workload.WL{Kind: Update, Statements: []txn.Statement{upd}}
}

// zipfParams is YCSB's ZipfianGenerator (Gray et al., "Quickly generating
// billion-record synthetic databases", SIGMOD 1994) over items 0..items-1.
type zipfParams struct {
	items             int64
	theta, alpha, eta float64
	zetan             float64
	twoItems          float64 // 1 + 0.5^theta: below it, a draw is item 1
}

func newZipfParams(items int64, theta, zetan float64) *zipfParams {
	zeta2 := zeta(2, theta)
	return &zipfParams{
		items:    items,
		theta:    theta,
		alpha:    1 / (1 - theta),
		zetan:    zetan,
		eta:      (1 - math.Pow(2/float64(items), 1-theta)) / (1 - zeta2/zetan),
		twoItems: 1 + math.Pow(0.5, theta),
	}
}

// zeta is sum_{i=1..n} 1/i^theta, summed in order.
func zeta(n int64, theta float64) float64 {
	var s float64
	for i := int64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

func (z *zipfParams) next(r *rand.Rand) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < z.twoItems {
		return 1
	}
	v := int64(float64(z.items) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(v, z.items-1)
}

// scrambledParams is the zipfian generator that YCSB's
// ScrambledZipfianGenerator draws from: 10^10 items with the zeta value
// YCSB precomputes for them; a draw is then hashed onto the records.
var scrambledParams = newZipfParams(10_000_000_000, ZipfianConstant, 26.46902820178302)

// Check implements workload.Workload: the table holds exactly the keys of
// records 0..Records-1, every field of every record has exactly
// FieldLength characters, every committed update changed one row, and
// every record a committed wl-transaction updated holds the last value
// written to each updated field and its initial value in the others.
func (w *Workload) Check(ctx context.Context, dialect string, q workload.Querier, applied []workload.Applied) error {
	rows, err := q.Query(ctx, "SELECT count(*) FROM "+Table)
	if err != nil {
		return fmt.Errorf("ycsb check: count records: %w", err)
	}
	if n, err := one(rows); err != nil {
		return fmt.Errorf("ycsb check: count records: %w", err)
	} else if n != int64(w.records) {
		return fmt.Errorf("ycsb check: %s has %d records, want %d", Table, n, w.records)
	}
	conds := make([]string, w.fields)
	for f := range conds {
		conds[f] = fmt.Sprintf("field%[1]d IS NULL OR length(field%[1]d) <> %[2]d", f, w.fieldLen)
	}
	rows, err = q.Query(ctx, "SELECT count(*) FROM "+Table+" WHERE "+strings.Join(conds, " OR "))
	if err != nil {
		return fmt.Errorf("ycsb check: field lengths: %w", err)
	}
	if n, err := one(rows); err != nil {
		return fmt.Errorf("ycsb check: field lengths: %w", err)
	} else if n != 0 {
		return fmt.Errorf("ycsb check: %d records have a field that is NULL or not %d characters long", n, w.fieldLen)
	}
	if err := w.checkKeys(ctx, dialect, q); err != nil {
		return err
	}
	return w.checkWrites(ctx, dialect, q, applied)
}

// keyPage is how many keys Check reads per query.
const keyPage = 10_000

func (w *Workload) checkKeys(ctx context.Context, dialect string, q workload.Querier) error {
	got := make([]string, 0, w.records)
	for {
		sql := fmt.Sprintf("SELECT ycsb_key FROM %s ORDER BY ycsb_key LIMIT %d", Table, keyPage)
		var args []any
		if len(got) > 0 {
			sql = fmt.Sprintf("SELECT ycsb_key FROM %s WHERE ycsb_key > %s ORDER BY ycsb_key LIMIT %d", Table, workload.Placeholder(dialect, 1), keyPage)
			args = []any{got[len(got)-1]}
		}
		sql, args, err := workload.QueryArgs(dialect, sql, args)
		if err != nil {
			return fmt.Errorf("ycsb check: read keys: %w", err)
		}
		rows, err := q.Query(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("ycsb check: read keys: %w", err)
		}
		for _, r := range rows {
			k, ok := r[0].(string)
			if !ok {
				return fmt.Errorf("ycsb check: key %v is a %T, want text", r[0], r[0])
			}
			got = append(got, k)
		}
		if len(rows) < keyPage || len(got) > w.records {
			break
		}
	}
	want := make([]string, w.records)
	for i := range want {
		want[i] = Key(int64(i))
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(got) != len(want) {
		return fmt.Errorf("ycsb check: read %d keys, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("ycsb check: unexpected key set: at sorted position %d got %q, want %q", i, got[i], want[i])
		}
	}
	return nil
}

// checkWrites verifies the committed updates' row counts and final values.
func (w *Workload) checkWrites(ctx context.Context, dialect string, q workload.Querier, applied []workload.Applied) error {
	last := map[string]map[int]string{} // key -> field -> last value
	var keys []string
	for i, a := range applied {
		if a.Code != api.CodeOK {
			continue
		}
		st := a.WL.Statements
		if len(st) == 0 || len(st) != len(a.Results) {
			return fmt.Errorf("ycsb check: applied wl-transaction %d (%s): %d statements, %d results", i, a.WL.Kind, len(st), len(a.Results))
		}
		if a.WL.Kind == ReadModifyWrite && len(a.Results[0].Rows) != 1 {
			return fmt.Errorf("ycsb check: applied wl-transaction %d (%s): the read returned %d rows, want 1", i, a.WL.Kind, len(a.Results[0].Rows))
		}
		upd := st[len(st)-1]
		var f int
		if _, err := fmt.Sscanf(upd.SQL, "UPDATE "+Table+" SET field%d =", &f); err != nil || len(upd.Args) != 2 || f >= w.fields {
			return fmt.Errorf("ycsb check: applied wl-transaction %d (%s) is not an update of one field: %q", i, a.WL.Kind, upd.SQL)
		}
		if n := a.Results[len(st)-1].RowsAffected; n != 1 {
			return fmt.Errorf("ycsb check: applied wl-transaction %d (%s) updated %d rows, want 1", i, a.WL.Kind, n)
		}
		key := upd.Args[1].Text
		if last[key] == nil {
			last[key] = map[int]string{}
			keys = append(keys, key)
		}
		last[key][f] = upd.Args[0].Text
	}
	index := make(map[string]int64, w.records)
	if len(keys) > 0 {
		for i := range int64(w.records) {
			index[Key(i)] = i
		}
	}
	const batch = 500
	for lo := 0; lo < len(keys); lo += batch {
		part := keys[lo:min(lo+batch, len(keys))]
		ph := make([]string, len(part))
		args := make([]any, len(part))
		for j, k := range part {
			ph[j] = workload.Placeholder(dialect, j+1)
			args[j] = k
		}
		sql, args, err := workload.QueryArgs(dialect, "SELECT ycsb_key, "+w.fieldList()+" FROM "+Table+" WHERE ycsb_key IN ("+strings.Join(ph, ", ")+")", args)
		if err != nil {
			return fmt.Errorf("ycsb check: read updated records: %w", err)
		}
		rows, err := q.Query(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("ycsb check: read updated records: %w", err)
		}
		if len(rows) != len(part) {
			return fmt.Errorf("ycsb check: read %d of %d updated records", len(rows), len(part))
		}
		for _, r := range rows {
			key, _ := r[0].(string)
			i, ok := index[key]
			if !ok || last[key] == nil {
				return fmt.Errorf("ycsb check: unexpected record %v among the updated ones", r[0])
			}
			for f := range w.fields {
				want, updated := last[key][f]
				if !updated {
					want = w.InitialValue(i, f)
				}
				if got, _ := r[1+f].(string); got != want {
					what := "its initial value"
					if updated {
						what = "the last value written"
					}
					return fmt.Errorf("ycsb check: record %s field%d is %q, want %s %q", key, f, got, what, want)
				}
			}
		}
	}
	return nil
}

// one reads a single integer.
func one(rows [][]any) (int64, error) {
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("got %d rows, want 1 row of 1 column", len(rows))
	}
	return workload.Int(rows[0][0])
}

// applyMix sets the read/write proportion from mix's weights of Read and
// of the workload's write kind.
func (w *Workload) applyMix(mix map[string]int) error {
	if len(mix) == 0 {
		return nil
	}
	write := Update
	if w.rmw {
		write = ReadModifyWrite
	}
	for k, n := range mix {
		if (k != Read && k != write) || n < 0 {
			return fmt.Errorf("ycsb-%s: mix %s:%d: want weights of %s and %s", w.name, k, n, Read, write)
		}
	}
	w.readW, w.totalW = mix[Read], mix[Read]+mix[write]
	if w.totalW == 0 {
		return fmt.Errorf("ycsb-%s: the mix has no weight", w.name)
	}
	return nil
}
