package lua51

import (
	"os"
	"runtime"
	"runtime/metrics"

	lua "github.com/yuin/gopher-lua"
)

// installLibrary replaces the standard library functions that differ from
// Lua 5.1's (the pattern functions and the loaders aside, which
// installPatterns and installLoad replace). Each state gets its own random
// generator and collector settings.
func installLibrary(L *lua.LState, opts Options) {
	stdout := opts.Stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	g := &gcSettings{pause: 200, stepmul: 200}
	setFuncs(L, L.G.Global, map[string]lua.LGFunction{
		"print":          NewPrint(stdout),
		"tonumber":       baseToNumber,
		"select":         baseSelect,
		"unpack":         baseUnpack,
		"collectgarbage": g.collectgarbage,
		"gcinfo":         baseGCInfo,
		"assert":         baseAssert,
		"setmetatable":   baseSetMetatable,
		"getfenv":        baseGetfenv,
		"setfenv":        baseSetfenv,
	})
	L.G.Global.RawSetString("tostring", newToString(L))
	if rawset := goFunction(L.G.Global, "rawset"); rawset != nil {
		L.G.Global.RawSetString("rawset", L.NewFunction(budgetedRawset(rawset)))
	}
	installPairs(L)
	installTable(L)
	installString(L)
	installStringArith(L)
	installIO(L, stdout)
	installMath(L, newRandom(opts.Seed))
	installOS(L, stdout, opts.ExitRefused)
}

// budgetedRawset is rawset, which checks the memory budget before a store
// that makes gopher-lua fill the table's array part (reserveIndex), and
// returns the table as Lua 5.1's does (gopher-lua's returns nothing).
func budgetedRawset(rawset lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			reserveIndex(L, t, L.Get(2))
		}
		rawset(L)
		L.Push(L.Get(1))
		return 1
	}
}

// setFuncs sets each function of fns in t.
func setFuncs(L *lua.LState, t *lua.LTable, fns map[string]lua.LGFunction) {
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
}

// library returns the global table name, or nil when the state was opened
// without it: a library an embedder left out is not added.
func library(L *lua.LState, name string) *lua.LTable {
	t, _ := L.GetGlobal(name).(*lua.LTable)
	return t
}

// goFunction is the Go function t holds at name, which a replacement
// wraps, or nil when t holds none there.
func goFunction(t *lua.LTable, name string) lua.LGFunction {
	if fn, ok := t.RawGetString(name).(*lua.LFunction); ok && fn.IsG {
		return fn.GFunction
	}
	return nil
}

// installPairs replaces next, pairs and ipairs with Lua 5.1's, whose
// argument errors say "got no value" for a missing table (gopher-lua's say
// "got nil"). As in Lua 5.1, pairs returns a next function of its own,
// not the global one.
func installPairs(L *lua.LState) {
	L.G.Global.RawSetString("next", L.NewFunction(baseNext))
	L.G.Global.RawSetString("pairs", L.NewClosure(basePairs, L.NewFunction(baseNext)))
	L.G.Global.RawSetString("ipairs", L.NewClosure(baseIpairs, L.NewFunction(ipairsAux)))
}

