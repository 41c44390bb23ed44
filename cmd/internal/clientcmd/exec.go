package clientcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/txn"
)

type execFlags struct {
	mode, output, file string
	saveTx             string
	timeout            time.Duration
	signer             signer
	target             *target
}

func (e *Env) execCmd() *cobra.Command {
	var f execFlags
	cmd := &cobra.Command{
		Use:   "exec SQL [ARG...] | exec -f FILE",
		Short: "Sign and submit SQL as one bc-transaction",
		Long: `Sign and submit one SQL statement, or with -f every statement of a file
(- reads standard input), as one bc-transaction: all of them commit, or none.
A script is split at semicolons outside quotes, comments and PostgreSQL's
dollar quotes; a SQLite trigger's BEGIN ... END stays one statement.

Before anything is signed, the node is asked how many parameters each
statement takes (where it can already compile it); a statement whose
arguments do not match is refused, and nodes refuse it too (code 6).

Each exec signs a new transaction: running exec again after an unknown
outcome (exit status 3) may apply the statements twice. To retry safely,
sign once with --save-tx FILE and resend the same bytes with
relchain tx send FILE: they execute at most once, and a resend answers the
committed result.

` + argHelp + "\n\n" + nodeHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.file == "" && len(args) == 0 {
				return errors.New("exec needs a SQL statement (relchain exec \"INSERT ...\" ARG...) or a file of statements (-f FILE, - for stdin)")
			}
			if f.file != "" && len(args) > 0 {
				return errors.New("exec -f takes no SQL or arguments on the command line: put the values into the file's statements")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runExec(cmd.InOrStdin(), &f, args) },
	}
	f.target = e.withTarget(cmd, false)
	f.signer.register(cmd.Flags(), "key")
	cmd.Flags().StringVarP(&f.file, "file", "f", "", "a file of SQL statements to send as one bc-transaction (- reads standard input)")
	cmd.Flags().StringVar(&f.mode, "mode", "commit", "commit (wait for the block), sync (wait for CheckTx) or async (return at once)")
	cmd.Flags().StringVar(&f.output, "output", "text", "text or json")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 60*time.Second, "give up waiting after this long")
	cmd.Flags().StringVar(&f.saveTx, "save-tx", "", "write the signed transaction (hex) to this file before submitting it: if its outcome is unknown, relchain tx send FILE resends the same bytes, which never execute twice")
	return cmd
}

func runExec(stdin io.Reader, f *execFlags, args []string) error {
	m, err := client.ParseMode(f.mode)
	if err != nil {
		return err
	}
	if err := CheckOutput(f.output, "text", "json"); err != nil {
		return err
	}
	var stmts []txn.Statement
	if f.file == "" {
		targs, err := parseArgs(args[1:])
		if err != nil {
			return err
		}
		stmts = []txn.Statement{{SQL: args[0], Args: targs}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	c, err := f.signer.client(ctx, f.target)
	if err != nil {
		return err
	}
	if f.file != "" {
		if stmts, err = readScript(ctx, c, stdin, f.file); err != nil {
			return err
		}
	}
	if err := checkParams(ctx, c, stmts); err != nil {
		return err
	}
	hintURL := ""
	if f.target.explicit() || f.target.net != "" {
		hintURL = c.URL()
	}
	res, err := submitSaved(ctx, c, m, f.output, hintURL, f.saveTx, stmts...)
	if err != nil {
		return err
	}
	return printOutcome(res, m, f.output)
}

// readScript reads the statements of file (- is stdin) and splits them
// in the node's dialect.
func readScript(ctx context.Context, c *client.Client, stdin io.Reader, file string) ([]txn.Statement, error) {
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, maxScript+1))
	} else {
		b, err = readLimited(file)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if len(b) > maxScript {
		return nil, fmt.Errorf("%s: larger than %d bytes (a bc-transaction is at most the genesis max_tx_bytes, 1 MiB by default)", file, maxScript)
	}
	wire, err := wireOf(ctx, c)
	if err != nil {
		return nil, err
	}
	texts, err := splitScript(string(b), wire.DollarQuotes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(texts) == 0 {
		return nil, fmt.Errorf("%s holds no SQL statement", file)
	}
	stmts := make([]txn.Statement, len(texts))
	for i, t := range texts {
		stmts[i] = txn.Statement{SQL: t}
	}
	return stmts, nil
}

// maxScript bounds what exec -f reads.
const maxScript = 16 << 20

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxScript+1))
}

