package lua51

import (
	"fmt"
	"slices"
	"strings"
)

// This file finds the first syntax error of a chunk the way Lua 5.1's
// lexer and parser (llex.c, lparser.c) do, so that its message is Lua
// 5.1's: gopher-lua's yacc parser says only "syntax error" and where, and
// it accepts chunks Lua 5.1 rejects (goto and labels, "1e", "\300",
// ambiguous calls across lines). It only checks; every chunk goes through
// it before gopher-lua's parser builds the tree that is compiled.

// syntaxError is one syntax error as Lua 5.1 reports it.
type syntaxError struct {
	line int    // the lexer's line when the error was found
	msg  string // "unexpected symbol", "'=' expected", ...
	near string // the token's text, "<eof>" at the end of the input; "" for none
}

// Error is the message without the chunk's name and line.
func (e *syntaxError) Error() string {
	if e.near == "" {
		return e.msg
	}
	return e.msg + " near '" + e.near + "'"
}

// format is the error as lua_load gives it: "chunkid:line: msg near 'tok'".
func (e *syntaxError) format(chunkid string) string {
	return fmt.Sprintf("%s:%d: %s", chunkid, e.line, e.Error())
}

// Token kinds other than single characters, named as luaX_token2str names
// them. A single character token's kind is the character itself.
const (
	tkEOS    = "<eof>"
	tkName   = "<name>"
	tkString = "<string>"
	tkNumber = "<number>"
)

// reserved5 are Lua 5.1's reserved words (goto is not one).
var reserved5 = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true,
	"end": true, "false": true, "for": true, "function": true, "if": true,
	"in": true, "local": true, "nil": true, "not": true, "or": true,
	"repeat": true, "return": true, "then": true, "true": true,
	"until": true, "while": true,
}

// token is one lexical token; text is what llex.c keeps in its buffer for
// names, strings and numbers (the source text, quotes included).
type token struct {
	kind string
	text string
}

// nearText is the token as Lua 5.1's txtToken shows it in a message (a C
// string: it ends at a NUL byte).
func (t token) nearText() string {
	switch t.kind {
	case tkName, tkString, tkNumber:
		text, _, _ := strings.Cut(t.text, "\x00")
		return text
	}
	if t.kind == "\x00" {
		return "" // token 0: lexerror shows no token at all
	}
	if len(t.kind) == 1 && (t.kind[0] < 32 || t.kind[0] == 127) {
		return fmt.Sprintf("char(%d)", t.kind[0])
	}
	return t.kind
}

// lexer5 is llex.c over a byte slice.
type lexer5 struct {
	src  []byte
	pos  int
	line int
	buf  []byte
}

// eoz is the end of the input.
const eoz = -1

func (lx *lexer5) current() int {
	if lx.pos < len(lx.src) {
		return int(lx.src[lx.pos])
	}
	return eoz
}

func (lx *lexer5) next() { lx.pos++ }

func (lx *lexer5) saveAndNext() {
	lx.buf = append(lx.buf, byte(lx.current()))
	lx.next()
}

func (lx *lexer5) isNewline() bool { c := lx.current(); return c == '\n' || c == '\r' }

// incLine skips a newline ("\n", "\r", "\n\r" or "\r\n") and counts it.
func (lx *lexer5) incLine() {
	old := lx.current()
	lx.next()
	if lx.isNewline() && lx.current() != old {
		lx.next()
	}
	lx.line++
}

// fail raises a lexical error near the token tok (a kind, or the buffer
// for names, strings and numbers).
func (lx *lexer5) fail(msg string, kind string) {
	t := token{kind: kind, text: string(lx.buf)}
	panic(&syntaxError{line: lx.line, msg: msg, near: t.nearText()})
}

// skipSep reads "[==" or "]==" and returns the number of '=', or -count-1
// when the bracket is not doubled.
func (lx *lexer5) skipSep() int {
	s := lx.current()
	count := 0
	lx.saveAndNext()
	for lx.current() == '=' {
		lx.saveAndNext()
		count++
	}
	if lx.current() == s {
		return count
	}
	return -count - 1
}

