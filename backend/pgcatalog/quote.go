package pgcatalog

import "strings"

// keywords are PostgreSQL 15's keywords that quote_ident quotes (the
// reserved, type/function-name and column-name ones; unreserved ones are
// left bare, as PostgreSQL does).
var keywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast
		check collate column constraint create current_catalog current_date current_role current_time
		current_timestamp current_user default deferrable desc distinct do else end except false fetch for
		foreign from grant group having in initially intersect into lateral leading limit localtime
		localtimestamp not null offset on only or order placing primary references returning select
		session_user some symmetric table then to trailing true union unique user using variadic when where
		window with authorization binary collation concurrently cross current_schema freeze full ilike inner
		is isnull join left like natural notnull outer overlaps right similar tablesample verbose between
		bigint bit boolean char character coalesce dec decimal exists extract float greatest grouping inout
		int integer interval least national nchar none normalize nullif numeric out overlay position
		precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes
		xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		keywords[k] = true
	}
}

// quoteIdent is quote_ident: s bare when it is a lower-case identifier
// and no keyword, else in double quotes with quotes doubled.
func quoteIdent(s string) string {
	if s != "" && !keywords[s] && plainIdent(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func plainIdent(s string) bool {
	for i, r := range s {
		lower := r >= 'a' && r <= 'z' || r == '_'
		digit := r >= '0' && r <= '9'
		if !lower && !(digit && i > 0) {
			return false
		}
	}
	return true
}

// quoteLiteral is quote_literal: s in single quotes with quotes doubled,
// and E'…' with backslashes doubled when s holds one.
func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}
