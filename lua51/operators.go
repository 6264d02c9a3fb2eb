package lua51

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// operators is the hidden function of one chunk (see rewrite.go): it knows
// the operations the chunk's calls of it stand for.
type operators struct {
	sites []site
}

// call is (operators)(id, operands...): the operation numbered id, as Lua
// 5.1's VM does it.
func (o *operators) call(L *lua.LState) int {
	top := L.GetTop()
	id, _ := L.Get(1).(lua.LNumber)
	i := int(id) - 1
	if i < 0 || i >= len(o.sites) || top < 2 {
		// Only debug.getlocal can reach this function, and call it so.
		luaError(L, "invalid call of the hidden function %s", operatorsName)
	}
	s := &o.sites[i]
	switch s.op {
	case opConcat:
		if str, ok := joinStrings(L, 2, top); ok {
			L.Push(lua.LString(str))
		} else {
			L.Push(concatValues(L, s, operandValues(L, top)))
		}
	case opArith:
		L.Push(arithmetic(L, s, L.Get(2), L.Get(3)))
	case opLen:
		L.Push(length(L, s, L.Get(2)))
	case opAppend:
		appendValue(L, s, L.Get(2), L.Get(3))
		return 0
	case opForBound:
		L.Push(forBound(L.Get(2)))
	case opTable:
		L.Push(buildTable(L, s))
	case opSpread:
		return spreadValues(L, s)
	case opStore:
		storeValue(L, s, L.Get(2), L.Get(3), L.Get(4))
		return 0
	case opKey:
		reserveKey(L, L.Get(2))
		L.Push(L.Get(2))
	}
	return 1
}

// forBound is v, an initial value, limit or step of a numeric for,
// converted to a number when it is a string that reads as one, as Lua
// 5.1's loop setup converts it (gopher-lua's takes numbers only); any other
// value is left for the loop setup to refuse with Lua 5.1's message.
func forBound(v lua.LValue) lua.LValue {
	if str, ok := v.(lua.LString); ok {
		if n, ok := toNumber(str); ok {
			return n
		}
	}
	return v
}

// smallNumbers are the numbers 0 to 1023 as Lua values, made once: a Go
// function's number result is otherwise a new allocation.
var smallNumbers = func() (n [1024]lua.LValue) {
	for i := range n {
		n[i] = lua.LNumber(i)
	}
	return n
}()

// number is n as a Lua value, without an allocation when it is a small
// whole number.
func number(n lua.LNumber) lua.LValue {
	if n >= 0 && n < lua.LNumber(len(smallNumbers)) && n == lua.LNumber(int(n)) && !math.Signbit(float64(n)) {
		return smallNumbers[int(n)]
	}
	return n
}

// luaMod is Lua 5.1's luai_nummod, a - floor(a/b)*b, rounded at each step
// as C does it (the conversions keep Go from fusing the multiply and the
// subtraction).
func luaMod(a, b lua.LNumber) lua.LNumber {
	x, y := float64(a), float64(b)
	q := float64(math.Floor(x/y) * y)
	return lua.LNumber(x - q)
}

// arith is the arithmetic operator op of numbers, as Lua 5.1's luai_num*
// macros compute it.
func arith(op string, a, b lua.LNumber) lua.LNumber {
	switch op {
	case "+":
		return a + b
	case "-":
		return a - b
	case "*":
		return a * b
	case "/":
		return a / b
	case "%":
		return luaMod(a, b)
	}
	return lua.LNumber(luaPow(float64(a), float64(b)))
}

// arithEvents are the metamethod events of the arithmetic operators.
var arithEvents = map[string]string{
	"+": "__add", "-": "__sub", "*": "__mul", "/": "__div", "%": "__mod", "^": "__pow",
}

// arithmetic is a <op> b as Lua 5.1's luaV_arith: numbers and strings that
// convert, else the operator's metamethod of a, then of b (strings have
// none in Lua 5.1), else the error naming the operand that is not a
// number.
func arithmetic(L *lua.LState, s *site, a, b lua.LValue) lua.LValue {
	x, okA := a.(lua.LNumber)
	y, okB := b.(lua.LNumber)
	if okA && okB {
		return number(arith(s.operator, x, y))
	}
	if x, okA = toNumber(a); okA {
		if y, okB = toNumber(b); okB {
			return number(arith(s.operator, x, y))
		}
	}
	for _, v := range []lua.LValue{a, b} {
		if _, isString := v.(lua.LString); isString {
			continue
		}
		if tm := L.GetMetaField(v, arithEvents[s.operator]); tm != lua.LNil {
			return callMetamethod(L, tm, a, b)
		}
	}
	bad, slot := b, 1
	if !okA {
		bad, slot = a, 0
	}
	luaError(L, "%s", operandError(bad, "perform arithmetic on", s.names[slot]))
	return nil
}

