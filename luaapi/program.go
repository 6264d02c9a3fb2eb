package luaapi

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/internal/input"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/lua51"
	"github.com/residentlua/residentlua/luaprogram"
	"github.com/residentlua/residentlua/programs/exchange"
)

// programValue is what a program userdata (resident.program) holds.
type programValue struct {
	m    *Module
	prog *luaprogram.Program
}

// maxInstructions bounds a program's instructions limit.
const maxInstructions = 1e12

// program makes a device program written in Lua:
// resident.program{file = PATH} or resident.program{source = STRING, name = NAME},
// with instructions = N to change how many Lua instructions it may run
// between two memory operations, and check_instructions = N how many its
// check and its buffers declaration may run in all.
func (m *Module) program(L *lua.LState) int {
	const name = "program"
	t := fields(L, 1, name, false, "file", "source", "name", "instructions", "check_instructions")
	file, source := field(t, "file"), field(t, "source")
	opts := luaprogram.Options{Stdout: m.stdout, Instructions: luaprogram.DefaultInstructions, CheckInstructions: luaprogram.DefaultCheckInstructions, MemoryLimit: lua51.MemoryLimit(L)}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"instructions", &opts.Instructions}, {"check_instructions", &opts.CheckInstructions}} {
		if v := field(t, f.key); v != lua.LNil {
			n, ok := v.(lua.LNumber)
			if !ok || float64(n) != math.Trunc(float64(n)) || n < 1000 || n > maxInstructions {
				m.invalid(L, name, "%s: give a whole number of Lua instructions from 1000 to 1e12, got %s", f.key, v.String())
			}
			*f.dst = int64(n)
		}
	}
	var chunkname, text string
	switch {
	case file != lua.LNil && source != lua.LNil:
		argError(L, 1, name, "give file or source, not both")
	case file != lua.LNil:
		path := stringField(L, 1, name, t, "file", "")
		if m.opts.Sandbox {
			m.invalid(L, name, "this state has no file access (its host sandboxed it); give the program's text as source")
		}
		path = m.scriptRelative(path)
		b, err := input.ReadFile(path, input.LuaSource)
		if err != nil {
			m.invalid(L, name, "cannot read program %s: %s", path, strings.TrimPrefix(err.Error(), "open "+path+": "))
		}
		if m.opts.OnRead != nil {
			m.opts.OnRead(path, b)
		}
		chunkname, text = "@"+path, string(b)
		if field(t, "name") != lua.LNil {
			argError(L, 1, name, "name goes with source; a file's program is named by its path")
		}
	case source != lua.LNil:
		text = stringField(L, 1, name, t, "source", "")
		chunkname = "=" + stringField(L, 1, name, t, "name", "program")
	default:
		argError(L, 1, name, "give the program's file, or its text as source")
	}
	p, err := m.compile(lua51.HostContext(L), chunkname, text, opts)
	if err != nil {
		m.invalid(L, name, "%s", err.Error())
	}
	ud := L.NewUserData()
	ud.Value = &programValue{m: m, prog: p}
	L.SetMetatable(ud, m.programMeta)
	L.Push(ud)
	return 1
}

// scriptRelative is path as resident.program finds it: a relative path
// that names a file in the script's folder (Options.ScriptDir) is that
// file; any other is as given, from the working directory.
func (m *Module) scriptRelative(path string) string {
	if m.opts.ScriptDir == "" || filepath.IsAbs(path) {
		return path
	}
	beside := filepath.Join(m.opts.ScriptDir, path)
	if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
		return beside
	}
	return path
}

// maxPrograms is how many compiled programs a module keeps for reuse: each
// holds Lua states of a few hundred KB, and a script that makes a program
// of a new text in every trial would otherwise keep them all.
const maxPrograms = 64

// compile returns the program of text, compiled once per module and kept
// (the maxPrograms used last), so that a campaign worker's trials reuse its
// Lua states. A program dropped from the cache lives on while the script
// holds it. A long compile ends once ctx does (luaprogram.CompileContext).
func (m *Module) compile(ctx context.Context, chunkname, text string, opts luaprogram.Options) (*luaprogram.Program, error) {
	sum := sha256.Sum256([]byte(chunkname + "\x00" + text + "\x00" + lua.LNumber(opts.Instructions).String() + "\x00" + lua.LNumber(opts.CheckInstructions).String()))
	key := string(sum[:])
	if p, ok := m.programs[key]; ok {
		m.programOrder = append(slices.DeleteFunc(m.programOrder, func(k string) bool { return k == key }), key)
		return p, nil
	}
	p, err := luaprogram.CompileContext(ctx, chunkname, text, opts)
	if err != nil {
		return nil, err
	}
	if m.programs == nil {
		m.programs = map[string]*luaprogram.Program{}
	}
	if len(m.programOrder) >= maxPrograms {
		delete(m.programs, m.programOrder[0])
		m.programOrder = slices.Delete(m.programOrder, 0, 1)
	}
	m.programs[key] = p
	m.programOrder = append(m.programOrder, key)
	return p, nil
}

