package lua51

import (
	"context"
	"runtime"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/sys/unix"
)

// memoryCases each build something far larger than a budget of 16 MiB
// above the heap's size, in a library function or in a loop of the
// interpreter, inside pcall.
var memoryCases = []struct{ name, src string }{
	{"string.rep", `return string.rep("x", 1e10)`},
	{"rep of rep", `return ("x"):rep(1e6):rep(1e3)`},
	{"concat chain", `local s = ("x"):rep(6e6) return s .. s .. s`},
	{"concat in a loop", `local s = "" local piece = ("x"):rep(1e6) while true do s = s .. piece end`},
	{"table.concat", `local s, t = ("x"):rep(1e6), {} for i = 1, 200 do t[i] = s end return table.concat(t)`},
	{"string.format", `local s = ("x"):rep(6e6) return string.format("%s%s%s", s, s, s)`},
	{"string.format %q", `local s = ("\0"):rep(6e6) return string.format("%q", s)`},
	{"gsub", `local big = ("y"):rep(1e6) return (("x"):rep(200):gsub("x", big))`},
	{"gsub function", `local big = ("y"):rep(1e6) return (("x"):rep(200):gsub("x", function() return big end))`},
	{"string.byte", `local s = ("x"):rep(4e6) return select("#", s:byte(1, -1))`},
	{"unpack", `return select("#", unpack({}, 1, 4e6))`},
	{"upper", `local s = ("x"):rep(10e6) return s:upper(), s:lower(), s:reverse()`},
	{"append strings", `local t, s = {}, ("x"):rep(1000) while true do t[#t + 1] = s .. #t end`},
	{"append tables", `local t = {} while true do t[#t + 1] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16} end`},
	{"table.insert", `local t, s = {}, ("x"):rep(1000) while true do table.insert(t, s .. #t) end`},
	{"os.date", `return os.date(("%c"):rep(1e6))`},
	{"read *a", `local f = assert(io.open("/dev/zero")) return f:read("*a")`},
	{"read *l", `local f = assert(io.open("/dev/zero")) return f:read("*l")`},
	{"read n", `local f = assert(io.open("/dev/zero")) return f:read(1e9)`},
	{"coroutine", `local t = {}
		local co = coroutine.create(function() while true do t[#t + 1] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16} end end)
		error(select(2, coroutine.resume(co)), 0)`},
}

func TestNotEnoughMemory(t *testing.T) {
	// Each case fails with Lua 5.1's "not enough memory", which pcall
	// catches, and the state goes on.
	for _, c := range memoryCases {
		t.Run(c.name, func(t *testing.T) {
			runtime.GC()
			L := NewState(Options{MemoryLimit: int64(heapBytes()) + 16<<20})
			defer L.Close()
			err := callChunk(t, L, `local ok, err = pcall(function() `+c.src+` end)
				collectgarbage()
				return ok, err, ("x"):rep(1000):len()`, func(nargs int) error { return PCall(L, nargs, 3) })
			if err != nil {
				t.Fatal(err)
			}
			if ok, msg, after := L.Get(-3), L.Get(-2), L.Get(-1); ok != lua.LFalse || msg != lua.LString("not enough memory") || after != lua.LNumber(1000) {
				t.Errorf("pcall gave %v, %v, then %v; want false, \"not enough memory\", then 1000", ok, msg, after)
			}
		})
	}
}

func TestWithinTheMemoryBudget(t *testing.T) {
	// What fits the budget is built, however it is built.
	runtime.GC()
	L := NewState(Options{MemoryLimit: int64(heapBytes()) + 128<<20})
	defer L.Close()
	err := callChunk(t, L, `local s = ("x"):rep(20e6)
		local t = {} for i = 1, 3 do t[i] = s end
		return #(s .. s) + #table.concat(t) + #s:upper() + #string.format("%s", s)`, func(nargs int) error { return PCall(L, nargs, 1) })
	if err != nil || L.Get(-1) != lua.LNumber(140e6) {
		t.Errorf("got %v, %v; want 140e6 bytes built", L.Get(-1), err)
	}
}

func TestParseMemorySize(t *testing.T) {
	for s, want := range map[string]int64{
		"512MiB": 512 << 20, "4GiB": 4 << 30, "1.5GB": 1.5e9, "1000000": 1e6, "64KiB": 64 << 10, "2TB": 2e12, "100B": 100,
	} {
		if got, err := ParseMemorySize(s); err != nil || got != want {
			t.Errorf("ParseMemorySize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	if got, err := ParseMemorySize("4 GiB"); err != nil || got != 4<<30 {
		t.Errorf("ParseMemorySize(\"4 GiB\") = %d, %v", got, err)
	}
	for _, bad := range []string{"", "0", "-1GiB", "4gib", "GiB", "1e9", "4GiBs", "99999999999TiB", "0.1"} {
		if _, err := ParseMemorySize(bad); err == nil {
			t.Errorf("ParseMemorySize(%q) accepted", bad)
		}
	}
}

func TestDefaultMemoryLimit(t *testing.T) {
	// Half the machine's memory, or less under a limit of the address
	// space (the command's tests run it under ulimit -v).
	var info unix.Sysinfo_t
	if err := unix.Sysinfo(&info); err != nil {
		t.Fatal(err)
	}
	half := int64(uint64(info.Totalram) * uint64(info.Unit) / 2)
	if limit := DefaultMemoryLimit(); limit <= 0 || limit > half {
		t.Errorf("DefaultMemoryLimit() = %d, want at most half the machine's %d bytes", limit, 2*half)
	}
}

// TestMemoryIsCheckedAcrossShortResumes runs a coroutine that grows a table
// a few instructions at a time, resumed from the host step by step (as a
// device program is): however short each resume, the instructions add up
// to the memory budget's checks, and the growth ends in "not enough memory".
func TestMemoryIsCheckedAcrossShortResumes(t *testing.T) {
	runtime.GC()
	L := NewState(Options{MemoryLimit: int64(heapBytes()) + 16<<20})
	defer L.Close()
	fn, err := L.LoadString(`local t = {}
		while true do
			t[#t + 1] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}
			coroutine.yield()
		end`)
	if err != nil {
		t.Fatal(err)
	}
	th, _ := L.NewThread()
	for step := range 2_000_000 {
		st, _, err := ResumeBudget(context.Background(), L, th, fn, 1_000_000)
		if err != nil {
			if !strings.Contains(err.Error(), "not enough memory") {
				t.Fatalf("step %d: %v, want not enough memory", step, err)
			}
			return
		}
		if st != lua.ResumeYield {
			t.Fatalf("step %d: the coroutine ended (%v)", step, st)
		}
	}
	t.Fatal("2,000,000 short resumes grew the table past the memory budget with no check")
}
