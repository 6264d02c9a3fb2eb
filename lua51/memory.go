package lua51

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/sys/unix"
)

// A Lua universe has a memory budget: Options.MemoryLimit, the command's
// --memory-limit. Go cannot tell one state's memory from another's, so the
// budget bounds the Go heap of the whole process as this universe sees it
// when it allocates: a library function that builds a string or a table
// checks, before it allocates, that the heap has room for what it builds
// (reserve), and the interpreter's own growth (tables, closures, strings
// of the VM) is checked every checkEvery instructions. Past the budget the
// call raises Lua 5.1's "not enough memory", which pcall catches; before
// saying so, a full collection makes sure the heap is really that full.
// Several universes in one process (a campaign's workers) see the same
// heap, so each budget is the process's.

// errNotEnoughMemory is Lua 5.1's error of a failed allocation, with no
// position.
const errNotEnoughMemory = lua.LString("not enough memory")

// largeAllocation is the size from which a library function checks the
// budget before it allocates; smaller ones are left to the periodic check.
const largeAllocation = 64 << 10

// memoryBudget is the memory budget of a universe, in bytes of Go heap.
type memoryBudget struct {
	limit   int64
	pending int64 // bytes counted by allocated since the last check
}

// checkBytes is how many bytes allocated counts between two checks of the
// budget.
const checkBytes = 1 << 20

// allocated counts n bytes that the interpreter allocates for L's universe
// outside a library function's buffers (a coroutine's state) and checks
// the budget each time they add up to checkBytes: many of them within the
// instructions between two periodic checks (2,000 coroutines, 44 MiB)
// could take the rest of the address space under ulimit -v. It counts no
// instructions, so instruction budgets are left as they are.
func (b *memoryBudget) allocated(L *lua.LState, n int64) {
	if b.pending += n; b.pending >= checkBytes {
		b.pending = 0
		b.check(L, 0)
	}
}

// check raises "not enough memory" in L unless the heap has room for n
// more bytes within the budget.
func (b *memoryBudget) check(L *lua.LState, n int64) {
	if b.fits(n) {
		return
	}
	L.Error(errNotEnoughMemory, 0)
}

// fits reports whether the heap, after a collection if it looks full, has
// room for n more bytes within the budget. A heap that a collection leaves
// within an eighth of the budget counts as full: a script that close to
// its budget is stopped rather than slowed down by a collection at every
// check.
func (b *memoryBudget) fits(n int64) bool {
	if n > b.limit {
		return false
	}
	if heap := int64(heapBytes()); heap <= b.limit-n && addressSpaceFits(heap, n) {
		return true
	}
	runtime.GC()
	live := int64(heapBytes())
	return live <= b.limit-n && live <= b.limit-b.limit/8 && addressSpaceFits(live, n)
}

// addressSpaceLimit is the process's address space limit (ulimit -v) in
// bytes, 0 for none, read once.
var addressSpaceLimit = sync.OnceValue(func() int64 {
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &r) != nil || r.Cur == unix.RLIM_INFINITY || r.Cur > math.MaxInt64 {
		return 0
	}
	return int64(r.Cur)
})

// addressSpaceFits reports whether, under an address space limit, the
// process has room for n more bytes and for the heap of heap bytes to
// grow by as much again: Go keeps the address space its heap ever took,
// and a table's array that doubles needs its new size in one piece, so a
// heap well within the budget can still find no room left to grow. With
// no such limit it is always true; with one, it reads the process's size
// (a few microseconds, at each check of the budget).
func addressSpaceFits(heap, n int64) bool {
	limit := addressSpaceLimit()
	if limit == 0 {
		return true
	}
	return processSize()+2*heap+n <= limit
}

// processSize is the process's virtual size in bytes, as /proc/self/statm
// says (0 when it can't be read).
func processSize() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	pages, _, _ := strings.Cut(string(b), " ")
	n, err := strconv.ParseInt(pages, 10, 64)
	if err != nil {
		return 0
	}
	return n * int64(os.Getpagesize())
}

// reserve raises Lua 5.1's "not enough memory" in L unless the memory
// budget of L's universe has room for n more bytes. Library functions call
// it before they allocate n bytes (a buffer that grows checks through
// growth); below largeAllocation it checks nothing.
func reserve(L *lua.LState, n int) {
	if n >= largeAllocation {
		reserveLarge(L, n)
	}
}

// reserveLarge is reserve of a large size.
func reserveLarge(L *lua.LState, n int) {
	if m := monitorOf(L); m != nil {
		m.memory.check(L, int64(n))
	}
}

// reserveProduct is reserve of count items of size bytes each, which may
// not fit an int.
func reserveProduct(L *lua.LState, count, size int) {
	if count > 0 && size > 0 && count > math.MaxInt/size {
		L.Error(errNotEnoughMemory, 0)
	}
	reserve(L, count*size)
}

// growth checks the budget as a buffer grows: each time its size grows by
// a quarter past largeAllocation, the budget must have room for another
// quarter. Go's append grows a large buffer by about a quarter at a time and
// the address space of the buffers it left stays taken, so under ulimit -v
// a check at each doubling let the growth in between (four appends, their
// buffers side by side) take the rest of the address space.
type growth struct {
	L    *lua.LState
	next int
}

