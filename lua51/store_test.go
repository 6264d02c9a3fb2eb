package lua51

import (
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// allocatedBytes is how many bytes the process has allocated so far.
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func TestLargeIndexRefusedBeforeTheFill(t *testing.T) {
	// Each store makes gopher-lua fill an array of 2^26 - 1 slots (1 GiB)
	// in one step unless the budget is asked first: it fails with "not
	// enough memory" having allocated next to nothing, and the table is
	// left as it was.
	defer func(was bool) { checkStores = was }(checkStores)
	checkStores = true // as under ulimit -v
	for _, c := range []struct{ name, src string }{
		{"variable key", `local n = 2^26 - 1 t[n] = 1`},
		{"constant key", `t[2^26 - 1] = 1`},
		{"global table", `T = t local n = 2^26 - 1 T[n] = 1`},
		{"field", `local h = {t = t} local n = 2^26 - 1 h.t[n] = 1`},
		{"multiple assignment", `local n, x = 2^26 - 1 t[n], x = 1, 2`},
		{"multiple assignment, global table", `T = t local n, x = 2^26 - 1 T[n], x = 1, 2`},
		{"and/or value", `local n = 2^26 - 1 t[n] = n and 1`},
		{"__newindex table", `local p = setmetatable({}, {__newindex = t}) local n = 2^26 - 1 p[n] = 1`},
		{"rawset", `rawset(t, 2^26 - 1, 1)`},
		{"table.insert", `table.insert(t, 2^26 - 1, 1)`},
		{"constructor", `local n = 2^26 - 1 t = {[n] = 1}`},
		{"constant in a constructor", `t = {1, 2, [2^26 - 1] = 1}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			runtime.GC()
			L := NewState(Options{MemoryLimit: int64(heapBytes()) + 64<<20})
			defer L.Close()
			before := allocatedBytes()
			err := callChunk(t, L, `local t = {1, 2, 3}
				local ok, err = pcall(function() `+c.src+` end)
				return ok, err, #t`, func(nargs int) error { return PCall(L, nargs, 3) })
			if err != nil {
				t.Fatal(err)
			}
			if allocated := allocatedBytes() - before; allocated > 32<<20 {
				t.Errorf("%d MiB allocated before the store was refused", allocated>>20)
			}
			if ok, msg, n := L.Get(-3), L.Get(-2), L.Get(-1); ok != lua.LFalse || msg != lua.LString("not enough memory") || n != lua.LNumber(3) {
				t.Errorf("pcall gave %v, %v, and #t is %v; want false, \"not enough memory\", 3", ok, msg, n)
			}
		})
	}
}

func TestStoresWithinTheBudget(t *testing.T) {
	// The rewritten stores store as Lua 5.1 does: keys of every type, past
	// the array's end within the budget, through __newindex functions and
	// tables.
	defer func(was bool) { checkStores = was }(checkStores)
	checkStores = true
	L := NewState(Options{})
	defer L.Close()
	err := callChunk(t, L, `local t, out = {}, {}
		local keys = {1, 5000, 2^26 + 1, -1, 0.5, "s", true, t}
		for i, k in ipairs(keys) do t[k] = i end
		for i, k in ipairs(keys) do out[#out + 1] = tostring(t[k] == i) end
		local log = {}
		local back = {}
		local p = setmetatable({}, {__newindex = setmetatable(back, {__newindex = function(_, k, v) log[#log + 1] = k .. "=" .. v end})})
		local k = "a" p[k] = 1
		rawset(back, "b", "old") local j = "b" p[j] = 2
		local x, y = "c", 10000
		p[x], t[y] = 3, 4
		return table.concat(out, " ") .. "|" .. table.concat(log, " ") .. "|" .. tostring(back.b) .. tostring(rawget(p, "b")) .. "|" .. tostring(t[y])`,
		func(nargs int) error { return PCall(L, nargs, 1) })
	if err != nil {
		t.Fatal(err)
	}
	want := "true true true true true true true true|a=1 c=3|2nil|4"
	if got := L.Get(-1); got != lua.LString(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPushesPastTheDataStackRefused(t *testing.T) {
	// unpack and string.byte of more values than the data stack has left
	// fail with Lua 5.1's errors: gopher-lua's own overflow, raised while a
	// Go function pushes, left the stack full, and the protected call that
	// caught it panicked out of the interpreter pushing it.
	for _, c := range []struct{ src, want string }{
		{`local t = {} for i = 1, 2^20 do t[i] = i end
			local function f(...) return {...} end
			for j = 1, 3 do t[j] = f(unpack(t)) end`, "too many results to unpack"},
		{`local s = ("x"):rep(2^20)
			local function f(...) return s:byte(1, -1) end
			f(unpack({}, 1, 2^19))`, "string slice too long"},
	} {
		L := NewState(Options{})
		err := callChunk(t, L, `return pcall(function() `+c.src+` end)`, func(nargs int) error { return PCall(L, nargs, 2) })
		if err != nil {
			t.Fatal(err)
		}
		if ok, msg := L.Get(-2), L.Get(-1).String(); ok != lua.LFalse || !strings.HasSuffix(msg, c.want) {
			t.Errorf("pcall gave %v, %q; want false and %q", ok, msg, c.want)
		}
		L.Close()
	}
}
