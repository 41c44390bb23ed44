package prescan

import "strings"

// Group kinds: what closes a group.
const (
	kindRoot    = iota
	kindParen   // ( ... )
	kindBracket // [ ... ]
	kindBrace   // { ... }
	kindCase    // CASE ... END
	kindBlock   // BEGIN, IF, LOOP ... END
	nKinds
)

// level is one open group. Its current segment (since the last
// separator) is cut into pieces by AND, OR and the low operators (XOR,
// UNION, INTERSECT, EXCEPT, MINUS): ops and child are the current piece's
// operators and deepest closed child group, pieces the height of its
// closed pieces, low the low operators; height is the height of the
// group's closed segments.
type level struct {
	kind                            uint8
	ops, child, pieces, low, height int32
}

// segment is the height of the current segment: every low operator over
// the deepest piece, a piece being as deep as its operators over its
// deepest child.
func (l *level) segment() int32 { return l.low + max(l.pieces, l.ops+l.child) }

// scanner is one scan's state.
type scanner struct {
	s     string
	d     Dialect
	i     int
	st    Stats
	stack []level
	open  [nKinds]int // open groups per kind, so a closer finds its group in O(1)
	// pendingIf: PostgreSQL's IF was the last token (1), or IF NOT (2);
	// it opens a block unless EXISTS follows (IF [NOT] EXISTS).
	pendingIf int
	// afterEnd: END was the last token; a CASE, IF or LOOP after it is
	// part of it (END IF).
	afterEnd bool
	// execComment: MySQL, inside /*! ... */ or /*M! ... */, whose text
	// the server runs as code.
	execComment bool
	// PostgreSQL's lexer rescans a run of operator characters from each
	// token it cuts from it and from each /* inside it: opLen is the length
	// of the current run in code, runAt the offset after it; memo is the
	// last run measured forward ([memoStart, memoEnd)).
	opLen, runAt       int
	memoStart, memoEnd int
}

// run scans the whole text.
func (sc *scanner) run() {
	for sc.i < len(sc.s) {
		sc.st.Steps++
		c := sc.s[sc.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			sc.i++
		case c == '-' && sc.at(1) == '-' && sc.dashComment():
			sc.opRun(2)
			sc.lineComment()
		case c == '#' && sc.d == MySQL:
			sc.lineComment()
		case c == '/' && sc.at(1) == '*':
			sc.opRun(1)
			sc.blockComment()
		case c == '*' && sc.at(1) == '/' && sc.execComment:
			sc.execComment = false
			sc.i += 2
		case c == '\'':
			sc.token()
			sc.quoted('\'', sc.d == MySQL)
		case c == '"' && sc.d == MySQL:
			sc.token()
			sc.quoted('"', true)
		case c == '"', c == '`' && sc.d != PostgreSQL:
			sc.token()
			sc.quotedIdent(c)
		case c == '[' && sc.d == SQLite:
			sc.token()
			sc.bracketIdent()
		case c == '$' && sc.d == PostgreSQL:
			sc.token()
			sc.dollar()
		case isDigit(c) && sc.d != MySQL, c == '.' && isDigit(sc.at(1)):
			sc.token()
			sc.number()
		case isIdentStart(c, sc.d):
			sc.word()
		case c == '(' || c == '[' || c == '{':
			sc.st.Opens++
			sc.token()
			sc.push(groupOf(c))
			sc.i++
		case c == ')' || c == ']' || c == '}':
			sc.token()
			sc.closeKind(closerOf(c))
			sc.i++
		case c == ',' || c == ';':
			sc.token()
			sc.separate()
			sc.i++
		case c == '/' && sc.at(1) == '/' && sc.d == MySQL:
			sc.st.SlashSlash++
			sc.token()
			sc.op()
			sc.i++
		case c == ':' && sc.at(1) == ':' && sc.d == PostgreSQL:
			sc.token()
			sc.op()
			sc.i += 2
		case isOpChar(c, sc.d):
			sc.token()
			sc.op()
			sc.opRun(1)
			sc.i++
		default:
			sc.token()
			sc.i++
		}
	}
	sc.finish()
}

