package clientcmd

import (
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// parseArg turns a command-line argument into a typed argument. A prefix
// forces the type (int:, float:, text:, bytes: with hex, bool:, null);
// otherwise integers, decimals, true/false and NULL are recognised and
// anything else is text.
func parseArg(s string) (txn.Arg, error) {
	if kind, v, ok := strings.Cut(s, ":"); ok {
		switch kind {
		case "int":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: not a 64-bit integer", s)
			}
			return txn.Int(n), nil
		case "float":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: not a number", s)
			}
			return txn.Float(f), nil
		case "text":
			return txn.Text(v), nil
		case "bytes":
			b, err := hex.DecodeString(v)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: bytes must be hex", s)
			}
			return txn.Bytes(b), nil
		case "bool":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return txn.Arg{}, fmt.Errorf("argument %q: not true or false", s)
			}
			return txn.Bool(b), nil
		}
	}
	if strings.EqualFold(s, "null") {
		return txn.Null(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return txn.Int(n), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXnN") {
		return txn.Float(f), nil
	}
	if s == "true" || s == "false" {
		return txn.Bool(s == "true"), nil
	}
	return txn.Text(s), nil
}

func parseArgs(ss []string) ([]txn.Arg, error) {
	var out []txn.Arg
	for _, s := range ss {
		a, err := parseArg(s)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// CheckOutput refuses an --output value that is not one of allowed.
func CheckOutput(output string, allowed ...string) error {
	for _, a := range allowed {
		if output == a {
			return nil
		}
	}
	return fmt.Errorf("unknown --output %q: use %s", output, strings.Join(allowed, " or "))
}

const argHelp = `Arguments fill the statement's placeholders in order: $1.. on a network that
speaks PostgreSQL's SQL (PostgreSQL storage, and SQLite in the postgres dialect,
the default of new networks), ?1.. or ? on SQLite's own SQL and on MySQL. Integers, decimals, true/false and NULL are recognised; a
prefix forces a type: int:, float:, text:, bytes:<hex>, bool:.`

func printResult(r *client.Result, m client.Mode) {
	fmt.Printf("tx:     %s\n", r.Hash)
	if m == client.ModeAsync && r.Height == 0 {
		fmt.Println("status: submitted (async: the outcome is not known yet)")
		return
	}
	fmt.Printf("code:   %d (%s)\n", r.Code, api.CodeName(r.Code))
	if r.Height > 0 {
		fmt.Printf("height: %d\n", r.Height)
	}
	for i, s := range r.Results {
		if len(r.Results) > 1 {
			fmt.Printf("statement %d:\n", i+1)
		}
		fmt.Printf("rows affected: %d\n", s.RowsAffected)
		if len(s.Columns) > 0 {
			printTable(s.Columns, s.Rows)
		}
	}
}

func printTable(cols []string, rows [][]any) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, strings.Join(cols, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = fmt.Sprint(v)
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	w.Flush()
}
