package pggate

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

// MaxParams is PostgreSQL's limit on a statement's parameters; a higher
// $n counts as one more (ParamCount), which no tx can supply.
const MaxParams = 65535

// ParamCount is the number of parameters a statement text takes as
// PostgreSQL counts them: its highest $n (one more than MaxParams for a
// higher one). Every engine speaking PostgreSQL's SQL checks a tx's
// arguments against it alike (app's argsRejection), natively or
// translated. The text passes sqlcheck/prescan first.
func ParamCount(sql string) (int, error) {
	if err := prescan.Check(sql, prescan.PostgreSQL); err != nil {
		return 0, err
	}
	scan, err := pg_query.Scan(sql)
	if err != nil {
		return 0, unparseable("", err)
	}
	n := 0
	for _, t := range scan.GetTokens() {
		if t.GetToken() != pg_query.Token_PARAM || t.GetStart() < 0 || int(t.GetEnd()) > len(sql) {
			continue
		}
		k, err := strconv.Atoi(sql[t.GetStart()+1 : t.GetEnd()])
		if err != nil || k > MaxParams {
			k = MaxParams + 1
		}
		n = max(n, k)
	}
	return n, nil
}
