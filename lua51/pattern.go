package lua51

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's pattern matching (string.find, match, gmatch and gsub), written
// from the semantics of its lstrlib.c. gopher-lua's versions differ in ways
// scripts notice: match returns nothing where Lua 5.1 returns nil, %f gives
// wrong positions, '^' in gmatch is an anchor, a position capture is not a
// number everywhere, and several errors differ or are missing.
//
// The matcher works on byte offsets into the subject and the pattern. The
// subject may hold zero bytes; the pattern ends at its first zero byte, as
// Lua 5.1 reads it as a C string (%z matches a zero byte). Where C reads the
// terminating '\0' of the subject (the frontier at its end, %b), byte 0 is
// used.

const (
	maxCaptures = 32 // LUA_MAXCAPTURES

	capUnfinished = -1 // capture length of an open capture
	capPosition   = -2 // capture length of a position capture ()

	// patternSpecials are the bytes that make find use the matcher instead
	// of a plain search.
	patternSpecials = "^$*+?.([%-"
)

// installPatterns replaces string.find, string.match, string.gmatch and
// string.gsub (and string.gfind, Lua 5.1's old name for gmatch) in the
// global string table, which is also the __index of the string metatable,
// so method calls (s:match(p)) get them too.
func installPatterns(L *lua.LState) {
	mod, ok := L.GetGlobal("string").(*lua.LTable)
	if !ok {
		return
	}
	gmatch := L.NewFunction(strGmatch)
	for name, fn := range map[string]lua.LValue{
		"find":   L.NewFunction(strFind),
		"match":  L.NewFunction(strMatch),
		"gmatch": gmatch,
		"gfind":  gmatch,
		"gsub":   L.NewFunction(strGsub),
	} {
		mod.RawSetString(name, fn)
	}
}

// capture is one capture of a match: its start in the subject and its
// length, or capUnfinished or capPosition.
type capture struct {
	init, len int
}

// matchState is the state of one match attempt (lstrlib.c's MatchState).
type matchState struct {
	L       *lua.LState
	src     string // the subject
	pat     string // the pattern, without a leading '^' anchor, cut at its first zero byte
	level   int    // the number of captures opened so far
	capture [maxCaptures]capture

	monitor *monitor // L's universe's, which the steps are charged to
	steps   int      // steps not yet charged
	depth   int      // nested calls of match
}

// A pattern search is bounded like Lua code: its steps (a pattern item
// tried, a byte a repetition or a balance scans) are charged to the
// universe's monitor as instructions, stepsPerInstruction of them an
// instruction, so that an instruction budget, the host's Ctrl-C or time
// limit and the memory budget stop a catastrophic search
// (string.rep("a", 3000):find(".-.-.-.-b")) as they stop a loop.
const (
	stepsPerInstruction = 8
	chargeSteps         = 1024 // steps between two charges
	// maxMatchDepth bounds the nesting of match, which a long pattern of
	// optional items makes deep: past it the search fails with Lua 5.2's
	// "pattern too complex" rather than growing the Go stack without end.
	maxMatchDepth = 10000
)

// newMatchState prepares matching pattern p (an anchor already removed)
// against src.
func newMatchState(L *lua.LState, src, p string) matchState {
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return matchState{L: L, src: src, pat: p, monitor: monitorOf(L)}
}

// step counts n steps of the search, charging them once enough gathered.
func (ms *matchState) step(n int) {
	if ms.steps += n; ms.steps >= chargeSteps {
		ms.monitor.charge(ms.L, int64(ms.steps/stepsPerInstruction))
		ms.steps %= stepsPerInstruction
	}
}

// fail raises a pattern error as luaL_error does.
func (ms *matchState) fail(msg string) { luaError(ms.L, "%s", msg) }