// grew is called with the buffer's size after it grew.
func (g *growth) grew(size int) {
	if size < max(g.next, largeAllocation) {
		return
	}
	reserveLarge(g.L, size/4)
	g.next = size + size/4
}

// monitorOf is the monitor of L's universe, nil for a state Install did
// not set up.
func monitorOf(L *lua.LState) *monitor {
	if ud, ok := L.G.Registry.RawGetString(registryKey).(*lua.LUserData); ok {
		if p, ok := ud.Value.(*protector); ok {
			return p.monitor
		}
	}
	return nil
}

// DefaultMemoryLimit is the memory budget of a state whose Options give
// none: half the machine's memory, and less when the process's address
// space (ulimit -v) or data segment (ulimit -d) is limited: a third of
// what is left of it, which leaves room for the last growth a check lets
// through (a table's array doubling) and for the Go runtime. It is worked
// out once, the first time it is needed.
func DefaultMemoryLimit() int64 { return defaultMemoryLimit() }

// defaultMemoryLimit works DefaultMemoryLimit out once.
var defaultMemoryLimit = sync.OnceValue(func() int64 {
	limit := int64(math.MaxInt64)
	var info unix.Sysinfo_t
	if unix.Sysinfo(&info) == nil && info.Totalram > 0 {
		limit = int64(uint64(info.Totalram) * uint64(info.Unit) / 2)
	}
	vmSize, vmData := processSizes()
	for _, rl := range []struct {
		resource int
		used     int64
	}{{unix.RLIMIT_AS, vmSize}, {unix.RLIMIT_DATA, vmData}} {
		var r unix.Rlimit
		if unix.Getrlimit(rl.resource, &r) != nil || r.Cur == unix.RLIM_INFINITY || r.Cur > math.MaxInt64 {
			continue
		}
		limit = min(limit, max(int64(r.Cur)-rl.used, 0)/3)
	}
	return limit
})

// processSizes are the process's virtual size and data segment in bytes,
// as /proc/self/status says (0 when it can't be read).
func processSizes() (vmSize, vmData int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmSize":
			vmSize = kb << 10
		case "VmData":
			vmData = kb << 10
		}
	}
	return vmSize, vmData
}

// memoryUnits are the units ParseMemorySize accepts.
var memoryUnits = map[string]int64{
	"": 1, "B": 1,
	"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
}

// ParseMemorySize reads a size in bytes such as "512MiB", "4GiB", "1.5GB"
// or "1000000": a number, then B, KB, MB, GB, TB (powers of 1000) or KiB,
// MiB, GiB, TiB (powers of 1024). It must be positive.
func ParseMemorySize(s string) (int64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	if i < 0 {
		i = len(s)
	}
	number, unit := s[:i], strings.TrimSpace(s[i:])
	n, err := strconv.ParseFloat(number, 64)
	scale, known := memoryUnits[unit]
	if err != nil || !known || n <= 0 || n*float64(scale) >= math.MaxInt64 || n*float64(scale) < 1 {
		return 0, fmt.Errorf("memory size %q: give a positive number of bytes with a unit, such as 512MiB or 4GiB (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", s)
	}
	return int64(n * float64(scale)), nil
}

// gopher-lua keeps a table's integer keys from 1 to lua.MaxArrayIndex
// (2^26) in its array part, and a store past the array's end appends nils
// one at a time until the array reaches the key: t[2^26 - 1] = 1 on an
// empty table makes a 1 GiB array within one instruction, which the
// budget's periodic check cannot stop, and which ends the process when the
// address space (ulimit -v) has no room for it. So every store whose key
// may be such a number checks the budget first (reserveIndex): the
// interpreter's t[k] = v and constructor keys, which the loader rewrites
// (store.go), rawset and table.insert.

// arrayItemBytes is the size of one item of a table's array part (a Go
// interface value).
const arrayItemBytes = 16

// fillKeys is the smallest key whose fill can allocate largeAllocation
// bytes; smaller ones are left to the periodic check.
const fillKeys = largeAllocation / arrayItemBytes

// reserveIndex raises "not enough memory" in L unless the memory budget
// has room for what storing key in t allocates: when key is an integer
// past the end of t's array part that gopher-lua keeps in that part, an
// array of about key items and, while it grows, the copy it grows from.
func reserveIndex(L *lua.LState, t *lua.LTable, key lua.LValue) {
	n, ok := key.(lua.LNumber)
	if !ok || n < fillKeys || n >= lua.LNumber(lua.MaxArrayIndex) || n != lua.LNumber(int(n)) {
		return
	}
	if int(n) > tableArrayLen(t)+1 {
		reserveLarge(L, 2*arrayItemBytes*int(n))
	}
}

// reserveKey is reserveIndex for a key of a table a constructor is
// building, whose array part is at most as long as the constructor's
// positional items before it: such a key is checked as if the array were
// empty.
func reserveKey(L *lua.LState, key lua.LValue) {
	if n, ok := key.(lua.LNumber); ok && n >= fillKeys && n < lua.LNumber(lua.MaxArrayIndex) && n == lua.LNumber(int(n)) {
		reserveLarge(L, 2*arrayItemBytes*int(n))
	}
}
