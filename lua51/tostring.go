package lua51

import (
	"fmt"
	"io"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// This file holds the conversions between values and strings that every
// replaced library function shares, in Lua 5.1's terms: numbers become
// strings with NumberToString (%.14g) wherever a string is expected, strings
// become numbers with ParseNumber (strtod) wherever a number is expected, and
// argument errors carry Lua 5.1's words ("string expected, got no value").
// gopher-lua's own CheckString and CheckNumber format numbers with Go's %v
// and parse strings with Go's rules, so the replaced functions use these
// instead. The pattern functions (pattern.go) use checkString and optString
// too.

// ToString is Lua 5.1's tostring of v as a Go string: the result of v's
// __tostring metamethod when it has one (a number result is converted, any
// other non-string result gives ""), numbers as NumberToString, and
// gopher-lua's "table: 0x..." style for the rest. An error in __tostring is
// raised in L, as a Lua error.
func ToString(L *lua.LState, v lua.LValue) string {
	switch s := toStringValue(L, v).(type) {
	case lua.LString:
		return string(s)
	case lua.LNumber:
		return NumberToString(s)
	}
	return ""
}

// toStringValue is luaB_tostring: the __tostring metamethod's result, as it
// is, or the value's own string.
func toStringValue(L *lua.LState, v lua.LValue) lua.LValue {
	if fn := L.GetMetaField(v, "__tostring"); fn != lua.LNil {
		return call1(L, fn, v)
	}
	return lua.LString(plainString(v))
}

// plainString is the string of v without metamethods.
func plainString(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LNumber:
		return NumberToString(v)
	case lua.LString:
		return string(v)
	}
	return v.String()
}

// baseToString is Lua 5.1's tostring(v).
func baseToString(L *lua.LState) int {
	v := checkAny(L, 1)
	L.Push(toStringValue(L, v))
	return 1
}

// NewPrint makes Lua 5.1's print writing to w: each argument goes through
// the global tostring, as lua5.1's print does, separated by tabs and ended
// by a newline; each is written up to a NUL byte, where lua5.1's fputs
// stops. The resident module uses it to send print to its Stdout.
func NewPrint(w io.Writer) lua.LGFunction {
	return func(L *lua.LState) int {
		n := L.GetTop()
		tostring := L.GetGlobal("tostring")
		own := isOwnToString(tostring)
		var b strings.Builder
		for i := 1; i <= n; i++ {
			var s lua.LValue
			if own {
				s = toStringValue(L, L.Get(i))
			} else {
				s = call1(L, tostring, L.Get(i))
			}
			switch s := s.(type) {
			case lua.LString:
				if nul := strings.IndexByte(string(s), 0); nul >= 0 {
					s = s[:nul]
				}
				if len(s) >= largeAllocation {
					// Written as it is, not copied: as lua5.1's
					// fputs, it takes no memory.
					_, _ = io.WriteString(w, b.String())
					_, _ = io.WriteString(w, string(s))
					b.Reset()
				} else {
					b.WriteString(string(s))
				}
			case lua.LNumber:
				b.WriteString(NumberToString(s))
			default:
				luaError(L, "'tostring' must return a string to 'print'")
			}
			if i < n {
				b.WriteByte('\t')
			}
		}
		b.WriteByte('\n')
		_, _ = io.WriteString(w, b.String())
		return 0
	}
}

// ownToString is the upvalue that marks this package's tostring: Go
// functions can't be compared.
const ownToString = lua.LString("lua51.tostring")

// newToString makes this package's tostring for L.
func newToString(L *lua.LState) *lua.LFunction {
	return L.NewClosure(baseToString, ownToString)
}

// isOwnToString reports whether f is this package's tostring, which print
// then runs without a call through the Lua stack.
func isOwnToString(f lua.LValue) bool {
	fn, ok := f.(*lua.LFunction)
	return ok && fn.IsG && len(fn.Upvalues) == 1 && fn.Upvalues[0].Value() == ownToString
}

// checkString is luaL_checkstring: argument n as a string, a number
// converted with NumberToString; anything else is an argument error
// ("string expected, got no value"). The pattern functions use it too.
func checkString(L *lua.LState, n int) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return NumberToString(v)
	}
	typeError(L, n, "string")
	return ""
}

// optString is luaL_optstring: checkString, or d when argument n is nil or
// absent.
func optString(L *lua.LState, n int, d string) string {
	if L.Get(n) == lua.LNil {
		return d
	}
	return checkString(L, n)
}

// checkNumber is luaL_checknumber: argument n as a number, a string
// converted with ParseNumber.
func checkNumber(L *lua.LState, n int) lua.LNumber {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return v
	case lua.LString:
		if f, ok := ParseNumber(string(v)); ok {
			return f
		}
	}
	typeError(L, n, "number")
	return 0
}