// readLongString reads a long string or, when comment is true, a long
// comment, after its opening "[==".
func (lx *lexer5) readLongString(comment bool, sep int) {
	lx.saveAndNext()
	if lx.isNewline() {
		lx.incLine()
	}
	for {
		switch c := lx.current(); {
		case c == eoz:
			if comment {
				lx.fail("unfinished long comment", tkEOS)
			}
			lx.fail("unfinished long string", tkEOS)
		case c == '[':
			if lx.skipSep() == sep {
				lx.saveAndNext()
				if sep == 0 {
					lx.fail("nesting of [[...]] is deprecated", "[")
				}
			}
		case c == ']':
			if lx.skipSep() == sep {
				lx.saveAndNext()
				return
			}
		case c == '\n' || c == '\r':
			lx.buf = append(lx.buf, '\n')
			lx.incLine()
		default:
			lx.saveAndNext()
		}
	}
}

// readString reads a quoted string.
func (lx *lexer5) readString(del int) {
	lx.saveAndNext()
	for lx.current() != del {
		switch c := lx.current(); c {
		case eoz:
			lx.fail("unfinished string", tkEOS)
		case '\n', '\r':
			lx.fail("unfinished string", tkString)
		case '\\':
			lx.next()
			lx.readEscape()
		default:
			lx.saveAndNext()
		}
	}
	lx.saveAndNext()
}

// readEscape reads what follows a backslash in a quoted string.
func (lx *lexer5) readEscape() {
	c := lx.current()
	if i := strings.IndexByte("abfnrtv", byte(c)); c >= 0 && i >= 0 {
		lx.buf = append(lx.buf, "\a\b\f\n\r\t\v"[i])
		lx.next()
		return
	}
	switch {
	case c == '\n' || c == '\r':
		lx.buf = append(lx.buf, '\n')
		lx.incLine()
	case c == eoz:
		// the string's loop reports it unfinished
	case !isDigit5(c):
		lx.saveAndNext()
	default:
		n := 0
		for i := 0; i < 3 && isDigit5(lx.current()); i++ {
			n = 10*n + lx.current() - '0'
			lx.next()
		}
		if n > 255 {
			lx.fail("escape sequence too large", tkString)
		}
		lx.buf = append(lx.buf, byte(n))
	}
}

func isDigit5(c int) bool { return '0' <= c && c <= '9' }

func isAlpha5(c int) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isAlnum5(c int) bool { return isAlpha5(c) || isDigit5(c) }

// readNumeral reads a number as read_numeral does: digits and dots, an
// exponent sign, then any letters, digits and underscores.
func (lx *lexer5) readNumeral() token {
	for {
		lx.saveAndNext()
		if c := lx.current(); !isDigit5(c) && c != '.' {
			break
		}
	}
	if c := lx.current(); c == 'e' || c == 'E' {
		lx.saveAndNext()
		if c := lx.current(); c == '+' || c == '-' {
			lx.saveAndNext()
		}
	}
	for c := lx.current(); isAlnum5(c) || c == '_'; c = lx.current() {
		lx.saveAndNext()
	}
	if _, ok := ParseNumber(string(lx.buf)); !ok {
		lx.fail("malformed number", tkNumber)
	}
	return token{kind: tkNumber, text: string(lx.buf)}
}

// twoChar returns the token two if the next character is c, else one.
func (lx *lexer5) twoChar(c int, one, two string) token {
	lx.next()
	if lx.current() == c {
		lx.next()
		return token{kind: two}
	}
	return token{kind: one}
}

// lex reads the next token.
func (lx *lexer5) lex() token {
	lx.buf = lx.buf[:0]
	for {
		switch c := lx.current(); c {
		case '\n', '\r':
			lx.incLine()
		case '-':
			lx.next()
			if lx.current() != '-' {
				return token{kind: "-"}
			}
			lx.next()
			lx.skipComment()
		case '[':
			sep := lx.skipSep()
			if sep >= 0 {
				lx.readLongString(false, sep)
				return token{kind: tkString, text: string(lx.buf)}
			}
			if sep != -1 {
				lx.fail("invalid long string delimiter", tkString)
			}
			return token{kind: "["}
		case '=':
			return lx.twoChar('=', "=", "==")
		case '<':
			return lx.twoChar('=', "<", "<=")
		case '>':
			return lx.twoChar('=', ">", ">=")
		case '~':
			return lx.twoChar('=', "~", "~=")
		case '"', '\'':
			lx.readString(c)
			return token{kind: tkString, text: string(lx.buf)}
		case '.':
			return lx.lexDot()
		case eoz:
			return token{kind: tkEOS}
		default:
			if t, ok := lx.lexOther(c); ok {
				return t
			}
		}
	}
}

