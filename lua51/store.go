package lua51

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"golang.org/x/sys/unix"
)

// A store t[k] = v whose key is not a constant string, or is a constant
// number of fillKeys or more, may make gopher-lua fill t's array part up
// to k within one instruction (memory.go, reserveIndex). So the loader
// rewrites it into a call of the hidden function, which checks the memory
// budget before it stores, as Lua 5.1's luaV_settable does the rest:
//
//	t[k] = v        becomes  (operators)(id, t, k, v)
//	{[k] = v}       becomes  {[(operators)(id, k)] = v}
//
// The stores of an assignment that is rewritten into hidden locals
// (assign.go) are such calls too. The call costs a store about 75 ns (the
// interpreter's own store of an existing key takes about 50), so the
// loader rewrites stores only where a fill can end the process: when the
// address space (ulimit -v) or the data segment (ulimit -d) is limited.
// Elsewhere the next periodic check stops a script whose fill took it past
// its budget, and rawset and table.insert check before they store.

// checkStores is whether the loader rewrites stores so.
var checkStores = limited(unix.RLIMIT_AS) || limited(unix.RLIMIT_DATA)

// limited reports whether the process's limit of resource is set.
func limited(resource int) bool {
	var r unix.Rlimit
	return unix.Getrlimit(resource, &r) == nil && r.Cur != unix.RLIM_INFINITY
}

// smallKey reports whether k is a constant string, or a constant number
// below fillKeys, which cannot make a large fill.
func smallKey(k ast.Expr) bool {
	switch k := k.(type) {
	case *ast.StringExpr:
		return true
	case *ast.NumberExpr:
		n, err := strconv.ParseFloat(k.Value, 64)
		return err == nil && n < fillKeys
	}
	return false
}

// storeCall is the call (operators)(id, t, k, v) that replaces a, t[k] = v
// with one value and a key that is not small; nil when a is not such a
// store.
func (t *transformer) storeCall(a *ast.AssignStmt) ast.Stmt {
	if !checkStores || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
		return nil
	}
	if _, logical := a.Rhs[0].(*ast.LogicalOpExpr); logical {
		return nil // assignment holds it first
	}
	target, ok := a.Lhs[0].(*ast.AttrGetExpr)
	if !ok || smallKey(target.Key) {
		return nil
	}
	return t.store(a, t.expr(target.Object), t.expr(target.Key), t.expr(a.Rhs[0]))
}

// store is the statement (operators)(id, table, key, value) that stands
// for a, whose operands are transformed already.
func (t *transformer) store(a *ast.AssignStmt, table, key, value ast.Expr) ast.Stmt {
	call := t.call(value, opStore, table, key, value).(*ast.FuncCallExpr)
	stmt := &ast.FuncCallStmt{Expr: call}
	stmt.SetLine(a.Line())
	stmt.SetLastLine(a.LastLine())
	return stmt
}

// constructorKey is k, a transformed key of a constructor's [k] = v, or
// the call (operators)(id, k) that checks the budget for it when it is
// not small.
func (t *transformer) constructorKey(k ast.Expr) ast.Expr {
	if !t.rewrite || !checkStores || smallKey(k) {
		return k
	}
	return t.call(k, opKey, k)
}

// maxTagLoop is how many __newindex tables Lua 5.1 follows before it
// gives up (MAXTAGLOOP).
const maxTagLoop = 100

// storeValue is t[k] = v as Lua 5.1's luaV_settable does it: a raw store
// into a table that has the key or no __newindex, else the __newindex
// function called or the __newindex table indexed in turn. Before a raw
// store it checks the memory budget for what gopher-lua allocates
// (reserveIndex).
func storeValue(L *lua.LState, s *site, t, k, v lua.LValue) {
	if tb, ok := t.(*lua.LTable); ok && tb.Metatable == lua.LNil {
		rawStore(L, tb, k, v)
		return
	}
	cur := t
	for range maxTagLoop {
		tb, isTable := cur.(*lua.LTable)
		if isTable && tb.RawGet(k) != lua.LNil {
			tb.RawSet(k, v)
			return
		}
		tm := L.GetMetaField(cur, "__newindex")
		if tm == lua.LNil {
			if !isTable {
				name := ""
				if cur == t {
					name = s.names[0]
				}
				luaError(L, "%s", operandError(cur, "index", name))
			}
			rawStore(L, tb, k, v)
			return
		}
		if fn, ok := tm.(*lua.LFunction); ok {
			L.Push(fn)
			L.Push(cur)
			L.Push(k)
			L.Push(v)
			L.Call(3, 0)
			return
		}
		cur = tm
	}
	luaError(L, "loop in settable")
}

// rawStore is rawset(t, k, v) with Lua 5.1's errors for a nil or NaN key,
// after the memory budget is checked (reserveIndex).
func rawStore(L *lua.LState, t *lua.LTable, k, v lua.LValue) {
	switch n, isNumber := k.(lua.LNumber); {
	case k == lua.LNil:
		luaError(L, "table index is nil")
	case isNumber && n != n:
		luaError(L, "table index is NaN")
	}
	reserveIndex(L, t, k)
	t.RawSet(k, v)
}