// classEnd returns the offset just after the single-character class that
// starts at p: a byte, a %-escape or a [set].
func (ms *matchState) classEnd(p int) int {
	pat := ms.pat
	c := pat[p]
	p++
	switch c {
	case '%':
		if p >= len(pat) {
			ms.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if p < len(pat) && pat[p] == '^' {
			p++
		}
		for { // the first byte is part of the set even if it is ']'
			if p >= len(pat) {
				ms.fail("malformed pattern (missing ']')")
			}
			c := pat[p]
			p++
			if c == '%' && p < len(pat) {
				p++ // an escaped byte, %] included
			}
			if p < len(pat) && pat[p] == ']' {
				return p + 1
			}
		}
	}
	return p
}

// Character class bits of the C locale; bytes >= 128 belong to no class.
const (
	ctAlpha = 1 << iota
	ctCntrl
	ctDigit
	ctLower
	ctPunct
	ctSpace
	ctUpper
	ctXDigit
	ctZero
	ctAlnum = ctAlpha | ctDigit
)

var (
	// ctype holds the class bits of every byte.
	ctype = makeCtype()
	// classOf maps a class letter after '%' (either case) to its bits; 0
	// means the byte after '%' stands for itself.
	classOf = makeClassOf()
)

func makeCtype() (t [256]uint16) {
	for c := 0; c < 256; c++ {
		var b uint16
		switch {
		case 'a' <= c && c <= 'z':
			b = ctAlpha | ctLower
		case 'A' <= c && c <= 'Z':
			b = ctAlpha | ctUpper
		case '0' <= c && c <= '9':
			b = ctDigit
		case c == ' ' || '\t' <= c && c <= '\r':
			b = ctSpace
		case 33 <= c && c <= 126:
			b = ctPunct
		}
		if c < 32 || c == 127 {
			b |= ctCntrl
		}
		if '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' {
			b |= ctXDigit
		}
		if c == 0 {
			b |= ctZero
		}
		t[c] = b
	}
	return t
}

func makeClassOf() (t [256]uint16) {
	for l, b := range map[byte]uint16{
		'a': ctAlpha, 'c': ctCntrl, 'd': ctDigit, 'l': ctLower, 'p': ctPunct,
		's': ctSpace, 'u': ctUpper, 'w': ctAlnum, 'x': ctXDigit, 'z': ctZero,
	} {
		t[l] = b
		t[l-'a'+'A'] = b
	}
	return t
}

// matchClass reports whether byte c matches the escape %cl: a class letter
// (upper case for its complement) or any other byte standing for itself.
func matchClass(c, cl byte) bool {
	bits := classOf[cl]
	if bits == 0 {
		return cl == c
	}
	res := ctype[c]&bits != 0
	if 'A' <= cl && cl <= 'Z' {
		return !res
	}
	return res
}

// matchBracketClass reports whether c matches the set from '[' at p to its
// closing ']' at ec.
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	pat := ms.pat
	sig := true
	if pat[p+1] == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case pat[p] == '%':
			p++
			if matchClass(c, pat[p]) {
				return sig
			}
		case pat[p+1] == '-' && p+2 < ec:
			p += 2
			if pat[p-2] <= c && c <= pat[p] {
				return sig
			}
		case pat[p] == c:
			return sig
		}
	}
	return !sig
}

// singleMatch reports whether c matches the class from p to ep.
func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.pat[p+1])
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	}
	return ms.pat[p] == c
}

// at returns the subject's byte at s, or 0 at its end (C's terminator).
func (ms *matchState) at(s int) byte {
	if s < len(ms.src) {
		return ms.src[s]
	}
	return 0
}