// at is the byte k after the current one, or 0 past the end.
func (sc *scanner) at(k int) byte {
	if sc.i+k < len(sc.s) {
		return sc.s[sc.i+k]
	}
	return 0
}

// dashComment reports whether the "--" at the current byte starts a
// comment: always, but in MySQL only before a blank or a control
// character or at the end (otherwise "--1" is two minus signs).
func (sc *scanner) dashComment() bool {
	if sc.d != MySQL {
		return true
	}
	c := sc.at(2)
	return sc.i+2 >= len(sc.s) || c <= ' ' || c == 0x7f
}

// lineComment skips to the end of the line: PostgreSQL ends it at \n or
// \r, MySQL and SQLite at \n.
func (sc *scanner) lineComment() {
	i := sc.i
	for i < len(sc.s) && sc.s[i] != '\n' && (sc.d != PostgreSQL || sc.s[i] != '\r') {
		i++
	}
	sc.st.Steps += i - sc.i
	sc.i = i
}

// blockComment skips a /* */ comment: nested in PostgreSQL, not in MySQL
// and SQLite. In MySQL, /*! and /*M! open an executable comment, whose
// text is scanned as code.
func (sc *scanner) blockComment() {
	s := sc.s
	if sc.d == MySQL {
		switch {
		case sc.at(2) == '!':
			sc.execComment = true
			sc.i += 3
			return
		case (sc.at(2) == 'M' || sc.at(2) == 'm') && sc.at(3) == '!':
			sc.execComment = true
			sc.i += 4
			return
		}
	}
	if sc.d != PostgreSQL {
		end := len(s)
		if k := strings.Index(s[sc.i+2:], "*/"); k >= 0 {
			end = sc.i + 2 + k + 2
		}
		sc.st.Steps += end - sc.i
		sc.i = end
		return
	}
	sc.st.LexWork += sc.runEnd(sc.i) - sc.i
	depth, i := 1, sc.i+2
	for i < len(s) && depth > 0 {
		sc.st.Steps++
		switch {
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			sc.st.LexWork += sc.runEnd(i) - i
			depth++
			i += 2
		case s[i] == '*' && i+1 < len(s) && s[i+1] == '/':
			depth--
			i += 2
		default:
			i++
		}
	}
	sc.i = i
}

// opRun accounts for n operator characters at the current byte in
// PostgreSQL's lexer work: each may end a token cut from the run, which
// the lexer rescans from there to the run's end.
func (sc *scanner) opRun(n int) {
	if sc.d != PostgreSQL {
		return
	}
	if sc.runAt != sc.i {
		sc.opLen = 0
	}
	for range n {
		sc.opLen++
		sc.st.LexWork += sc.opLen
	}
	sc.runAt = sc.i + n
}

// runEnd is the end of the run of PostgreSQL operator characters holding
// offset p (p itself if none does). Runs are disjoint, so the last one
// measured answers every offset inside it: the measuring is linear.
func (sc *scanner) runEnd(p int) int {
	if p >= sc.memoStart && p <= sc.memoEnd && sc.memoEnd > 0 {
		return sc.memoEnd
	}
	e := p
	for e < len(sc.s) && isOpChar(sc.s[e], PostgreSQL) {
		e++
	}
	sc.st.Steps += e - p
	sc.memoStart, sc.memoEnd = p, e
	return e
}