// newProgramMeta makes the metatable of program userdata.
func (m *Module) newProgramMeta(L *lua.LState) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__name", lua.LString("resident.program"))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("program " + m.checkProgram(L, 1, "__tostring").prog.Name()))
		return 1
	}))
	index := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		p := m.checkProgram(L, 1, "__index")
		if key, _ := L.Get(2).(lua.LString); key == "name" {
			L.Push(lua.LString(p.prog.Name()))
			return 1
		}
		L.Push(index.RawGet(L.Get(2)))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("resident.program"))
	return mt
}

// checkProgram reads argument n as a program.
func (m *Module) checkProgram(L *lua.LState, n int, name string) *programValue {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		if p, ok := ud.Value.(*programValue); ok && p.m == m {
			return p
		}
	}
	typeError(L, n, name, "program")
	return nil
}

// asProgram is v as a program of this module, or nil.
func (m *Module) asProgram(v lua.LValue) *programValue {
	if ud, ok := v.(*lua.LUserData); ok {
		if p, ok := ud.Value.(*programValue); ok && p.m == m {
			return p
		}
	}
	return nil
}

// programSession is what a session of user programs keeps for its stats.
type programSession struct {
	gpu, npu string // the programs' names
	queue    devices.Command
}

// startupPrograms makes a session of two user programs:
// resident.startup{gpu = PROGRAM, npu = PROGRAM, queue =, buffers =, args =}.
func (m *Module) startupPrograms(L *lua.LState, t *lua.LTable, gpu *programValue, gk *kernelValue, npu *programValue) int {
	const name = "startup"
	for _, shape := range []string{"rounds", "credits", "slot_bytes"} {
		if field(t, shape) != lua.LNil {
			argError(L, 1, name, "field '"+shape+"': rounds, credits and slot_bytes shape the built-in exchange; give your programs their shape in args")
		}
	}
	if npu == nil {
		fieldError(L, 1, name, "npu", "program expected, got "+valueTypeName(field(t, "npu"))+" (a session of programs takes a GPU program and an NPU program)")
	}
	queue := m.queueOption(L, name, stringField(L, 1, name, t, "queue", "aql"), "queue")
	args, err := luaprogram.FreezeArgs(field(t, "args"))
	if err != nil {
		m.invalid(L, name, "%s", err.Error())
	}
	sizes := map[string]lua.LValue{}
	if bt := field(t, "buffers"); bt != lua.LNil {
		tt, ok := bt.(*lua.LTable)
		if !ok {
			fieldError(L, 1, name, "buffers", "table of sizes by name expected, got "+valueTypeName(bt))
		}
		tt.ForEach(func(k, v lua.LValue) {
			ks, ok := k.(lua.LString)
			if !ok {
				m.invalid(L, name, "buffers: %s is not a buffer name; name buffers with letters, digits and _, such as payload", k.String())
			}
			sizes[string(ks)] = v
		})
	}
	var gprog *luaprogram.Program
	if gpu != nil {
		gprog = gpu.prog
	}
	pair, err := pairOf(gprog, npu.prog, args, sizes)
	if err != nil {
		m.invalid(L, name, "%s", err.Error())
	}
	pair.Queue, pair.Context = queue, ctxOf(L)
	if gk != nil {
		if pair.GPUProgram, err = gk.gpuProgram(m.currentOrRaise(L), args); err != nil {
			m.raise(L, err)
		}
	}
	fs, gdev, ndev := m.sessionDevices(L)
	pair.Seed = fs.f.Seed()
	eng, err := engine.Open(gdev, ndev, pair.Programs)
	if err != nil {
		m.raise(L, err)
	}
	s := m.newSession(L, eng, fs)
	s.watch.noteFaults(fs.f)
	s.programs = &programSession{npu: npu.prog.Name(), queue: queue}
	if gpu != nil {
		s.programs.gpu = gpu.prog.Name()
	} else {
		s.programs.gpu = "kernel " + gk.entry
	}
	L.Push(&s.ud)
	return 1
}

// ExchangeShaped prepares sessions of gpu and npu shaped like the built-in
// exchange: each session's programs get args = {rounds =, credits =,
// slot_bytes =} of the exchange's shape, and the GPU program its queue.
// It is how the randomized trial (resident.trial) and the model checker's
// built-in scenario (residentlua check --programs) run a user's pair in
// place of the exchange. args, when not empty, are the pair's own
// arguments (numbers, strings and booleans by name), added to the shape's
// and taking the place of those they name. ctx ends the programs' Lua code.
func ExchangeShaped(ctx context.Context, gpu, npu *luaprogram.Program, args map[string]any) func(exchange.Config) engine.Programs {
	return newExchangeShapes(gpu, npu, args).programs(ctx)
}