// skipComment skips a comment after its "--".
func (lx *lexer5) skipComment() {
	if lx.current() == '[' {
		sep := lx.skipSep()
		lx.buf = lx.buf[:0]
		if sep >= 0 {
			lx.readLongString(true, sep)
			lx.buf = lx.buf[:0]
			return
		}
	}
	for !lx.isNewline() && lx.current() != eoz {
		lx.next()
	}
}

// lexDot reads ".", "..", "..." or a number starting with a dot.
func (lx *lexer5) lexDot() token {
	lx.saveAndNext()
	if lx.current() == '.' {
		lx.next()
		if lx.current() == '.' {
			lx.next()
			return token{kind: "..."}
		}
		return token{kind: ".."}
	}
	if !isDigit5(lx.current()) {
		return token{kind: "."}
	}
	lx.buf = lx.buf[:0]
	lx.pos--
	return lx.readNumeral()
}

// lexOther reads a name, a number or a single character; ok is false for
// white space, which it skips.
func (lx *lexer5) lexOther(c int) (token, bool) {
	switch {
	case c == ' ' || c == '\t' || c == '\v' || c == '\f':
		lx.next()
		return token{}, false
	case isDigit5(c):
		return lx.readNumeral(), true
	case isAlpha5(c) || c == '_':
		for c := lx.current(); isAlnum5(c) || c == '_'; c = lx.current() {
			lx.saveAndNext()
		}
		s := string(lx.buf)
		if reserved5[s] {
			return token{kind: s}, true
		}
		return token{kind: tkName, text: s}, true
	}
	lx.next()
	return token{kind: string([]byte{byte(c)})}, true
}

// funcState is what the checker keeps of each function being parsed.
type funcState struct {
	parent *funcState // the enclosing function, nil for the main chunk
	line   int        // where it is defined, 0 for the main chunk
	vararg bool
	loops  int      // enclosing loops, for break
	vars   []string // the names of the active local variables
	upvals []string // the names of its upvalues
}

// Lua 5.1's limits per function: LUAI_MAXVARS active locals and
// LUAI_MAXUPVALUES upvalues.
const (
	maxVars     = 200
	maxUpvalues = 60
)

// parser5 is lparser.c without code generation: it only finds the first
// error.
type parser5 struct {
	lx       lexer5
	t        token
	ahead    *token
	lastline int
	fs       *funcState
	level    int // nested chunks and expressions, with the C calls below
	// constructors are the chunk's table constructors in the order their
	// '{' comes, each with the line its keyed fields are stored on.
	constructors []constructorStores
}

// Lua 5.1 counts nested blocks and expressions with the C calls below the
// parser (nCcalls) and fails beyond maxLevels; baseLevel is the count of a
// loadstring called from a main chunk.
const (
	maxLevels = 200
	baseLevel = 2
)

// checkSyntax parses src as Lua 5.1 does and returns its first syntax
// error, or nil when Lua 5.1 would accept it, and then its table
// constructors.
func checkSyntax(src []byte) (constructors []constructorStores, err *syntaxError) {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			err = se
		}
	}()
	p := &parser5{lx: lexer5{src: src, line: 1}, fs: &funcState{vararg: true}, level: baseLevel}
	p.lastline = 1
	p.next()
	p.chunk()
	p.check(tkEOS)
	return p.constructors, nil
}

func (p *parser5) next() {
	p.lastline = p.lx.line
	if p.ahead != nil {
		p.t, p.ahead = *p.ahead, nil
		return
	}
	p.t = p.lx.lex()
}

func (p *parser5) lookahead() token {
	t := p.lx.lex()
	p.ahead = &t
	return t
}

// fail raises msg near the current token.
func (p *parser5) fail(msg string) {
	panic(&syntaxError{line: p.lx.line, msg: msg, near: p.t.nearText()})
}