// quoted skips a string literal opened by q at the current byte, with q
// doubled inside it and, if backslash is set, backslash escapes; it
// measures the literal's nesting.
func (sc *scanner) quoted(q byte, backslash bool) {
	s := sc.s
	depth := 0
	i := sc.i + 1
	for i < len(s) {
		sc.st.Steps++
		c := s[i]
		switch {
		case backslash && c == '\\':
			i += 2
			continue
		case c == q:
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			sc.i = i + 1
			return
		case c == '(' || c == '[' || c == '{':
			depth++
			sc.st.LiteralDepth = max(sc.st.LiteralDepth, depth)
		case c == ')' || c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
		i++
	}
	sc.i = len(s)
}

// literalDepth measures the nesting of a literal's text.
func (sc *scanner) literalDepth(body string) {
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '(', '[', '{':
			depth++
			sc.st.LiteralDepth = max(sc.st.LiteralDepth, depth)
		case ')', ']', '}':
			depth = max(depth-1, 0)
		}
	}
	sc.st.Steps += len(body)
}

// quotedIdent skips an identifier quoted by q (doubled inside it).
func (sc *scanner) quotedIdent(q byte) {
	s := sc.s
	i := sc.i + 1
	for i < len(s) {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i += 2
				continue
			}
			break
		}
		i++
	}
	sc.identifier(i - sc.i - 1)
	sc.st.Steps += i - sc.i
	sc.i = min(i+1, len(s))
}

// bracketIdent skips SQLite's [identifier].
func (sc *scanner) bracketIdent() {
	end := len(sc.s)
	if k := strings.IndexByte(sc.s[sc.i:], ']'); k >= 0 {
		end = sc.i + k
	}
	sc.identifier(end - sc.i - 1)
	sc.st.Steps += end - sc.i
	sc.i = min(end+1, len(sc.s))
}

// dollar scans what a '$' starts in PostgreSQL: a parameter $n, or a
// dollar-quoted literal $tag$ ... $tag$, which ends at the first
// occurrence of its opening delimiter (as PostgreSQL's lexer ends it).
func (sc *scanner) dollar() {
	s := sc.s
	i := sc.i + 1
	if i < len(s) && isDigit(s[i]) {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		sc.st.Steps += i - sc.i
		sc.i = i
		return
	}
	j := i
	if j < len(s) && isDolqStart(s[j]) {
		for j++; j < len(s) && isDolqStart(s[j]) || j < len(s) && isDigit(s[j]); j++ {
		}
	}
	sc.st.Steps += j - sc.i
	if j >= len(s) || s[j] != '$' {
		sc.i++ // a lone '$': the parser refuses it
		return
	}
	tag := s[sc.i : j+1]
	body := j + 1
	end, next := len(s), len(s)
	if k := strings.Index(s[body:], tag); k >= 0 {
		end, next = body+k, body+k+len(tag)
	}
	sc.literalDepth(s[body:end])
	sc.st.Steps += next - end
	sc.i = next
}

// number scans a number, and the identifier characters glued to it (a
// syntax error in PostgreSQL 17, which lexes them as one token).
func (sc *scanner) number() {
	s := sc.s
	i := sc.i
	for i < len(s) && (isDigit(s[i]) || s[i] == '.' || s[i] == '_') {
		i++
	}
	if i < len(s) && isIdentStart(s[i], PostgreSQL) {
		for i < len(s) && isIdentCont(s[i]) {
			i++
		}
	}
	sc.st.Steps += i - sc.i
	sc.i = i
}

// word scans a keyword or an unquoted identifier (in MySQL also a
// number) and applies what it means to the nesting.
func (sc *scanner) word() {
	s := sc.s
	start := sc.i
	i := start + 1
	for i < len(s) && isIdentCont(s[i]) {
		i++
	}
	sc.st.Steps += i - start
	if sc.d == PostgreSQL && i-start == 1 && (s[start] == 'E' || s[start] == 'e') && i < len(s) && s[i] == '\'' {
		sc.token() // E'...': backslash escapes
		sc.i = i
		sc.quoted('\'', true)
		return
	}
	sc.i = i
	if !isDigit(s[start]) {
		sc.identifier(i - start)
	}
	sc.st.Tokens++
	kw := keywordOf(s[start:i])
	switch {
	case sc.pendingIf == 1 && kw == kwNot:
		sc.pendingIf = 2
		sc.op()
		return
	case sc.pendingIf > 0:
		if kw != kwExists {
			sc.push(kindBlock)
		}
		sc.pendingIf = 0
	}
	if sc.afterEnd {
		sc.afterEnd = false
		if kw == kwCase || kw == kwIf || kw == kwLoop {
			return
		}
	}
	sc.keyword(kw)
}