// length is #v as Lua 5.1's OP_LEN: a table's border (its __len is not
// called), a string's length, else the __len metamethod called with v and
// nil, else the error naming the operand.
func length(L *lua.LState, s *site, v lua.LValue) lua.LValue {
	switch v := v.(type) {
	case *lua.LTable:
		return number(lua.LNumber(v.Len()))
	case lua.LString:
		return number(lua.LNumber(len(v)))
	}
	if tm := L.GetMetaField(v, "__len"); tm != lua.LNil {
		return callMetamethod(L, tm, v, lua.LNil)
	}
	luaError(L, "%s", operandError(v, "get length of", s.names[0]))
	return nil
}

// appendValue is t[#t + 1] = v as Lua 5.1 does it: a table's border plus
// one, assigned raw unless the table's metatable has __newindex; anything
// else measured, summed and assigned as the three operations would be,
// with their errors.
func appendValue(L *lua.LState, s *site, t, v lua.LValue) {
	if tb, ok := t.(*lua.LTable); ok {
		n := tb.Len() + 1
		if mt, ok := tb.Metatable.(*lua.LTable); !ok || mt.RawGetString("__newindex") == lua.LNil {
			tb.RawSetInt(n, v)
			return
		}
		L.SetTable(tb, lua.LNumber(n), v)
		return
	}
	n := length(L, s, t)
	key := arithmetic(L, &site{op: opArith, operator: "+", names: operandNames{"", ""}}, n, lua.LNumber(1))
	if _, ok := t.(*lua.LUserData); !ok {
		luaError(L, "%s", operandError(t, "index", s.names[0]))
	}
	L.SetTable(t, key, v)
}

// operandValues are the operands of a concatenation, at stack indices 2
// to top.
func operandValues(L *lua.LState, top int) []lua.LValue {
	values := make([]lua.LValue, top-1)
	for i := range values {
		values[i] = L.Get(i + 2)
	}
	return values
}

// joinStrings joins the values at stack indices from..to when all are
// strings or numbers.
func joinStrings(L *lua.LState, from, to int) (string, bool) {
	n := 0
	for i := from; i <= to; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			n += len(v)
		case lua.LNumber:
			n += 8
		default:
			return "", false
		}
	}
	reserve(L, n)
	chargeBytes(L, n)
	var b strings.Builder
	b.Grow(n)
	for i := from; i <= to; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			b.WriteString(string(v))
		case lua.LNumber:
			b.WriteString(NumberToString(v))
		}
	}
	return b.String(), true
}

// concatValues is luaV_concat: from the right, runs of strings and numbers
// are joined and other pairs go through __concat; a value that can't be
// concatenated is an error naming the operand in its slot.
func concatValues(L *lua.LState, s *site, values []lua.LValue) lua.LValue {
	last := len(values) - 1
	for last > 0 {
		lhs, rhs := values[last-1], values[last]
		if !isStringOrNumber(lhs) || !isStringOrNumber(rhs) {
			values[last-1] = metaConcat(L, s, last, lhs, rhs)
			last--
			continue
		}
		first := last - 1
		for first > 0 && isStringOrNumber(values[first-1]) {
			first--
		}
		var b strings.Builder
		built := meter{growth: growth{L: L}}
		for _, v := range values[first : last+1] {
			b.WriteString(plainString(v))
			built.built(b.Len())
		}
		values[first] = lua.LString(b.String())
		last = first
	}
	return values[0]
}

// metaConcat calls the __concat metamethod of lhs or rhs (slots i-1 and i
// of the chain), or raises Lua 5.1's error.
func metaConcat(L *lua.LState, s *site, i int, lhs, rhs lua.LValue) lua.LValue {
	mm := L.GetMetaField(lhs, "__concat")
	if mm == lua.LNil {
		mm = L.GetMetaField(rhs, "__concat")
	}
	if mm == lua.LNil {
		bad, slot := lhs, i-1
		if isStringOrNumber(lhs) {
			bad, slot = rhs, i
		}
		luaError(L, "%s", operandError(bad, "concatenate", s.names[slot]))
	}
	return callMetamethod(L, mm, lhs, rhs)
}

// callMetamethod calls the metamethod tm of an operation with its operands
// and returns its first result; a tm that can't be called is Lua 5.1's
// error at the operation's position.
func callMetamethod(L *lua.LState, tm lua.LValue, a, b lua.LValue) lua.LValue {
	if _, ok := tm.(*lua.LFunction); !ok && L.GetMetaField(tm, "__call") == lua.LNil {
		luaError(L, "%s", operandError(tm, "call", ""))
	}
	return call1(L, tm, a, b)
}

// operandError is luaG_typeerror's message: "attempt to <op> global 'x' (a nil
// value)", or "attempt to <op> a nil value" without a name.
func operandError(v lua.LValue, op, name string) string {
	if name == "" {
		return fmt.Sprintf("attempt to %s a %s value", op, v.Type())
	}
	return fmt.Sprintf("attempt to %s %s (a %s value)", op, name, v.Type())
}
