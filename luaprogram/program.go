package luaprogram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/residentlua/residentlua/internal/input"

	lua "github.com/yuin/gopher-lua"

	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/lua51"
)

// Options configure a Program.
type Options struct {
	// Stdout receives the program's print; nil means os.Stdout.
	Stdout io.Writer
	// Instructions is how many Lua instructions the program may run
	// between two memory operations; 0 means DefaultInstructions.
	Instructions int64
	// CheckInstructions is how many its check, or its buffers function,
	// may run in all; 0 means DefaultCheckInstructions.
	CheckInstructions int64
	// MemoryLimit is the memory budget of the program's Lua states, as
	// lua51.Options.MemoryLimit: past it a program's Lua code fails with
	// "not enough memory". 0 means lua51.DefaultMemoryLimit(); a host
	// gives its own state's (lua51.MemoryLimit).
	MemoryLimit int64
}

// Program is a device program written in Lua: a chunk compiled once, and
// the Lua states that run it. Each invocation of it (an Instance) takes an
// idle state, or makes one, and gives it back once it retired cleanly: a
// state is reused, never its globals (each invocation runs the chunk
// afresh, with fresh globals and fresh copies of the libraries). A Program
// is safe for concurrent use: two invocations never share a state.
type Program struct {
	chunkname string // lua_load's: "@path" or "=name"
	text      string
	opts      Options
	chunk     *lua.LFunction // compiled by the first machine, run by every one (newMachine)

	hasCheck bool                // the chunk returns a check
	sites    map[fault.Site]bool // the sites of its own it declared
	siteList []fault.Site        // the same, in the order declared

	mu       sync.Mutex
	idle     []*machine
	declared map[string][]Buffer // the declarations of buffers, by their arguments (Args.key)
}

// Load reads a program from the file at path and compiles it under ctx
// (CompileContext).
func Load(ctx context.Context, path string, opts Options) (*Program, error) {
	text, err := input.ReadFile(path, input.LuaSource)
	if err != nil {
		return nil, fmt.Errorf("cannot read program %s: %w", path, err)
	}
	return CompileContext(ctx, "@"+path, string(text), opts)
}

// Compile makes a program of text. chunkname names it in messages and
// tracebacks, as lua_load's does: "@path" for a file, "=name" for another
// source. A syntax error, or a chunk that does not return a program, is an
// error that says so.
func Compile(chunkname, text string, opts Options) (*Program, error) {
	return CompileContext(context.Background(), chunkname, text, opts)
}

// CompileContext is Compile whose compile of a long chunk ends once ctx
// does (a host's Ctrl-C or time limit), with ctx's error: the compile is
// left to finish unseen, as lua51's loads leave it.
func CompileContext(ctx context.Context, chunkname, text string, opts Options) (*Program, error) {
	if opts.Instructions <= 0 {
		opts.Instructions = DefaultInstructions
	}
	if opts.CheckInstructions <= 0 {
		opts.CheckInstructions = DefaultCheckInstructions
	}
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	p := &Program{chunkname: chunkname, text: text, opts: opts, declared: map[string][]Buffer{}}
	m, err := p.newMachine(ctx)
	if err != nil {
		return nil, err
	}
	p.hasCheck = m.host.check != nil
	p.sites = map[fault.Site]bool{}
	for _, name := range m.host.sites {
		site, err := fault.DefineSite(name)
		if err != nil {
			m.close()
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		if !p.sites[site] {
			p.siteList = append(p.siteList, site)
		}
		p.sites[site] = true
	}
	p.idle = append(p.idle, m)
	return p, nil
}

// Name is the program's name as messages show it: its file, or the name
// given to its source.
func (p *Program) Name() string { return lua51.ChunkID(p.chunkname) }

// Text is the program's source text, for a digest of what a tool ran.
func (p *Program) Text() string { return p.text }

// take returns an idle machine, or a new one compiled under ctx (nil for
// none), whose Lua code ends only by its budget until its user gives it a
// context of its own.
func (p *Program) take(ctx context.Context) (*machine, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		m := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		m.setContext(nil) // not a context of an earlier user's, maybe ended
		return m, nil
	}
	p.mu.Unlock()
	return p.newMachine(ctx)
}

// give makes m idle again.
func (p *Program) give(m *machine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle = append(p.idle, m)
}

// Close closes the program's idle states. Invocations still running keep
// theirs until they retire.
func (p *Program) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, m := range idle {
		m.close()
	}
}

// Buffer is a buffer a program declares, sized by a number of bytes or a
// size string ("4KiB") that its host reads.
type Buffer struct {
	Name string
	Size any // float64 or string, as the program gave it
}

// maxBuffers is how many buffers one session's programs may declare.
const maxBuffers = 16

// Buffers runs the program's buffers declaration, a table or a function of
// args returning one, and lists the buffers it declares, sorted by name.
// A declaration is a function of the arguments alone: the last few are
// kept by the arguments they were made for, as a campaign's trials ask
// for the same shapes again and again.
func (p *Program) Buffers(args Args) ([]Buffer, error) {
	key := args.key()
	p.mu.Lock()
	bufs, ok := p.declared[key]
	p.mu.Unlock()
	if ok {
		return bufs, nil
	}
	bufs, err := p.declare(args)
	if err == nil {
		p.mu.Lock()
		if len(p.declared) >= maxDeclared {
			clear(p.declared) // a bound, not an order: a campaign's shapes come back soon
		}
		p.declared[key] = bufs
		p.mu.Unlock()
	}
	return bufs, err
}