// keyword applies a word's meaning to the nesting: groups opened and
// closed by keywords, separators inside them, keyword operators. A group
// opened by a keyword also counts as an operator of its segment, so that
// a stray END (an identifier in MySQL and SQLite) closing it early cannot
// hide a chain of them.
func (sc *scanner) keyword(kw int) {
	top := sc.stack[len(sc.stack)-1].kind
	switch kw {
	case kwCase:
		sc.op()
		sc.push(kindCase)
	case kwBegin:
		if sc.d != MySQL {
			sc.op()
			sc.push(kindBlock)
		}
	case kwLoop:
		if sc.d == PostgreSQL {
			sc.op()
			sc.push(kindBlock)
		}
	case kwIf:
		if sc.d == PostgreSQL {
			sc.op()
			sc.pendingIf = 1
		}
	case kwEnd:
		if top == kindCase || top == kindBlock {
			sc.pop()
		}
		sc.afterEnd = sc.d == PostgreSQL
	case kwSeparator:
		if top == kindCase || top == kindBlock {
			sc.separate()
		}
	case kwOperator, kwNot:
		sc.op()
	case kwLow:
		sc.cutPiece()
		sc.stack[len(sc.stack)-1].low++
	case kwFlat:
		// PostgreSQL (makeAndExpr/makeOrExpr) and MariaDB (Item_cond)
		// gather a chain of ANDs or ORs into one list node, and SQLite
		// refuses a chain deeper than its SQLITE_MAX_EXPR_DEPTH (1,000)
		// with its own error: a chain is as deep as its deepest term.
		sc.cutPiece()
	}
}

// cutPiece ends the current piece of the innermost group's segment.
func (sc *scanner) cutPiece() {
	l := &sc.stack[len(sc.stack)-1]
	l.pieces = max(l.pieces, l.ops+l.child)
	l.ops, l.child = 0, 0
}

// identifier records an identifier's length.
func (sc *scanner) identifier(n int) {
	sc.st.Identifier = max(sc.st.Identifier, n)
}

// token counts a token other than a word and settles a pending IF.
func (sc *scanner) token() {
	sc.st.Tokens++
	if sc.pendingIf > 0 {
		sc.pendingIf = 0
		sc.push(kindBlock)
	}
	sc.afterEnd = false
}

// op counts an operator in the current segment.
func (sc *scanner) op() { sc.stack[len(sc.stack)-1].ops++ }

// separate ends the current segment of the innermost group.
func (sc *scanner) separate() {
	l := &sc.stack[len(sc.stack)-1]
	l.height = max(l.height, l.segment())
	l.ops, l.child, l.pieces, l.low = 0, 0, 0, 0
}

// push opens a group.
func (sc *scanner) push(kind uint8) {
	sc.stack = append(sc.stack, level{kind: kind})
	sc.open[kind]++
}

// pop closes the innermost group: the group is one deeper than its
// deepest segment, and a child of its parent's current segment.
func (sc *scanner) pop() {
	n := len(sc.stack)
	l := sc.stack[n-1]
	h := 1 + max(l.height, l.segment())
	sc.stack = sc.stack[:n-1]
	sc.open[l.kind]--
	p := &sc.stack[n-2]
	p.child = max(p.child, h)
}

