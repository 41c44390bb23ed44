package pgruntime

import (
	"math"
	"strings"
	"unicode/utf8"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// convert is pg_cast(x, src, dst, typmod) and pg_assign (assignment).
func convert(assignment bool) sqlite3.ScalarFunction {
	mode := pgconv.Explicit
	if assignment {
		mode = pgconv.Assignment
	}
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		src, dst, typmod := typeName(args[1]), typeName(args[2]), int32(args[3].Int64())
		if keepsText(args[0], src, dst, typmod) {
			ctx.ResultValue(args[0])
			return
		}
		v, err := pgconv.Convert(goValue(args[0]), src, dst, typmod, mode)
		result(ctx, v, err)
	}
}

// keepsText reports whether converting v from src to dst is v itself: a
// text or varchar to text, or to a varchar(n) it fits. Convert would
// copy the text out of SQLite, count it and copy it back in; the result
// is then v as it is (ResultValue, which would also carry a subtype: so
// not for a value that has one).
func keepsText(v sqlite3.Value, src, dst string, typmod int32) bool {
	if (src != "text" && src != "varchar") || (dst != "text" && dst != "varchar") {
		return false
	}
	if v.Type() != sqlite3.TEXT || v.Subtype() != 0 {
		return false
	}
	n := int(typmod) - 4
	return dst == "text" || n < 0 || utf8.RuneCount(v.RawText()) <= n
}

// typeName is a type-name argument (a literal of the translation) as a
// string, without copying a known name out of SQLite.
func typeName(v sqlite3.Value) string { return pgconv.TypeName(v.RawText()) }

// like is pg_like(s, pattern, ci): PostgreSQL's LIKE (ci 0) or ILIKE (ci
// 1, ASCII case folding as under ctype C), backslash the escape.
func like(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args[:2]) {
		ctx.ResultNull()
		return
	}
	s, p := args[0].Text(), args[1].Text()
	if args[2].Int64() != 0 {
		s, p = asciiLower(s), asciiLower(p)
	}
	ok, err := Like(s, p)
	if err != nil {
		ctx.ResultError(err)
		return
	}
	ctx.ResultBool(ok)
}

// likeToken is one element of a LIKE pattern: a character, _ or %.
type likeToken struct {
	r    rune
	kind byte // 'c' character, '_' one, '%' any
}

func likeTokens(p string) ([]likeToken, error) {
	var out []likeToken
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			if i+1 == len(rs) {
				return nil, runtimeError("22025", "LIKE pattern must not end with escape character")
			}
			i++
			out = append(out, likeToken{r: rs[i], kind: 'c'})
		case '_':
			out = append(out, likeToken{kind: '_'})
		case '%':
			out = append(out, likeToken{kind: '%'})
		default:
			out = append(out, likeToken{r: rs[i], kind: 'c'})
		}
	}
	return out, nil
}

// Like matches s against a LIKE pattern (exported for tests and the
// differential suite): greedy % with backtracking to the last %.
func Like(s, pattern string) (bool, error) {
	toks, err := likeTokens(pattern)
	if err != nil {
		return false, err
	}
	rs := []rune(s)
	si, pi, star, mark := 0, 0, -1, 0
	for si < len(rs) {
		switch {
		case pi < len(toks) && (toks[pi].kind == '_' || toks[pi].kind == 'c' && toks[pi].r == rs[si]):
			si, pi = si+1, pi+1
		case pi < len(toks) && toks[pi].kind == '%':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi, mark = star+1, mark+1
			si = mark
		default:
			return false, nil
		}
	}
	for pi < len(toks) && toks[pi].kind == '%' {
		pi++
	}
	return pi == len(toks), nil
}

func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 32
		}
		return r
	}, s)
}

// asciiCase is lower()/upper() under ctype C: ASCII letters only.
func asciiCase(upper bool) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		if anyNull(args) {
			ctx.ResultNull()
			return
		}
		s := args[0].Text()
		if !upper {
			ctx.ResultText(asciiLower(s))
			return
		}
		ctx.ResultText(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r - 32
			}
			return r
		}, s))
	}
}

// substr is pg_substr(s, from, count, hasCount): PostgreSQL's
// substr/substring, characters from max(from, 1) to from+count-1, a
// negative count an error (22011).
func substr(ctx sqlite3.Context, args ...sqlite3.Value) {
	hasCount := args[3].Int64() != 0
	if anyNull(args[:2]) || (hasCount && args[2].Type() == sqlite3.NULL) {
		ctx.ResultNull()
		return
	}
	s, from := args[0].Text(), args[1].Int64()
	end := int64(utf8.RuneCountInString(s)) + 1
	if hasCount {
		n := args[2].Int64()
		if n < 0 {
			ctx.ResultError(runtimeError("22011", "negative substring length not allowed"))
			return
		}
		end = min(end, from+n)
	}
	start := max(from, 1)
	if start >= end {
		ctx.ResultText("")
		return
	}
	ctx.ResultText(runeSlice(s, start-1, end-1))
}