func (p *parser5) check(kind string) {
	if p.t.kind != kind {
		p.fail(fmt.Sprintf("'%s' expected", kind))
	}
}

func (p *parser5) checkNext(kind string) {
	p.check(kind)
	p.next()
}

func (p *parser5) testNext(kind string) bool {
	if p.t.kind == kind {
		p.next()
		return true
	}
	return false
}

// checkMatch expects what to close who, opened at line.
func (p *parser5) checkMatch(what, who string, line int) {
	if p.testNext(what) {
		return
	}
	if line == p.lx.line {
		p.check(what)
	}
	p.fail(fmt.Sprintf("'%s' expected (to close '%s' at line %d)", what, who, line))
}

// checkName reads a name and returns it.
func (p *parser5) checkName() string {
	p.check(tkName)
	name := p.t.text
	p.next()
	return name
}

func (p *parser5) blockFollow() bool {
	switch p.t.kind {
	case "else", "elseif", "end", "until", tkEOS:
		return true
	}
	return false
}

// enterLevel counts one more nesting level, failing beyond Lua 5.1's limit;
// leaveLevel undoes it.
func (p *parser5) enterLevel() {
	p.level++
	if p.level > maxLevels {
		panic(&syntaxError{line: p.lx.line, msg: "chunk has too many syntax levels"})
	}
}

func (p *parser5) leaveLevel() { p.level-- }

func (p *parser5) chunk() {
	p.enterLevel()
	defer p.leaveLevel()
	for !p.blockFollow() {
		last := p.statement()
		p.testNext(";")
		if last {
			break
		}
	}
}

// block parses a block, whose locals end with it; the declared locals are
// active in it (a loop's variables), and loop says whether break may end it.
func (p *parser5) block(loop bool, declared ...string) {
	p.scope(loop, declared, p.chunk)
}

// scope runs parse (a block, or a repeat's body and condition) with the
// declared locals active, and ends the locals it declares.
func (p *parser5) scope(loop bool, declared []string, parse func()) {
	active := len(p.fs.vars)
	p.fs.vars = append(p.fs.vars, declared...)
	if loop {
		p.fs.loops++
	}
	parse()
	if loop {
		p.fs.loops--
	}
	p.fs.vars = p.fs.vars[:active]
}

// newLocal checks the limit for the n-th local a statement declares.
func (p *parser5) newLocal(n int) {
	if len(p.fs.vars)+n+1 > maxVars {
		p.limitError(p.fs, maxVars, "local variables")
	}
}

// limitError is errorlimit of lparser.c: fs has more than limit of what.
func (p *parser5) limitError(fs *funcState, limit int, what string) {
	msg := fmt.Sprintf("main function has more than %d %s", limit, what)
	if fs.line != 0 {
		msg = fmt.Sprintf("function at line %d has more than %d %s", fs.line, limit, what)
	}
	panic(&syntaxError{line: p.lx.line, msg: msg})
}

// singleVar resolves a name used in the current function, as singlevar
// does, to count the upvalues of each function.
func (p *parser5) singleVar(name string) { p.resolve(p.fs, name) }

// resolve reports whether name is a local of fs or of a function around
// it; a local of an enclosing function becomes an upvalue of fs and of each
// function between, as in singlevaraux.
func (p *parser5) resolve(fs *funcState, name string) bool {
	if fs == nil {
		return false
	}
	if slices.Contains(fs.vars, name) {
		return true
	}
	if !p.resolve(fs.parent, name) {
		return false
	}
	if !slices.Contains(fs.upvals, name) {
		if len(fs.upvals)+1 > maxUpvalues {
			p.limitError(fs, maxUpvalues, "upvalues")
		}
		fs.upvals = append(fs.upvals, name)
	}
	return true
}