// closeKind closes the innermost group of a kind, and every group opened
// inside it; a closer without an open group of its kind is ignored.
func (sc *scanner) closeKind(kind uint8) {
	if sc.open[kind] == 0 {
		return
	}
	for {
		k := sc.stack[len(sc.stack)-1].kind
		sc.pop()
		sc.st.Steps++
		if k == kind {
			return
		}
	}
}

// finish closes every open group and records the depth.
func (sc *scanner) finish() {
	if sc.pendingIf > 0 {
		sc.pendingIf = 0
		sc.push(kindBlock)
	}
	for len(sc.stack) > 1 {
		sc.pop()
		sc.st.Steps++
	}
	r := &sc.stack[0]
	sc.st.Depth = int(max(r.height, r.segment()))
}

func groupOf(c byte) uint8 {
	switch c {
	case '(':
		return kindParen
	case '[':
		return kindBracket
	}
	return kindBrace
}

func closerOf(c byte) uint8 {
	switch c {
	case ')':
		return kindParen
	case ']':
		return kindBracket
	}
	return kindBrace
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// isIdentStart reports a byte that starts an unquoted identifier (or, in
// MySQL, a word, which may start with a digit or '$'; in SQLite '$', ':'
// and '@' start parameters, scanned as words).
func isIdentStart(c byte, d Dialect) bool {
	switch d {
	case MySQL:
		return isLetter(c) || isDigit(c) || c == '$'
	case SQLite:
		return isLetter(c) || c == '$' || c == ':' || c == '@'
	}
	return isLetter(c)
}

// isIdentCont reports a byte that continues an unquoted identifier.
func isIdentCont(c byte) bool { return isLetter(c) || isDigit(c) || c == '$' }

// isDolqStart reports a byte that starts (and continues, with digits) a
// dollar-quote tag.
func isDolqStart(c byte) bool { return isLetter(c) }

// isOpChar reports an operator character of the dialect; each counts as
// one operator (PostgreSQL splits runs like +- into prefix operators).
func isOpChar(c byte, d Dialect) bool {
	switch c {
	case '+', '-', '*', '/', '%', '<', '>', '=', '!', '~', '&', '|':
		return true
	case '^':
		return d != SQLite
	case '@', '#', '`', '?':
		return d == PostgreSQL
	}
	return false
}

// Keyword codes: the words the nesting measure reads.
const (
	kwNone = iota
	kwCase
	kwBegin
	kwLoop
	kwIf
	kwEnd
	kwExists
	kwNot
	kwSeparator // WHEN, THEN, ELSE, ELSIF, ELSEIF
	kwOperator  // IS, LIKE, IN, JOIN, SELECT, ...
	kwLow       // XOR, UNION, INTERSECT, EXCEPT, MINUS
	kwFlat      // AND, OR: lists on the servers, no deeper per term
)

// keywordOf is the code of a word (any case), kwNone for other words.
func keywordOf(w string) int {
	if len(w) > 9 {
		return kwNone
	}
	var b [9]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b[i] = c
	}
	switch string(b[:len(w)]) {
	case "CASE":
		return kwCase
	case "BEGIN":
		return kwBegin
	case "LOOP":
		return kwLoop
	case "IF":
		return kwIf
	case "END":
		return kwEnd
	case "EXISTS":
		return kwExists
	case "NOT":
		return kwNot
	case "WHEN", "THEN", "ELSE", "ELSIF", "ELSEIF":
		return kwSeparator
	case "AND", "OR":
		return kwFlat
	case "XOR", "UNION", "INTERSECT", "EXCEPT", "MINUS":
		return kwLow
	case "IS", "ISNULL", "NOTNULL", "LIKE", "ILIKE", "SIMILAR", "BETWEEN", "IN", "COLLATE", "AT", "JOIN",
		"OVERLAPS", "ESCAPE", "DIV", "MOD", "REGEXP", "RLIKE", "SOUNDS", "BINARY", "INTERVAL", "MEMBER",
		"GLOB", "MATCH", "SELECT":
		return kwOperator
	}
	return kwNone
}