// optNumber is luaL_optnumber.
func optNumber(L *lua.LState, n int, d lua.LNumber) lua.LNumber {
	if L.Get(n) == lua.LNil {
		return d
	}
	return checkNumber(L, n)
}

// checkInteger is luaL_checkinteger: checkNumber truncated toward zero, as
// the C cast does on x86-64; NaN and values out of range give the cast's
// result there, math.MinInt64.
func checkInteger(L *lua.LState, n int) int {
	return toInteger(checkNumber(L, n))
}

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, d int) int {
	if L.Get(n) == lua.LNil {
		return d
	}
	return checkInteger(L, n)
}

// toInteger converts as the C cast (lua_Integer)d does on x86-64.
func toInteger(f lua.LNumber) int {
	if f != f || f >= 9223372036854775807 || f < -9223372036854775808 {
		return -9223372036854775808
	}
	return int(f)
}

// cInt converts as Lua 5.1's (int)lua_Integer of a number does: toInteger
// cut to its low 32 bits.
func cInt(f lua.LNumber) int { return int(int32(toInteger(f))) }

// checkAny is luaL_checkany: argument n must be present, nil included.
func checkAny(L *lua.LState, n int) lua.LValue {
	if n > L.GetTop() {
		argError(L, n, "value expected")
	}
	return L.Get(n)
}

// checkTable is luaL_checktype(L, n, LUA_TTABLE).
func checkTable(L *lua.LState, n int) *lua.LTable {
	if t, ok := L.Get(n).(*lua.LTable); ok {
		return t
	}
	typeError(L, n, "table")
	return nil
}

// typeName is luaL_typename, "no value" for an absent argument.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// typeError raises Lua 5.1's "<want> expected, got <type>" for argument n.
func typeError(L *lua.LState, n int, want string) {
	argError(L, n, want+" expected, got "+typeName(L, n))
}

// argError is luaL_argerror: "bad argument #n to 'name' (msg)", msg in
// Lua 5.1's words, raised as luaError raises it, with the function named as
// Lua 5.1 names it (gopher-lua's own ArgError leaves the name unquoted and
// names a function called from Go "main chunk"). A method call (s:rep())
// does not count self, and a bad self is "calling 'name' on bad self".
func argError(L *lua.LState, n int, msg string) {
	name, method := calledFunction(L)
	if method {
		n--
		if n == 0 {
			luaError(L, "calling '%s' on bad self (%s)", name, msg)
		}
	}
	luaError(L, "bad argument #%d to '%s' (%s)", n, name, msg)
}

// installString replaces the string functions that take strings or numbers
// (numbers as NumberToString), with Lua 5.1's argument rules; the pattern
// functions are replaced by installPatterns. The string metatable becomes
// Lua 5.1's, {__index = string}, plus the arithmetic of installStringArith;
// gopher-lua uses the string table itself, which shows as string.__index.
func installString(L *lua.LState) {
	str := library(L, "string")
	if str == nil {
		return
	}
	str.RawSetString("__index", lua.LNil)
	setFuncs(L, str, map[string]lua.LGFunction{
		"byte":    strByte,
		"char":    strChar,
		"len":     strLen,
		"lower":   strLower,
		"upper":   strUpper,
		"rep":     strRep,
		"reverse": strReverse,
		"sub":     strSub,
		"format":  strFormat,
		"dump":    strDump,
	})
	mt := L.NewTable()
	mt.RawSetString("__index", str)
	L.SetMetatable(lua.LString(""), mt)
}