// baseNext is Lua 5.1's next(t [, k]): a key that has no place in t is
// Lua 5.1's error (gopher-lua's Next goes on from some other key).
func baseNext(L *lua.LState) int {
	t := checkTable(L, 1)
	key := L.Get(2)
	if key != lua.LNil && t.RawGet(key) == lua.LNil && !tableHasSlot(t, key) {
		L.Error(lua.LString("invalid key to 'next'"), 0)
	}
	k, v := t.Next(key)
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

// basePairs is Lua 5.1's pairs(t): next, t, nil.
func basePairs(L *lua.LState) int { return forTriple(L, lua.LNil) }

// baseIpairs is Lua 5.1's ipairs(t): its iterator, t, 0.
func baseIpairs(L *lua.LState) int { return forTriple(L, lua.LNumber(0)) }

// forTriple returns what pairs and ipairs do for a generic for: the
// iterator in the running function's first upvalue, the table argument and
// the control's initial value.
func forTriple(L *lua.LState, initial lua.LValue) int {
	t := checkTable(L, 1)
	L.Push(L.Get(lua.UpvalueIndex(1)))
	L.Push(t)
	L.Push(initial)
	return 3
}

// ipairsAux is ipairs' iterator: i+1 and t[i+1] (read raw) until that is
// nil.
func ipairsAux(L *lua.LState) int {
	i := checkInt(L, 2) + 1
	t := checkTable(L, 1)
	v := t.RawGetInt(i)
	if v == lua.LNil {
		return 0
	}
	L.Push(lua.LNumber(i))
	L.Push(v)
	return 2
}

// baseAssert is Lua 5.1's assert(v [, message]): all its arguments when v
// is true, else an error with message (a number converted) or "assertion
// failed!".
func baseAssert(L *lua.LState) int {
	if !lua.LVAsBool(checkAny(L, 1)) {
		luaError(L, "%s", optString(L, 2, "assertion failed!"))
	}
	return L.GetTop()
}

// baseSetMetatable is Lua 5.1's setmetatable(t, mt): only tables (gopher-lua
// also accepts a number or a string, and then changes the metatable of
// every number or string).
func baseSetMetatable(L *lua.LState) int {
	t := checkTable(L, 1)
	mt := L.Get(2)
	if mt.Type() != lua.LTNil && mt.Type() != lua.LTTable {
		argError(L, 2, "nil or table expected")
	}
	if cur, ok := t.Metatable.(*lua.LTable); ok && cur.RawGetString("__metatable") != lua.LNil {
		luaError(L, "cannot change a protected metatable")
	}
	L.SetMetatable(t, mt)
	L.SetTop(1)
	return 1
}

// envFunction is getfunc of lbaselib.c: argument 1 when it is a function,
// else the function running at the level it gives (1, the caller, when
// absent and optional).
func envFunction(L *lua.LState, optional bool) lua.LValue {
	if fn, ok := L.Get(1).(*lua.LFunction); ok {
		return fn
	}
	level := 1
	if optional {
		level = optInt(L, 1, 1)
	} else {
		level = checkInt(L, 1)
	}
	if level < 0 {
		argError(L, 1, "level must be non-negative")
	}
	T, dbg, _, ok := stackLevel(L, level)
	if !ok {
		argError(L, 1, "invalid level")
	}
	fn, err := T.GetInfo("f", dbg, lua.LNil)
	if err != nil || fn == lua.LNil {
		luaError(L, "no function environment for tail call at level %d", level)
	}
	return fn
}

// baseGetfenv is Lua 5.1's getfenv([f]): the environment of a function or
// of the function at a level (1 when absent), the running thread's
// environment for a Go function (so getfenv(0) is the thread's). gopher-lua
// answers a level beyond the stack with the globals.
func baseGetfenv(L *lua.LState) int {
	fn := envFunction(L, true).(*lua.LFunction)
	if fn.IsG {
		L.Push(L.Env)
	} else {
		L.Push(fn.Env)
	}
	return 1
}

// baseSetfenv is Lua 5.1's setfenv(f, table): level 0 changes the running
// thread's environment.
func baseSetfenv(L *lua.LState) int {
	env := checkTable(L, 2)
	fn := envFunction(L, false).(*lua.LFunction)
	if n, ok := L.Get(1).(lua.LNumber); ok && n == 0 {
		L.Env = env
		return 0
	}
	if fn.IsG {
		luaError(L, "'setfenv' cannot change environment of given object")
	}
	fn.Env = env
	L.Push(fn)
	return 1
}

// baseToNumber is Lua 5.1's tonumber(e [, base]): base 10 converts with
// ParseNumber (strtod); other bases read an unsigned integer as C's strtoul
// does, in bases 2 to 36.
func baseToNumber(L *lua.LState) int {
	base := optInt(L, 2, 10)
	if base == 10 {
		switch v := checkAny(L, 1).(type) {
		case lua.LNumber:
			L.Push(v)
			return 1
		case lua.LString:
			if n, ok := ParseNumber(string(v)); ok {
				L.Push(n)
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := checkString(L, 1)
	if base < 2 || base > 36 {
		argError(L, 2, "base out of range")
	}
	if n, ok := parseUnsigned(s, base); ok {
		L.Push(lua.LNumber(n))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// parseUnsigned is tonumber's use of strtoul: leading white space, a sign
// (a minus negates modulo 2^64), "0x" in base 16, at least one digit, then
// only white space. Overflow gives 2^64-1, as strtoul does.
func parseUnsigned(s string, base int) (uint64, bool) {
	i := skipSpace(s, 0)
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16 {
		i += 2
	}
	var n uint64
	start, overflow := i, false
	for ; i < len(s) && digitValue(s[i]) < base; i++ {
		d := uint64(digitValue(s[i]))
		if n > (^uint64(0)-d)/uint64(base) {
			overflow = true
		}
		n = n*uint64(base) + d
	}
	if i == start || skipSpace(s, i) != len(s) {
		return 0, false
	}
	switch {
	case overflow:
		return ^uint64(0), true
	case neg:
		return -n, true
	}
	return n, true
}

// digitValue is the value of c as a digit in bases up to 36, or 99.
func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// skipSpace returns the index of the first byte from i on that is not C's
// isspace.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// checkInt is luaL_checkint: checkInteger cut to a C int.
func checkInt(L *lua.LState, n int) int { return cInt(checkNumber(L, n)) }

// optInt is luaL_optint.
func optInt(L *lua.LState, n int, d int) int {
	if L.Get(n) == lua.LNil {
		return d
	}
	return checkInt(L, n)
}

// baseSelect is Lua 5.1's select: "#" (any string starting with '#')
// counts, a negative index counts from the end.
func baseSelect(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := L.Get(1).(lua.LString); ok && len(s) > 0 && s[0] == '#' {
		L.Push(lua.LNumber(n - 1))
		return 1
	}
	i := checkInt(L, 1)
	if i < 0 {
		i = n + i
	} else if i > n {
		i = n
	}
	if i < 1 {
		argError(L, 1, "index out of range")
	}
	return n - i
}

// valueSize is the size of a value on a state's stack, which the memory
// budget is asked for before a function pushes many.
const valueSize = 16

// minStack is how many values of the data stack a function that pushes
// many leaves free (Lua 5.1's LUA_MINSTACK).
const minStack = 20

// maxResults bounds unpack's results: Lua 5.1 allows about 8,000; the
// project allows more (a CSV row of a long sweep), as far as the state's
// data stack can grow.
const maxResults = 1 << 22

// tableRange reads the optional range of t that arguments n and n+1 give,
// as unpack and table.concat read it: from 1 and to #t by default.
func tableRange(L *lua.LState, t *lua.LTable, n int) (first, last int) {
	first = optInt(L, n, 1)
	if L.Get(n+1) == lua.LNil {
		return first, t.Len()
	}
	return first, checkInt(L, n+1)
}

// baseUnpack is Lua 5.1's unpack(t [, i [, j]]) with t[i] to t[j] read raw.
func baseUnpack(L *lua.LState) int {
	t := checkTable(L, 1)
	i, e := tableRange(L, t, 2)
	if i > e {
		return 0
	}
	n := e - i + 1
	if n <= 0 || n > maxResults {
		luaError(L, "too many results to unpack")
	}
	reserveProduct(L, n, valueSize)
	if n > stackRoom(L)-minStack {
		luaError(L, "too many results to unpack")
	}
	chargeItems(L, n)
	for ; i <= e; i++ {
		L.Push(t.RawGetInt(i))
	}
	return n
}

// gcSettings are a state's collectgarbage settings. Go's collector is
// shared by the whole process, so "stop", "restart", "setpause" and
// "setstepmul" only record what the script asked.
type gcSettings struct {
	pause, stepmul int
}

// gcOptions are collectgarbage's options, in Lua 5.1's order.
var gcOptions = []string{"stop", "restart", "collect", "count", "step", "setpause", "setstepmul"}

// collectgarbage is Lua 5.1's collectgarbage([opt [, arg]]).
func (g *gcSettings) collectgarbage(L *lua.LState) int {
	opt := checkOption(L, 1, "collect", gcOptions)
	arg := optInt(L, 2, 0)
	switch opt {
	case "count":
		L.Push(lua.LNumber(heapBytes()) / 1024)
	case "collect":
		runtime.GC()
		L.Push(lua.LNumber(0))
	case "step":
		runtime.GC() // a whole cycle: the step finished one
		L.Push(lua.LTrue)
	case "setpause":
		L.Push(lua.LNumber(g.pause))
		g.pause = arg
	case "setstepmul":
		L.Push(lua.LNumber(g.stepmul))
		g.stepmul = arg
	default: // stop, restart
		L.Push(lua.LNumber(0))
	}
	return 1
}

// baseGCInfo is Lua 5.1's gcinfo(): the memory in use in whole KB.
func baseGCInfo(L *lua.LState) int {
	L.Push(lua.LNumber(heapBytes() / 1024))
	return 1
}

// heapBytes is the memory held by live and not yet swept Go objects: what
// the collector manages for every Lua state of the process (Go cannot tell
// one state's share).
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// checkOption is luaL_checkoption: argument n (def when absent or nil) must
// be one of opts.
func checkOption(L *lua.LState, n int, def string, opts []string) string {
	s := optString(L, n, def)
	for _, o := range opts {
		if s == o {
			return s
		}
	}
	argError(L, n, "invalid option '"+s+"'")
	return ""
}

// installTable replaces the table library with Lua 5.1's.
func installTable(L *lua.LState) {
	t := library(L, "table")
	if t == nil {
		return
	}
	setFuncs(L, t, map[string]lua.LGFunction{
		"concat":   tableConcat,
		"insert":   tableInsert,
		"remove":   tableRemove,
		"maxn":     tableMaxN,
		"sort":     tableSort,
		"getn":     tableGetN,
		"setn":     tableSetN,
		"foreach":  tableForeach,
		"foreachi": tableForeachi,
	})
}

// tableConcat is Lua 5.1's table.concat(t [, sep [, i [, j]]]): strings and
// numbers (as NumberToString) of t[i..j], read raw.
func tableConcat(L *lua.LState) int {
	sep := optString(L, 2, "")
	t := checkTable(L, 1)
	i, last := tableRange(L, t, 3)
	var b []byte
	built := meter{growth: growth{L: L}}
	m := monitorOf(L)
	for ; i <= last; i++ {
		m.charge(L, 1)
		switch v := t.RawGetInt(i).(type) {
		case lua.LString:
			b = append(b, v...)
		case lua.LNumber:
			b = append(b, NumberToString(v)...)
		default:
			luaError(L, "invalid value (%s) at index %d in table for 'concat'", v.Type().String(), i)
		}
		if i != last {
			b = append(b, sep...)
		}
		built.built(len(b))
	}
	L.Push(lua.LString(b))
	return 1
}

// tableInsert is Lua 5.1's table.insert(t, [pos,] v).
func tableInsert(L *lua.LState) int {
	t := checkTable(L, 1)
	e := t.Len() + 1
	pos := e
	switch L.GetTop() {
	case 2:
	case 3:
		pos = checkInt(L, 2)
		if pos > e {
			e = pos
		}
		chargeItems(L, e-pos)
		for i := e; i > pos; i-- {
			t.RawSetInt(i, t.RawGetInt(i-1))
		}
	default:
		luaError(L, "wrong number of arguments to 'insert'")
	}
	if e >= largeAllocation/16 && e&(e-1) == 0 {
		reserveProduct(L, e, 16) // the array part may grow by about that much
	}
	reserveIndex(L, t, lua.LNumber(pos))
	t.RawSetInt(pos, L.Get(L.GetTop()))
	return 0
}

// tableRemove is Lua 5.1's table.remove(t [, pos]): nothing when pos is
// outside 1..#t.
func tableRemove(L *lua.LState) int {
	t := checkTable(L, 1)
	e := t.Len()
	pos := optInt(L, 2, e)
	if pos < 1 || pos > e {
		return 0
	}
	chargeItems(L, e-pos)
	L.Push(t.RawGetInt(pos))
	for ; pos < e; pos++ {
		t.RawSetInt(pos, t.RawGetInt(pos+1))
	}
	t.RawSetInt(e, lua.LNil)
	return 1
}

// tableMaxN is Lua 5.1's table.maxn: the largest positive number key.
func tableMaxN(L *lua.LState) int {
	var m lua.LNumber
	visited := 0
	checkTable(L, 1).ForEach(func(k, _ lua.LValue) {
		if visited++; visited == checkEvery {
			chargeItems(L, visited)
			visited = 0
		}
		if n, ok := k.(lua.LNumber); ok && n > m {
			m = n
		}
	})
	L.Push(m)
	return 1
}

// tableGetN is Lua 5.1's table.getn, #t.
func tableGetN(L *lua.LState) int {
	L.Push(lua.LNumber(checkTable(L, 1).Len()))
	return 1
}

// tableSetN is Lua 5.1's table.setn, obsolete there.
func tableSetN(L *lua.LState) int {
	checkTable(L, 1)
	luaError(L, "'setn' is obsolete")
	return 0
}

// tableForeachi is Lua 5.1's table.foreachi(t, f): f(i, t[i]) for i in
// 1..#t until f returns a value other than nil, which it returns.
func tableForeachi(L *lua.LState) int {
	t := checkTable(L, 1)
	n := t.Len()
	f := checkFunction(L, 2)
	for i := 1; i <= n; i++ {
		if r := call1(L, f, lua.LNumber(i), t.RawGetInt(i)); r != lua.LNil {
			L.Push(r)
			return 1
		}
	}
	return 0
}

// tableForeach is Lua 5.1's table.foreach(t, f): f(k, v) for every pair
// until f returns a value other than nil, which it returns.
func tableForeach(L *lua.LState) int {
	t := checkTable(L, 1)
	f := checkFunction(L, 2)
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if r := call1(L, f, k, v); r != lua.LNil {
			L.Push(r)
			return 1
		}
	}
	return 0
}

// call1 calls f(args...) and returns its first result.
func call1(L *lua.LState, f lua.LValue, args ...lua.LValue) lua.LValue {
	mustBeCallable(L, f)
	L.Push(f)
	for _, a := range args {
		L.Push(a)
	}
	L.Call(len(args), 1)
	r := L.Get(-1)
	L.Pop(1)
	return r
}

// checkFunction is luaL_checktype(L, n, LUA_TFUNCTION).
func checkFunction(L *lua.LState, n int) *lua.LFunction {
	if f, ok := L.Get(n).(*lua.LFunction); ok {
		return f
	}
	typeError(L, n, "function")
	return nil
}

// tableSort is Lua 5.1's table.sort(t [, comp]) with Lua 5.1's quicksort,
// so that elements that compare equal end in the same order as in Lua 5.1
// and an inconsistent comparator raises "invalid order function for
// sorting" where Lua 5.1 does. gopher-lua sorts only the table's array
// part, with Go's sort.
func tableSort(L *lua.LState) int {
	t := checkTable(L, 1)
	s := sorter{L: L, t: t, m: monitorOf(L)}
	if L.Get(2) != lua.LNil {
		s.comp = checkFunction(L, 2)
	}
	s.sort(1, t.Len())
	return 0
}

// sorter is auxsort of Lua 5.1's ltablib.c over the table t.
type sorter struct {
	L    *lua.LState
	t    *lua.LTable
	comp *lua.LFunction
	m    *monitor // charged a comparison as an instruction
}

func (s *sorter) less(a, b lua.LValue) bool {
	s.m.charge(s.L, 1)
	if s.comp == nil {
		return s.L.LessThan(a, b)
	}
	return lua.LVAsBool(call1(s.L, s.comp, a, b))
}

func (s *sorter) get(i int) lua.LValue { return s.t.RawGetInt(i) }

func (s *sorter) swap(i, j int) {
	a, b := s.get(i), s.get(j)
	s.t.RawSetInt(i, b)
	s.t.RawSetInt(j, a)
}

// sort sorts t[l..u]: median of three, then partition around it, recursing
// on the smaller part and looping on the larger.
func (s *sorter) sort(l, u int) {
	for l < u {
		if s.less(s.get(u), s.get(l)) {
			s.swap(l, u)
		}
		if u-l == 1 {
			return
		}
		i := (l + u) / 2
		if s.less(s.get(i), s.get(l)) {
			s.swap(i, l)
		} else if s.less(s.get(u), s.get(i)) {
			s.swap(i, u)
		}
		if u-l == 2 {
			return
		}
		i = s.partition(l, u)
		var j int
		if i-l < u-i {
			j, i, l = l, i-1, i+1
		} else {
			j, i, u = i+1, u, i-1
		}
		s.sort(j, i)
	}
}

// partition puts the pivot t[(l+u)/2] at its place in t[l..u], which it
// returns, with no greater element before and no smaller one after.
func (s *sorter) partition(l, u int) int {
	p := s.get((l + u) / 2)
	s.swap((l+u)/2, u-1)
	i, j := l, u-1
	for {
		for i++; s.less(s.get(i), p); i++ {
			if i > u {
				luaError(s.L, "invalid order function for sorting")
			}
		}
		for j--; s.less(p, s.get(j)); j-- {
			if j < l {
				luaError(s.L, "invalid order function for sorting")
			}
		}
		if j < i {
			break
		}
		s.swap(i, j)
	}
	s.swap(u-1, i)
	return i
}