// maxDeclared is how many declarations a program keeps: more than the
// shapes (rounds, credits, slot bytes) of a randomized trial.
const maxDeclared = 4096

// declare runs the buffers declaration for args.
func (p *Program) declare(args Args) ([]Buffer, error) {
	m, err := p.take(nil)
	if err != nil {
		return nil, err
	}
	defer p.give(m)
	s, err := m.spec() // a fresh environment, as an invocation's
	if err != nil {
		return nil, err
	}
	decl := s.buffers
	if fn, ok := decl.(*lua.LFunction); ok {
		m.L.Push(fn)
		m.L.Push(args.lua(m.L))
		err := m.pcallHost(1, 1)
		var res lua.LValue
		if err != nil {
			err = errors.New(m.hostBudgetText(err, m.describe(err), "buffers declaration"))
		} else {
			res = m.L.Get(-1)
			m.L.Pop(1)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: buffers: %w", p.Name(), err)
		}
		decl = res
	}
	t, ok := decl.(*lua.LTable)
	if decl == lua.LNil {
		return nil, nil
	}
	if !ok {
		return nil, fmt.Errorf("%s: buffers must be a table of sizes by name, or a function of the arguments that returns one; got a %s", p.Name(), decl.Type())
	}
	var out []Buffer
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		name, ok := k.(lua.LString)
		switch {
		case !ok || !isName(string(name)):
			err = fmt.Errorf("%s: buffers: %s is not a buffer name; name buffers with letters, digits and _ (at most 32), such as payload", p.Name(), k.String())
		case string(name) == "startup":
			err = fmt.Errorf("%s: buffers: startup is the session's startup line, which every program reaches as p.startup; give the buffer another name", p.Name())
		case v.Type() == lua.LTNumber:
			out = append(out, Buffer{Name: string(name), Size: float64(v.(lua.LNumber))})
		case v.Type() == lua.LTString:
			out = append(out, Buffer{Name: string(name), Size: string(v.(lua.LString))})
		default:
			err = fmt.Errorf("%s: buffers.%s: a size is a number of bytes or a string such as \"4KiB\", not a %s", p.Name(), name, v.Type())
		}
	})
	if err != nil {
		return nil, err
	}
	if len(out) > maxBuffers {
		return nil, fmt.Errorf("%s declares %d buffers; a session's programs reach at most %d", p.Name(), len(out), maxBuffers)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// isName reports whether s is a buffer's name: a letter or _, then
// letters, digits and _, 32 at most.
func isName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// spec is what the chunk returns: the program's function, and what else it
// declares.
type spec struct {
	run     *lua.LFunction
	buffers lua.LValue // nil, a table, or a function of args
	check   *lua.LFunction
	sites   []string // fault sites of the program's own
}

// specFields are the fields of a program's table.
var specFields = []string{"buffers", "check", "run", "sites"}

// readSpec reads what the chunk returned.
func readSpec(name string, v lua.LValue) (spec, error) {
	switch v := v.(type) {
	case *lua.LFunction:
		return spec{run: v, buffers: lua.LNil}, nil
	case *lua.LTable:
		var s spec
		var bad []string
		v.ForEach(func(k, _ lua.LValue) {
			if ks, ok := k.(lua.LString); !ok || !contains(specFields, string(ks)) {
				bad = append(bad, k.String())
			}
		})
		if len(bad) > 0 {
			sort.Strings(bad)
			return spec{}, fmt.Errorf("%s returned a table with the unknown field %s; a program's table has %s", name, bad[0], strings.Join(specFields, ", "))
		}
		run, ok := v.RawGetString("run").(*lua.LFunction)
		if !ok {
			return spec{}, fmt.Errorf("%s returned a table without a run function; give run = function(p, args) ... end", name)
		}
		s.run, s.buffers = run, v.RawGetString("buffers")
		switch c := v.RawGetString("check").(type) {
		case *lua.LFunction:
			s.check = c
		case *lua.LNilType:
		default:
			return spec{}, fmt.Errorf("%s: check must be a function(c, args), not a %s", name, c.Type())
		}
		if t := s.buffers.Type(); t != lua.LTNil && t != lua.LTTable && t != lua.LTFunction {
			return spec{}, fmt.Errorf("%s: buffers must be a table of sizes by name, or a function of the arguments that returns one; got a %s", name, t)
		}
		switch sites := v.RawGetString("sites").(type) {
		case *lua.LTable:
			for i := 1; i <= sites.Len(); i++ {
				site, ok := sites.RawGetInt(i).(lua.LString)
				if !ok {
					return spec{}, fmt.Errorf("%s: sites must be a list of fault site names, such as {\"stream.drop\"}; item %d is a %s", name, i, sites.RawGetInt(i).Type())
				}
				s.sites = append(s.sites, string(site))
			}
		case *lua.LNilType:
		default:
			return spec{}, fmt.Errorf("%s: sites must be a list of fault site names, such as {\"stream.drop\"}, not a %s", name, sites.Type())
		}
		return s, nil
	}
	return spec{}, errors.New(name + " does not return a program: end it with return function(p, args) ... end, or with return {run = function(p, args) ... end, ...}")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