// match matches the pattern from offset p against the subject from offset
// s and returns the end of the match, or -1.
func (ms *matchState) match(s, p int) int {
	if ms.depth++; ms.depth > maxMatchDepth {
		ms.fail("pattern too complex")
	}
	defer func() { ms.depth-- }()
	pat := ms.pat
	for p < len(pat) {
		ms.step(1)
		switch pat[p] {
		case '(':
			if p+1 < len(pat) && pat[p+1] == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case '$':
			if p+1 == len(pat) {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		case '%':
			if p+1 < len(pat) {
				switch next := pat[p+1]; {
				case next == 'b':
					if s = ms.matchBalance(s, p+2); s < 0 {
						return -1
					}
					p += 4
					continue
				case next == 'f':
					if s, p = ms.frontier(s, p+2); s < 0 {
						return -1
					}
					continue
				case isDigit(next):
					if s = ms.matchCapture(s, next); s < 0 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		// a single-character class, maybe followed by a quantifier
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		if ep < len(pat) {
			switch pat[ep] {
			case '?':
				if m {
					if res := ms.match(s+1, ep+1); res >= 0 {
						return res
					}
				}
				p = ep + 1
				continue
			case '*':
				return ms.maxExpand(s, p, ep)
			case '+':
				if !m {
					return -1
				}
				return ms.maxExpand(s+1, p, ep)
			case '-':
				return ms.minExpand(s, p, ep)
			}
		}
		if !m {
			return -1
		}
		s++
		p = ep
	}
	return s
}

// maxExpand matches as many repetitions of the class p..ep as the rest of
// the pattern allows (* and +).
func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		i++
	}
	ms.step(i)
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res >= 0 {
			return res
		}
	}
	return -1
}

// minExpand matches as few repetitions of the class p..ep as the rest of
// the pattern allows (-).
func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res >= 0 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

// startCapture opens a capture (or records a position) at s and matches the
// rest of the pattern from p.
func (ms *matchState) startCapture(s, p, what int) int {
	if ms.level >= maxCaptures {
		ms.fail("too many captures")
	}
	ms.capture[ms.level] = capture{init: s, len: what}
	ms.level++
	res := ms.match(s, p)
	if res < 0 {
		ms.level--
	}
	return res
}

// endCapture closes the innermost open capture at s and matches the rest of
// the pattern from p.
func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res < 0 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

// captureToClose returns the innermost open capture.
func (ms *matchState) captureToClose() int {
	for l := ms.level - 1; l >= 0; l-- {
		if ms.capture[l].len == capUnfinished {
			return l
		}
	}
	ms.fail("invalid pattern capture")
	return 0
}

// matchBalance matches %bxy, whose x is at p, at s.
func (ms *matchState) matchBalance(s, p int) int {
	if p+1 >= len(ms.pat) {
		ms.fail("unbalanced pattern")
	}
	open, close := ms.pat[p], ms.pat[p+1]
	if s >= len(ms.src) || ms.src[s] != open {
		return -1
	}
	depth := 1
	defer func(from int) { ms.step(s - from) }(s)
	for s++; s < len(ms.src); s++ {
		switch ms.src[s] {
		case close:
			if depth--; depth == 0 {
				return s + 1
			}
		case open:
			depth++
		}
	}
	return -1
}

// frontier matches %f[set], whose '[' is at p, at s: the byte before s
// (0 at the subject's start) is not in the set and the byte at s (0 at its
// end) is. It returns s and the offset after the set, or -1.
func (ms *matchState) frontier(s, p int) (int, int) {
	if p >= len(ms.pat) || ms.pat[p] != '[' {
		ms.fail("missing '[' after '%f' in pattern")
	}
	ep := ms.classEnd(p)
	var prev byte
	if s > 0 {
		prev = ms.src[s-1]
	}
	if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(ms.at(s), p, ep-1) {
		return -1, ep
	}
	return s, ep
}

// matchCapture matches a back-reference %1-%9 (digit d) at s.
func (ms *matchState) matchCapture(s int, d byte) int {
	l := int(d) - '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.fail("invalid capture index")
	}
	c := ms.capture[l]
	if c.len < 0 || len(ms.src)-s < c.len { // a position capture never matches
		return -1
	}
	ms.step(c.len)
	if ms.src[s:s+c.len] != ms.src[c.init:c.init+c.len] {
		return -1
	}
	return s + c.len
}

// captureRange returns where capture i of a match from s to e starts and
// its length, capPosition for a position capture; with no captures, capture
// 0 is the whole match.
func (ms *matchState) captureRange(i, s, e int) (int, int) {
	if i >= ms.level {
		if i != 0 {
			ms.fail("invalid capture index")
		}
		return s, e - s
	}
	c := ms.capture[i]
	if c.len == capUnfinished {
		ms.fail("unfinished capture")
	}
	return c.init, c.len
}

// captureValue returns capture i of a match from s to e as a Lua value: a
// string, or a position (from 1) as a number.
func (ms *matchState) captureValue(i, s, e int) lua.LValue {
	init, n := ms.captureRange(i, s, e)
	if n == capPosition {
		return lua.LNumber(init + 1)
	}
	return lua.LString(ms.src[init : init+n])
}

// pushCaptures pushes the captures of a match from s to e, or the whole
// match when there are none and whole is set, and returns their number.
func (ms *matchState) pushCaptures(s, e int, whole bool) int {
	n := ms.level
	if n == 0 && whole {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.captureValue(i, s, e))
	}
	return n
}

// strFind is string.find (s, pattern [, init [, plain]]).
func strFind(L *lua.LState) int { return strFindAux(L, true) }

// strMatch is string.match (s, pattern [, init]).
func strMatch(L *lua.LState) int { return strFindAux(L, false) }

// strFindAux is find and match: a plain search when find is asked for one
// or the pattern has no special byte, else the matcher from init on.
func strFindAux(L *lua.LState, find bool) int {
	s := checkString(L, 1)
	p := checkString(L, 2)
	start := posRelative(optInteger(L, 3, 1), len(s)) - 1
	if start < 0 {
		start = 0
	} else if start > len(s) {
		start = len(s)
	}
	if find && (lua.LVAsBool(L.Get(4)) || !hasSpecials(p)) {
		i := strings.Index(s[start:], p)
		if i >= 0 {
			chargeBytes(L, i+len(p)) // the bytes it scanned
			L.Push(lua.LNumber(start + i + 1))
			L.Push(lua.LNumber(start + i + len(p)))
			return 2
		}
		chargeBytes(L, len(s)-start)
		L.Push(lua.LNil)
		return 1
	}
	return findPattern(L, s, p, start, find)
}

