package mysqlgate

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// The deterministic bounds of the gate (see the package documentation,
// "Bounds"): what a statement text may ask of the server in rows and
// bytes, and the rule that keeps floating-point values out of aggregates.

// maxAmplifierCount is the largest count of REPEAT and length of LPAD and
// RPAD: their result is up to that many times the size of their input.
const maxAmplifierCount = 4096

// amplifiers are the functions whose result can be many times larger than
// their arguments: the count or length argument (1-based position, 0 for
// none) must be an integer literal, and none of them may appear inside the
// arguments of another (nesting multiplies).
var amplifiers = map[string]int{"repeat": 2, "lpad": 2, "rpad": 2, "replace": 0, "hex": 0}

// seqTable matches the names of MariaDB's sequence-engine tables, which
// exist in every database without being created and hold any number of
// rows the name asks for.
var seqTable = regexp.MustCompile(`(?i)^seq_[0-9]+_to_[0-9]+(_step_[0-9]+)?$`)

// floatTypes are the floating-point column and CAST types.
var floatTypes = setOf("double", "double precision", "float", "real")

const floatReason = "floating-point values are not allowed: SUM and AVG of them depend on the order rows are " +
	"added in, which differs between nodes (plans, maintenance), and their last bits on the node's math library; " +
	"use DECIMAL(p, s)"

// checkSeqTable refuses MariaDB's sequence-engine table names.
func checkSeqTable(name string) error {
	if seqTable.MatchString(name) {
		return fmt.Errorf("table %s is not allowed: it names a MariaDB sequence-engine table (seq_<from>_to_<to>), "+
			"a virtual table of any size that exists in every database; names of that form are refused", strings.ToLower(name))
	}
	return nil
}

// enterFunc applies the bounds of a function call and returns what to undo
// when the walk leaves it: amplifier nesting and the aggregate context.
func (w *walker) enterFunc(f *sqlparser.FuncExpr) (leave func(), err error) {
	name := f.Name.Lowered()
	if pos, ok := amplifiers[name]; ok {
		if w.amplifier != "" {
			return nil, fmt.Errorf("%s inside the arguments of %s is not allowed: nested size-multiplying functions "+
				"(REPEAT, LPAD, RPAD, REPLACE, HEX) can make a result many times larger than the statement; compute it in steps", name, w.amplifier)
		}
		if err := checkAmplifierCount(name, f.Exprs, pos); err != nil {
			return nil, err
		}
		w.amplifier = name
		return func() { w.amplifier = "" }, nil
	}
	if name == "sum" || name == "avg" {
		w.aggregates++
		return func() { w.aggregates-- }, nil
	}
	if w.aggregates > 0 && strings.HasPrefix(name, "json_") {
		return nil, errJSONAggregate
	}
	return func() {}, nil
}

var errJSONAggregate = errors.New("JSON values inside SUM or AVG are not allowed: MySQL adds JSON numbers as " +
	"floating-point values, whose sum depends on the order of the rows; CAST the value AS DECIMAL(p, s) " +
	"outside the aggregate's reach (in a derived table) or store it in a DECIMAL column")

// checkAmplifierCount requires the count (or length) argument of an
// amplifier to be an integer literal of at most maxAmplifierCount.
func checkAmplifierCount(name string, args sqlparser.SelectExprs, pos int) error {
	if pos == 0 {
		return nil
	}
	what := "count"
	if name != "repeat" {
		what = "length"
	}
	if len(args) < pos {
		return nil // the server refuses the call
	}
	bad := fmt.Errorf("the %s argument of %s must be an integer literal of at most %d: larger or computed "+
		"%ss make results of any size", what, name, maxAmplifierCount, what)
	ae, ok := args[pos-1].(*sqlparser.AliasedExpr)
	if !ok {
		return bad
	}
	v, ok := ae.Expr.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.IntVal {
		return bad
	}
	n, err := strconv.ParseUint(string(v.Val), 10, 64)
	if err != nil || n > maxAmplifierCount {
		return bad
	}
	return nil
}

// checkLiteral refuses approximate-value (floating-point) literals: 1e3,
// 2.5E-3 are DOUBLE in MySQL; 2.5 is an exact DECIMAL.
func checkLiteral(v *sqlparser.SQLVal) error {
	if v.Type == sqlparser.FloatVal && strings.ContainsAny(string(v.Val), "eE") {
		return fmt.Errorf("floating-point literal %s is not allowed: %s", v.Val, floatReason)
	}
	return nil
}

// checkJSONOperator refuses -> and ->> inside SUM and AVG.
func (w *walker) checkJSONOperator(op string) error {
	if w.aggregates > 0 && (op == sqlparser.JSONExtractOp || op == sqlparser.JSONUnquoteExtractOp) {
		return errJSONAggregate
	}
	return nil
}