// PairOf prepares sessions of gpu and npu with args, their own arguments
// (numbers, strings and booleans by name), the GPU program on the built-in
// exchange's default queue: how the model checker's built-in scenario
// runs a pair of one's own (residentlua check --programs G,N --args ...).
// When the programs' buffers declaration fails, every session's making
// fails with its error. ctx ends the programs' Lua code.
func PairOf(ctx context.Context, gpu, npu *luaprogram.Program, args map[string]any) engine.Programs {
	pair, err := pairOf(gpu, npu, luaprogram.Scalars(args), nil)
	if err != nil {
		return func(*devices.Buffer, *devices.Device, *devices.Device, uint64) (*devices.Prepared, *devices.Prepared, error) {
			return nil, nil, failure.Errorf(failure.Invalid, "startup", "%s", err.Error())
		}
	}
	pair.Queue, pair.Context = exchange.Default().GPUQueue, ctx
	return pair.Programs
}

// exchangeShapes prepares sessions of a pair shaped like the built-in
// exchange, and keeps the pair of buffers and arguments it made for each
// shape: a campaign's trials and the checker's schedules ask for the same
// few shapes again and again, and each pair runs the programs' buffers
// declarations and parses their sizes.
type exchangeShapes struct {
	gpu, npu *luaprogram.Program
	args     map[string]any // the pair's own arguments, over the shape's
	mu       sync.Mutex
	pairs    map[exchangeShape]luaprogram.Pair
}

// exchangeShape is what a pair's arguments are made of.
type exchangeShape struct{ rounds, credits, slotBytes int }

// maxShapes bounds the pairs an exchangeShapes keeps: more than the
// shapes of a randomized trial.
const maxShapes = 4096

func newExchangeShapes(gpu, npu *luaprogram.Program, args map[string]any) *exchangeShapes {
	return &exchangeShapes{gpu: gpu, npu: npu, args: args, pairs: map[exchangeShape]luaprogram.Pair{}}
}

// programs prepares the sessions of each shape; ctx ends their Lua code.
func (s *exchangeShapes) programs(ctx context.Context) func(exchange.Config) engine.Programs {
	return func(x exchange.Config) engine.Programs {
		pair, err := s.pair(exchangeShape{x.Rounds, x.Credits, x.SlotBytes})
		if err != nil {
			return func(*devices.Buffer, *devices.Device, *devices.Device, uint64) (*devices.Prepared, *devices.Prepared, error) {
				return nil, nil, failure.Errorf(failure.Invalid, "startup", "%s", err.Error())
			}
		}
		pair.Queue, pair.Context = x.GPUQueue, ctx
		return pair.Programs
	}
}

// pair is the pair of shape k, kept once made (an error is not kept: the
// host may have stopped the declaration).
func (s *exchangeShapes) pair(k exchangeShape) (luaprogram.Pair, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pair, ok := s.pairs[k]; ok {
		return pair, nil
	}
	named := map[string]any{"rounds": float64(k.rounds), "credits": float64(k.credits), "slot_bytes": float64(k.slotBytes)}
	for name, v := range s.args {
		named[name] = v
	}
	pair, err := pairOf(s.gpu, s.npu, luaprogram.Scalars(named), nil)
	if err != nil {
		return pair, err
	}
	if len(s.pairs) >= maxShapes {
		clear(s.pairs) // a bound, not an order: a campaign's shapes come back soon
	}
	s.pairs[k] = pair
	return pair, nil
}

// pairOf is the session of gpu and npu with args: the buffers they
// declare, with the sizes given override them or added.
func pairOf(gpu, npu *luaprogram.Program, args luaprogram.Args, sizes map[string]lua.LValue) (luaprogram.Pair, error) {
	declared, err := luaprogram.Declared(gpu, npu, args)
	if err != nil {
		return luaprogram.Pair{}, err
	}
	all := map[string]lua.LValue{}
	var names []string
	for _, b := range declared {
		switch v := b.Size.(type) {
		case float64:
			all[b.Name] = lua.LNumber(v)
		case string:
			all[b.Name] = lua.LString(v)
		}
		names = append(names, b.Name)
	}
	for n, v := range sizes {
		all[n] = v
		names = append(names, n)
	}
	pair := luaprogram.Pair{GPU: gpu, NPU: npu, Args: args}
	for _, bn := range sortedNames(names) {
		size, problem := parseSize(all[bn])
		switch {
		case problem != "":
			return pair, errors.New("buffers." + bn + ": " + problem)
		case size < 1 || size > maxBuffer:
			return pair, fmt.Errorf("buffers.%s: a buffer holds 1 byte to 1GiB, got %d bytes", bn, size)
		}
		pair.Buffers = append(pair.Buffers, luaprogram.Sized{Name: bn, Bytes: int(size)})
	}
	return pair, nil
}

// maxBuffer is the largest buffer a program may declare: what an
// allocation may be.
const maxBuffer = 1 << 30

// sortedNames is names sorted, without repeats.
func sortedNames(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