// findPattern is find and match with the matcher: it tries each start from
// start on (only start itself when p is anchored with '^') and pushes the
// first match's position (find) and captures.
func findPattern(L *lua.LState, s, p string, start int, find bool) int {
	anchor := len(p) > 0 && p[0] == '^'
	if anchor {
		p = p[1:]
	}
	ms := newMatchState(L, s, p)
	for s1 := start; s1 <= len(s); s1++ {
		ms.level = 0
		if e := ms.match(s1, 0); e >= 0 {
			if !find {
				return ms.pushCaptures(s1, e, true)
			}
			L.Push(lua.LNumber(s1 + 1))
			L.Push(lua.LNumber(e))
			return ms.pushCaptures(-1, -1, false) + 2
		}
		if anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

// hasSpecials reports whether pattern p, read as a C string (up to its
// first zero byte), holds a byte that makes it a pattern.
func hasSpecials(p string) bool {
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return strings.ContainsAny(p, patternSpecials)
}

// strGmatch is string.gmatch (s, pattern): an iterator over the matches,
// each search starting where the last match ended (one further after an
// empty match). '^' is an ordinary byte here, as in Lua 5.1. Pattern errors
// are raised by the iterator.
func strGmatch(L *lua.LState) int {
	s := checkString(L, 1)
	p := checkString(L, 2)
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := newMatchState(L, s, p)
		for src := pos; src <= len(s); src++ {
			ms.level = 0
			if e := ms.match(src, 0); e >= 0 {
				pos = e
				if e == src {
					pos++
				}
				return ms.pushCaptures(src, e, true)
			}
		}
		return 0
	}))
	return 1
}

// strGsub is string.gsub (s, pattern, repl [, n]): it returns s with the
// first n matches (all by default) replaced, and the number of matches.
func strGsub(L *lua.LState) int {
	src := checkString(L, 1)
	p := checkString(L, 2)
	repl := L.Get(3)
	maxN := optInt(L, 4, len(src)+1)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		argError(L, 3, "string/function/table expected")
	}
	if n, ok := repl.(lua.LNumber); ok {
		repl = lua.LString(NumberToString(n))
	}
	anchor := len(p) > 0 && p[0] == '^'
	if anchor {
		p = p[1:]
	}
	ms := newMatchState(L, src, p)
	var b strings.Builder
	reserve(L, len(src))
	b.Grow(len(src))
	built := meter{growth: growth{L: L, next: 2 * len(src)}}
	s, n := 0, 0
	for n < maxN {
		ms.level = 0
		e := ms.match(s, 0)
		if e >= 0 {
			n++
			ms.writeValue(&b, s, e, repl)
			built.built(b.Len())
		}
		if e > s {
			s = e
		} else if s < len(src) {
			b.WriteByte(src[s])
			s++
		} else {
			break
		}
		if anchor {
			break
		}
	}
	b.WriteString(src[s:])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// writeValue writes the replacement of the match from s to e to b.
func (ms *matchState) writeValue(b *strings.Builder, s, e int, repl lua.LValue) {
	var v lua.LValue
	switch r := repl.(type) {
	case lua.LString:
		ms.writeReplacement(b, s, e, string(r))
		return
	case *lua.LTable:
		v = ms.L.GetTable(r, ms.captureValue(0, s, e))
	case *lua.LFunction:
		L := ms.L
		L.Push(r)
		n := ms.pushCaptures(s, e, true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	switch x := v.(type) {
	case lua.LString:
		b.WriteString(string(x))
	case lua.LNumber:
		b.WriteString(NumberToString(x))
	default:
		if lua.LVAsBool(v) {
			ms.fail("invalid replacement value (a " + v.Type().String() + ")")
		}
		b.WriteString(ms.src[s:e]) // false or nil keeps the match
	}
}

// writeReplacement writes repl with %0-%9 replaced by the captures and %
// before any other byte standing for that byte. A '%' at the end of repl
// stands for a zero byte (Lua 5.1 reads the string's terminator there).
func (ms *matchState) writeReplacement(b *strings.Builder, s, e int, repl string) {
	for {
		i := strings.IndexByte(repl, '%')
		if i < 0 {
			b.WriteString(repl)
			return
		}
		b.WriteString(repl[:i])
		var d byte
		if i+1 < len(repl) {
			d = repl[i+1]
		}
		switch {
		case d == '0':
			b.WriteString(ms.src[s:e])
		case isDigit(d):
			if init, n := ms.captureRange(int(d-'1'), s, e); n == capPosition {
				b.WriteString(strconv.Itoa(init + 1))
			} else {
				b.WriteString(ms.src[init : init+n])
			}
		default:
			b.WriteByte(d)
		}
		if i+2 > len(repl) {
			return
		}
		repl = repl[i+2:]
	}
}