// statement parses one statement and says whether it must be the last.
func (p *parser5) statement() bool {
	line := p.lx.line
	switch p.t.kind {
	case "if":
		p.ifStat(line)
	case "while":
		p.next()
		p.expr()
		p.checkNext("do")
		p.block(true)
		p.checkMatch("end", "while", line)
	case "do":
		p.next()
		p.block(false)
		p.checkMatch("end", "do", line)
	case "for":
		p.forStat(line)
	case "repeat":
		p.next()
		// The condition sees the body's locals.
		p.scope(true, nil, func() {
			p.chunk()
			p.checkMatch("until", "repeat", line)
			p.expr()
		})
	case "function":
		p.next()
		p.singleVar(p.checkName())
		for p.t.kind == "." {
			p.next()
			p.checkName()
		}
		method := p.testNext(":")
		if method {
			p.checkName()
		}
		p.body(line, method)
	case "local":
		p.next()
		p.localStat(line)
	case "return":
		p.next()
		if !p.blockFollow() && p.t.kind != ";" {
			p.exprList()
		}
		return true
	case "break":
		p.next()
		if p.fs.loops == 0 {
			p.fail("no loop to break")
		}
		return true
	default:
		p.exprStat()
	}
	return false
}

func (p *parser5) ifStat(line int) {
	p.next()
	p.expr()
	p.checkNext("then")
	p.block(false)
	for p.t.kind == "elseif" {
		p.next()
		p.expr()
		p.checkNext("then")
		p.block(false)
	}
	if p.testNext("else") {
		p.block(false)
	}
	p.checkMatch("end", "if", line)
}

// forStat parses a for statement; its three hidden control variables and
// then its named ones are locals, as in Lua 5.1.
func (p *parser5) forStat(line int) {
	active := len(p.fs.vars)
	p.next()
	names := []string{p.checkName()}
	hidden := []string{"(for index)", "(for limit)", "(for step)"}
	switch p.t.kind {
	case "=":
		for i := range 4 {
			p.newLocal(i)
		}
		p.next()
		p.expr()
		p.checkNext(",")
		p.expr()
		if p.testNext(",") {
			p.expr()
		}
	case ",", "in":
		hidden = []string{"(for generator)", "(for state)", "(for control)"}
		for i := range 4 {
			p.newLocal(i)
		}
		for p.testNext(",") {
			names = append(names, p.checkName())
			p.newLocal(3 + len(names) - 1)
		}
		p.checkNext("in")
		p.exprList()
	default:
		p.fail("'=' or 'in' expected")
	}
	p.checkNext("do")
	p.fs.vars = append(p.fs.vars, hidden...)
	p.block(true, names...)
	p.fs.vars = p.fs.vars[:active]
	p.checkMatch("end", "for", line)
}

func (p *parser5) localStat(line int) {
	if p.testNext("function") {
		name := p.checkName()
		p.newLocal(0)
		p.fs.vars = append(p.fs.vars, name)
		p.body(line, false)
		return
	}
	var names []string
	for {
		names = append(names, p.checkName())
		p.newLocal(len(names) - 1)
		if !p.testNext(",") {
			break
		}
	}
	if p.testNext("=") {
		p.exprList()
	}
	p.fs.vars = append(p.fs.vars, names...)
}

// body parses a function's parameters and body; a method has self first,
// and a vararg function a local arg, as in Lua 5.1.
func (p *parser5) body(line int, method bool) {
	outer := p.fs
	p.fs = &funcState{parent: outer, line: line}
	if method {
		p.newLocal(0)
		p.fs.vars = append(p.fs.vars, "self")
	}
	p.checkNext("(")
	var params []string
	if p.t.kind != ")" {
		for {
			if p.t.kind == tkName {
				params = append(params, p.checkName())
			} else if p.t.kind == "..." {
				p.next()
				p.fs.vararg = true
				params = append(params, "arg")
			} else {
				p.fail("<name> or '...' expected")
			}
			p.newLocal(len(params) - 1)
			if p.fs.vararg || !p.testNext(",") {
				break
			}
		}
	}
	p.fs.vars = append(p.fs.vars, params...)
	p.checkNext(")")
	p.chunk()
	p.checkMatch("end", "function", line)
	p.fs = outer
}

// exprStat is a call or an assignment.
func (p *parser5) exprStat() {
	call, assignable := p.primaryExp()
	if call {
		return
	}
	for {
		if !assignable {
			p.fail("syntax error")
		}
		if !p.testNext(",") {
			p.checkNext("=")
			p.exprList()
			return
		}
		call, assignable = p.primaryExp()
		assignable = assignable && !call
	}
}