// wireOf is how the network's SQL quotes and numbers parameters, from the
// backend and SQL dialect its abci_info names.
func wireOf(ctx context.Context, c *client.Client) (dialect.Wire, error) {
	info, err := c.RPC().ABCIInfo(ctx)
	if err != nil {
		return dialect.Wire{}, fmt.Errorf("ask node %s for its backend: %w", c.URL(), err)
	}
	var d api.InfoData
	_ = json.Unmarshal([]byte(info.Response.Data), &d)
	db, err := dialect.Lookup(d.Backend)
	if err != nil {
		return dialect.Wire{}, fmt.Errorf("node %s runs backend %q, which this relchain does not know: %w", c.URL(), d.Backend, err)
	}
	return db.NetworkWire(d.SQLDialect)
}

// splitScript splits a script into statements (gateway.Split), keeping a
// trigger body's BEGIN ... END in one statement the way SQLite's
// sqlite3_complete does: a CREATE TRIGGER with BEGIN goes on to the
// statement that is END alone.
func splitScript(text string, dollarQuotes bool) ([]string, error) {
	parts, err := gateway.Split(text, dollarQuotes)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := 0; i < len(parts); i++ {
		s := parts[i]
		if isTriggerWithBody(s) {
			for i+1 < len(parts) && !isEnd(parts[i]) {
				i++
				s += ";\n" + parts[i]
			}
			if !isEnd(parts[i]) {
				return nil, fmt.Errorf("statement %d: CREATE TRIGGER ... BEGIN has no END", len(out)+1)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// isTriggerWithBody: CREATE [TEMP] TRIGGER ... BEGIN (words outside
// literals and comments).
func isTriggerWithBody(s string) bool {
	w := sqlWords(s)
	if len(w) < 2 || w[0] != "CREATE" {
		return false
	}
	trigger := false
	for _, x := range w[1:] {
		switch x {
		case "TRIGGER":
			trigger = true
		case "BEGIN":
			return trigger
		}
	}
	return false
}

// isEnd: the statement is the word END alone, the end of a trigger body
// ("...; END;").
func isEnd(s string) bool {
	w := sqlWords(s)
	return len(w) == 1 && w[0] == "END"
}

// sqlWords are the upper-cased words of s outside quotes and comments.
func sqlWords(s string) []string {
	return strings.FieldsFunc(strings.ToUpper(gateway.StripLiterals(s)), func(r rune) bool {
		return !(r == '_' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// checkParams asks the node how many parameters each statement takes
// (api.DescribePath) and refuses a statement given another number of
// arguments before anything is signed. A statement the node cannot
// describe yet (a table an earlier statement creates) is left to the
// node, which refuses a mismatch at CheckTx or in the block (code 6).
func checkParams(ctx context.Context, c *client.Client, stmts []txn.Statement) error {
	for i, st := range stmts {
		d, err := c.Describe(ctx, st.SQL)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("ask node %s about statement %d: %w", c.URL(), i+1, err)
			}
			continue
		}
		if len(d.Params) == len(st.Args) {
			continue
		}
		which := "the statement"
		if len(stmts) > 1 {
			which = fmt.Sprintf("statement %d", i+1)
		}
		return fmt.Errorf("%s has %s but %s given; nothing was sent", which, plural(len(d.Params), "placeholder"), plural(len(st.Args), "argument was", "arguments were"))
	}
	return nil
}

// plural is "n thing" or "n things"; forms may give the singular and
// plural explicitly.
func plural(n int, forms ...string) string {
	one, many := forms[0], forms[0]+"s"
	if len(forms) > 1 {
		many = forms[1]
	}
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