// posRelative is posrelat of lstrlib.c: a negative position counts from the
// end of a string of length n.
func posRelative(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

// strSub is string.sub(s, i [, j]).
func strSub(L *lua.LState) int {
	s := checkString(L, 1)
	start := posRelative(checkInteger(L, 2), len(s))
	end := posRelative(optInteger(L, 3, -1), len(s))
	if start < 1 {
		start = 1
	}
	if end > len(s) {
		end = len(s)
	}
	if start > end {
		L.Push(lua.LString(""))
	} else {
		L.Push(lua.LString(s[start-1 : end]))
	}
	return 1
}

// strByte is string.byte(s [, i [, j]]).
func strByte(L *lua.LState) int {
	s := checkString(L, 1)
	posi := posRelative(optInteger(L, 2, 1), len(s))
	pose := posRelative(optInteger(L, 3, posi), len(s))
	if posi < 1 {
		posi = 1
	}
	if pose > len(s) {
		pose = len(s)
	}
	if posi > pose {
		return 0
	}
	if pose-posi >= maxResults {
		luaError(L, "string slice too long")
	}
	reserveProduct(L, pose-posi+1, valueSize)
	if pose-posi >= stackRoom(L)-minStack {
		luaError(L, "string slice too long")
	}
	chargeItems(L, pose-posi+1)
	for i := posi; i <= pose; i++ {
		L.Push(lua.LNumber(s[i-1]))
	}
	return pose - posi + 1
}

// strChar is string.char(...): each argument a byte value.
func strChar(L *lua.LState) int {
	n := L.GetTop()
	chargeItems(L, n)
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := checkInt(L, i)
		if c < 0 || c > 255 {
			argError(L, i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}

// strLen is string.len(s).
func strLen(L *lua.LState) int {
	L.Push(lua.LNumber(len(checkString(L, 1))))
	return 1
}

// strLower is string.lower(s) in the C locale: only ASCII letters change.
func strLower(L *lua.LState) int {
	s := checkString(L, 1)
	reserve(L, len(s))
	chargeBytes(L, len(s))
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// strUpper is string.upper(s) in the C locale.
func strUpper(L *lua.LState) int {
	s := checkString(L, 1)
	reserve(L, len(s))
	chargeBytes(L, len(s))
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// strRep is string.rep(s, n): Lua 5.1 has no separator argument. A result
// past the memory budget is Lua 5.1's "not enough memory", before anything
// is allocated.
func strRep(L *lua.LState) int {
	s := checkString(L, 1)
	n := checkInt(L, 2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	reserveProduct(L, n, len(s))
	chargeBytes(L, n*len(s))
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// strReverse is string.reverse(s), byte by byte.
func strReverse(L *lua.LState) int {
	s := checkString(L, 1)
	reserve(L, len(s))
	chargeBytes(L, len(s))
	b := make([]byte, len(s))
	for i := range b {
		b[i] = s[len(s)-1-i]
	}
	L.Push(lua.LString(b))
	return 1
}

// installStringArith gives strings Lua 5.1's arithmetic coercion: gopher-lua
// converts a string operand with Go's number syntax (so "12\r" + 1 fails
// and "010" + 0 is 8), but consults the string metatable first, so these
// metamethods convert with ParseNumber and raise Lua 5.1's error for a
// string that is not a number.
func installStringArith(L *lua.LState) {
	mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable)
	if !ok {
		return
	}
	ops := map[string]func(a, b float64) float64{
		"__add": func(a, b float64) float64 { return a + b },
		"__sub": func(a, b float64) float64 { return a - b },
		"__mul": func(a, b float64) float64 { return a * b },
		"__div": func(a, b float64) float64 { return a / b },
		"__mod": func(a, b float64) float64 { return float64(luaMod(lua.LNumber(a), lua.LNumber(b))) },
		"__pow": luaPow,
		"__unm": func(a, _ float64) float64 { return -a },
	}
	for event, op := range ops {
		mt.RawSetString(event, L.NewFunction(stringArith(event, op)))
	}
}

// stringArith makes the metamethod event of one arithmetic operator on
// operands a and b (for __unm, b is a again). When an operand is not a
// number, the other operand's own metamethod is called if it has one, as
// Lua 5.1 would have found it (the string metatable has none there).
func stringArith(event string, op func(a, b float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		a := L.Get(1)
		b := a
		if event != "__unm" {
			b = L.Get(2)
		}
		x, okA := toNumber(a)
		y, okB := toNumber(b)
		if okA && okB {
			L.Push(lua.LNumber(op(float64(x), float64(y))))
			return 1
		}
		for _, v := range []lua.LValue{a, b} {
			if _, isString := v.(lua.LString); isString {
				continue
			}
			if fn := L.GetMetaField(v, event); fn != lua.LNil {
				L.Push(call1(L, fn, a, b))
				return 1
			}
		}
		if !okA {
			arithError(L, a, false)
		}
		arithError(L, b, true)
		return 0
	}
}

// arithError is luaG_aritherror for the operand v that is not a number,
// the second operand of the instruction or the first, named as Lua 5.1
// names it.
func arithError(L *lua.LState, v lua.LValue, second bool) {
	luaError(L, "%s", operandError(v, "perform arithmetic on", arithOperandName(L, second)))
}

// toNumber is Lua 5.1's tonumber of a value: numbers, and strings that
// ParseNumber reads.
func toNumber(v lua.LValue) (lua.LNumber, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return v, true
	case lua.LString:
		return ParseNumber(string(v))
	}
	return 0, false
}

// luaError is luaL_error: the message formatted, preceded by the position
// of the calling Lua code when a Lua function called the Go function that
// raises it (not when, say, pcall called it directly).
func luaError(L *lua.LState, format string, args ...any) {
	L.Error(lua.LString(Where(L, 1)+fmt.Sprintf(format, args...)), 0)
}