// runeSlice is string([]rune(s)[i:j]) (0 <= i <= j <= the rune count)
// without converting all of s: the byte offsets of runes i and j, and the
// conversion only when the slice holds invalid UTF-8 (each bad byte is
// one rune, written back as U+FFFD, as the conversion does).
func runeSlice(s string, i, j int64) string {
	bi, bj := len(s), len(s)
	k := int64(0)
	for b := range s {
		if k == i {
			bi = b
		}
		if k == j {
			bj = b
			break
		}
		k++
	}
	sub := s[bi:bj]
	if !utf8.ValidString(sub) {
		return string([]rune(sub))
	}
	return sub
}

// limit is pg_limit(x, none): LIMIT/OFFSET x, NULL meaning none, a
// negative value PostgreSQL's error.
func limit(ctx sqlite3.Context, args ...sqlite3.Value) {
	none := args[1].Int64()
	if args[0].Type() == sqlite3.NULL {
		ctx.ResultInt64(none)
		return
	}
	v := args[0].Int64()
	switch {
	case v < 0 && none < 0:
		ctx.ResultError(runtimeError("2201W", "LIMIT must not be negative"))
	case v < 0:
		ctx.ResultError(runtimeError("2201X", "OFFSET must not be negative"))
	default:
		ctx.ResultInt64(v)
	}
}

// seriesStep checks generate_series's step.
func seriesStep(ctx sqlite3.Context, args ...sqlite3.Value) {
	if args[0].Type() == sqlite3.NULL {
		ctx.ResultNull()
		return
	}
	if args[0].Int64() == 0 {
		ctx.ResultError(runtimeError("22023", "step size cannot equal zero"))
		return
	}
	ctx.ResultInt64(args[0].Int64())
}

// dateAdd is pg_date_add(date, days).
func dateAdd(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args) {
		ctx.ResultNull()
		return
	}
	d, err := pgconv.DateAdd(args[0].Text(), args[1].Int64())
	result(ctx, d, err)
}

// dateDiff is pg_date_diff(a, b): a - b in days.
func dateDiff(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args) {
		ctx.ResultNull()
		return
	}
	d, err := pgconv.DateDiff(args[0].Text(), args[1].Text())
	result(ctx, d, err)
}

// seqNext is pg_seq_next(last_value, is_called, n, max, name): a
// sequence's last value after n nextval calls (increment 1), PostgreSQL's
// 2200H past its maximum.
func seqNext(ctx sqlite3.Context, args ...sqlite3.Value) {
	last, n, limit := args[0].Int64(), args[2].Int64(), args[3].Int64()
	if args[1].Int64() == 0 {
		n--
	}
	if last > limit-n {
		ctx.ResultError(runtimeError("2200H", "nextval: reached maximum value of sequence %q (%d)", args[4].Text(), limit))
		return
	}
	ctx.ResultInt64(last + n)
}

// dateTrunc is pg_date_trunc(unit, v, type).
func dateTrunc(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args[1:2]) {
		ctx.ResultNull()
		return
	}
	out, err := pgconv.DateTrunc(args[0].Text(), args[1].Text(), args[2].Text())
	result(ctx, out, err)
}

// floatFn is pg_float_fn(name, x): ceil, floor or round (half to even,
// as PostgreSQL's rint) of a float8.
func floatFn(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args[1:]) {
		ctx.ResultNull()
		return
	}
	x := args[1].Float()
	switch args[0].Text() {
	case "ceil":
		x = math.Ceil(x)
	case "floor":
		x = math.Floor(x)
	default:
		x = math.RoundToEven(x)
	}
	ctx.ResultFloat(x)
}

// leftRight is pg_left_right(s, n, right): left(s, n) or right(s, n).
func leftRight(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args[:2]) {
		ctx.ResultNull()
		return
	}
	s := args[0].Text()
	n, size := args[1].Int64(), int64(utf8.RuneCountInString(s))
	if n < 0 {
		n = max(size+n, 0)
	}
	n = min(n, size)
	if args[2].Int64() == 0 {
		ctx.ResultText(runeSlice(s, 0, n))
		return
	}
	ctx.ResultText(runeSlice(s, size-n, size))
}
