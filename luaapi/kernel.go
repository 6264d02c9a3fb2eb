package luaapi

import (
	"math"
	"strings"

	"github.com/residentlua/residentlua/internal/input"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/luaprogram"
	"github.com/residentlua/residentlua/programs/kernel"
)

// kernelValue is what a kernel userdata (resident.kernel) holds: a user's
// PTX kernel, loaded on the GPU of the fabric it was made on.
type kernelValue struct {
	m      *Module
	path   string
	ptx    []byte
	entry  string
	values []string // the names of startup's args that fill the block's values, in order
	fab    *fabricState
	module kernel.Module
}

// kernelFn makes a GPU program of the user's own PTX kernel:
// resident.kernel{ptx = FILE, entry = NAME, args = {NAME, ...}}. The
// current fabric's GPU must be real hardware that runs a user's kernel
// (--gpu cuda). The PTX is loaded and its entry found at once: what does
// not load is an error here, before anything is dispatched.
func (m *Module) kernelFn(L *lua.LState) int {
	const name = "kernel"
	t := fields(L, 1, name, false, "ptx", "entry", "args")
	k := &kernelValue{m: m, path: stringField(L, 1, name, t, "ptx", ""), entry: stringField(L, 1, name, t, "entry", "")}
	if k.path == "" || k.entry == "" {
		argError(L, 1, name, "give the kernel's PTX file as ptx and its name as entry")
	}
	if a := field(t, "args"); a != lua.LNil {
		list, ok := a.(*lua.LTable)
		if !ok {
			fieldError(L, 1, name, "args", "a list of the names of startup's args that fill the kernel's values, in order, expected; got "+valueTypeName(a))
		}
		for i := 1; i <= list.Len(); i++ {
			s, ok := list.RawGetInt(i).(lua.LString)
			if !ok {
				fieldError(L, 1, name, "args", "item "+lua.LNumber(i).String()+" is not a name")
			}
			k.values = append(k.values, string(s))
		}
		if len(k.values) > kernel.MaxValues {
			m.invalid(L, name, "args names %d values; a kernel's block holds at most %d", len(k.values), kernel.MaxValues)
		}
	}
	if m.opts.Sandbox {
		m.invalid(L, name, "this state has no file access (its host sandboxed it)")
	}
	ptx, err := input.ReadFile(k.path, input.PTX)
	if err != nil {
		m.invalid(L, name, "cannot read PTX %s: %s", k.path, strings.TrimPrefix(err.Error(), "open "+k.path+": "))
	}
	if m.opts.OnRead != nil {
		m.opts.OnRead(k.path, ptx)
	}
	k.ptx = ptx
	fs := m.currentOrRaise(L)
	if err := k.load(fs); err != nil {
		m.raise(L, err)
	}
	ud := L.NewUserData()
	ud.Value = k
	L.SetMetatable(ud, m.kernelMeta)
	L.Push(ud)
	return 1
}

// load loads the kernel on fs's GPU.
func (k *kernelValue) load(fs *fabricState) error {
	gpu := fs.f.First(devices.GPU)
	var launcher kernel.Launcher
	if gpu != nil {
		launcher, _ = gpu.Accelerator().(kernel.Launcher)
	}
	if launcher == nil {
		return failure.Errorf(failure.Unsupported, "kernel", "resident.kernel runs a PTX kernel on a real GPU, and this fabric's GPU is simulated: run with --gpu cuda on a machine with an NVIDIA GPU (docs/cuda.md), or write the GPU program in Lua (resident.program)")
	}
	mod, err := launcher.Load(k.ptx, k.entry)
	if err != nil {
		return err
	}
	k.fab, k.module = fs, mod
	return nil
}

// newKernelMeta makes the metatable of kernel userdata.
func (m *Module) newKernelMeta(L *lua.LState) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__name", lua.LString("resident.kernel"))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		k := m.asKernel(L.Get(1))
		if k == nil {
			typeError(L, 1, "__tostring", "kernel")
		}
		L.Push(lua.LString("kernel " + k.entry + " (" + k.path + ")"))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("resident.kernel"))
	return mt
}

// asKernel is v as a kernel of this module, or nil.
func (m *Module) asKernel(v lua.LValue) *kernelValue {
	if ud, ok := v.(*lua.LUserData); ok {
		if k, ok := ud.Value.(*kernelValue); ok && k.m == m {
			return k
		}
	}
	return nil
}

// gpuProgram makes the kernel's program for a session on fs with args: the
// block gets the startup line, the buffers in name order, the session and
// the values args names (loaded again on a fabric made since).
func (k *kernelValue) gpuProgram(fs *fabricState, args luaprogram.Args) (func(*devices.Buffer, []*devices.Buffer, uint64) (program.Program, error), error) {
	if k.fab != fs {
		if err := k.load(fs); err != nil {
			return nil, err
		}
	}
	values := make([]int64, len(k.values))
	for i, n := range k.values {
		f, ok := args.Number(n)
		if !ok || f != math.Trunc(f) || math.Abs(f) > maxSize {
			return nil, failure.Errorf(failure.Invalid, "startup", "kernel %s takes args.%s, which must be a whole number; got none or another value", k.entry, n)
		}
		values[i] = int64(f)
	}
	return func(line *devices.Buffer, bufs []*devices.Buffer, owner uint64) (program.Program, error) {
		block := kernel.Block{Startup: line.Region(), Owner: owner, Values: values}
		for _, b := range bufs {
			block.Buffers = append(block.Buffers, b.Region())
		}
		return kernel.NewProgram(k.module, k.entry, block)
	}, nil
}