func (p *parser5) exprList() {
	p.expr()
	for p.testNext(",") {
		p.expr()
	}
}

// primaryExp parses a prefix expression and its suffixes; it says whether
// it ended with a call, and whether it can be assigned to (a name or an
// indexing, not a parenthesised expression).
func (p *parser5) primaryExp() (call, assignable bool) {
	switch p.t.kind {
	case "(":
		line := p.lx.line
		p.next()
		p.expr()
		p.checkMatch(")", "(", line)
	case tkName:
		p.singleVar(p.checkName())
		assignable = true
	default:
		p.fail("unexpected symbol")
	}
	for {
		switch p.t.kind {
		case ".":
			p.next()
			p.checkName()
		case "[":
			p.next()
			p.expr()
			p.checkNext("]")
		case ":":
			p.next()
			p.checkName()
			p.funcArgs()
			call, assignable = true, false
			continue
		case "(", tkString, "{":
			p.funcArgs()
			call, assignable = true, false
			continue
		default:
			return call, assignable
		}
		call, assignable = false, true
	}
}

func (p *parser5) funcArgs() {
	line := p.lx.line
	switch p.t.kind {
	case "(":
		if line != p.lastline {
			p.fail("ambiguous syntax (function call x new statement)")
		}
		p.next()
		if p.t.kind != ")" {
			p.exprList()
		}
		p.checkMatch(")", "(", line)
	case "{":
		p.constructor()
	case tkString:
		p.next()
	default:
		p.fail("function arguments expected")
	}
}

// constructorStores is one table constructor: the line of its '{', and
// for each keyed field, in order, the line Lua 5.1's compiler gives its
// store, that of the last token of its value (storelines.go).
type constructorStores struct {
	line   int
	stores []int
}

func (p *parser5) constructor() {
	line := p.lx.line
	n := len(p.constructors)
	p.constructors = append(p.constructors, constructorStores{line: line})
	p.checkNext("{")
	for p.t.kind != "}" {
		switch p.t.kind {
		case tkName:
			if p.lookahead().kind != "=" {
				p.expr()
			} else {
				p.next()
				p.checkNext("=")
				p.expr()
				p.constructors[n].stores = append(p.constructors[n].stores, p.lastline)
			}
		case "[":
			p.next()
			p.expr()
			p.checkNext("]")
			p.checkNext("=")
			p.expr()
			p.constructors[n].stores = append(p.constructors[n].stores, p.lastline)
		default:
			p.expr()
		}
		if !p.testNext(",") && !p.testNext(";") {
			break
		}
	}
	p.checkMatch("}", "{", line)
}

// binaryPriority is lparser.c's priority table: left and right.
var binaryPriority = map[string][2]int{
	"+": {6, 6}, "-": {6, 6}, "*": {7, 7}, "/": {7, 7}, "%": {7, 7},
	"^": {10, 9}, "..": {5, 4},
	"==": {3, 3}, "~=": {3, 3}, "<": {3, 3}, "<=": {3, 3}, ">": {3, 3}, ">=": {3, 3},
	"and": {2, 2}, "or": {1, 1},
}

// unaryPriority is the priority of not, - and #.
const unaryPriority = 8

func (p *parser5) expr() { p.subExpr(0) }

func (p *parser5) subExpr(limit int) {
	p.enterLevel()
	defer p.leaveLevel()
	switch p.t.kind {
	case "not", "-", "#":
		p.next()
		p.subExpr(unaryPriority)
	default:
		p.simpleExp()
	}
	for {
		prio, ok := binaryPriority[p.t.kind]
		if !ok || prio[0] <= limit {
			return
		}
		p.next()
		p.subExpr(prio[1])
	}
}

func (p *parser5) simpleExp() {
	switch p.t.kind {
	case tkNumber, tkString, "nil", "true", "false":
		p.next()
	case "...":
		if !p.fs.vararg {
			p.fail("cannot use '...' outside a vararg function")
		}
		p.next()
	case "{":
		p.constructor()
	case "function":
		line := p.lx.line
		p.next()
		p.body(line, false)
	default:
		p.primaryExp()
	}
}
