package luaprogram

import (
	"io"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// sealed is a function the chunk returned (a program's run or check) that
// the next invocation may be given again instead of running the chunk
// afresh: everything it reaches but its environment is a function or an
// immutable value (a number, a string, a boolean, nil), so the only ways
// an invocation can change what the next one finds are setting an upvalue
// and setfenv, which intact sees. A function that reaches a table (or any
// other value that can change in place) is never sealed: a table can be
// changed and put back with a different iteration order, which no check
// short of gopher-lua's internals sees.
//
// Running the chunk afresh is most of what starting an invocation costs
// once its environment is reused; giving the sealed function again is
// indistinguishable from it, since the chunk, run again in the same
// environment, would make the same functions over the same values.
type sealed struct {
	fn   *lua.LFunction
	env  *lua.LTable
	fns  []sealedFunction
	upvs []sealedUpvalue
}

// sealedFunction is a function a sealed function reaches and its
// environment when sealed.
type sealedFunction struct {
	fn  *lua.LFunction
	env *lua.LTable
}

// sealedUpvalue is an upvalue a sealed function reaches and its value
// when sealed.
type sealedUpvalue struct {
	uv *lua.Upvalue
	v  lua.LValue
}

// maxSealedFunctions bounds the functions one seal walks: a chunk that
// makes more is run afresh for each invocation.
const maxSealedFunctions = 256

// seal seals fn, made by a run of the chunk in env, or returns nil when fn
// reaches a value that can change in place.
func seal(fn *lua.LFunction, env *lua.LTable) *sealed {
	s := &sealed{fn: fn, env: env}
	if !s.walk(fn) {
		return nil
	}
	return s
}

// walk adds f, its upvalues and the functions they hold to s, and reports
// whether all of them can be sealed.
func (s *sealed) walk(f *lua.LFunction) bool {
	for _, g := range s.fns {
		if g.fn == f {
			return true
		}
	}
	if len(s.fns) == maxSealedFunctions {
		return false
	}
	s.fns = append(s.fns, sealedFunction{f, f.Env})
	for _, uv := range f.Upvalues {
		v := uv.Value()
		switch v := v.(type) {
		case lua.LNumber, lua.LString, lua.LBool, *lua.LNilType:
		case *lua.LFunction:
			if !s.walk(v) {
				return false
			}
		default:
			return false
		}
		s.upvs = append(s.upvs, sealedUpvalue{uv, v})
	}
	return true
}

// intact is s's function when env is the environment it was sealed in
// and nothing it reaches changed since, else nil. A nil s is never
// intact.
func (s *sealed) intact(env *lua.LTable) *lua.LFunction {
	if s == nil || s.env != env {
		return nil
	}
	for _, f := range s.fns {
		if f.fn.Env != f.env {
			return nil
		}
	}
	for _, u := range s.upvs {
		if !same(u.uv.Value(), u.v) {
			return nil
		}
	}
	return s.fn
}

// same reports whether a and b are the same value: numbers bit for bit,
// so that -0 is not 0 and NaN is not itself.
func same(a, b lua.LValue) bool {
	x, ok := a.(lua.LNumber)
	y, ok2 := b.(lua.LNumber)
	if ok || ok2 {
		return ok && ok2 && x == x && math.Float64bits(float64(x)) == math.Float64bits(float64(y))
	}
	return a == b
}

// entry names a function of the chunk that a machine seals: the program's
// run, or its check.
type entry int

const (
	runEntry entry = iota
	checkEntry
)

// fresh is the chunk's run or check as a fresh run of the chunk in a fresh
// environment makes it: the one sealed at the last run when it is intact,
// else that of a new run, sealed when it can be and the run neither
// printed nor drew a random number (which a run afresh would do again).
// The function is nil for a check when the chunk returned none.
func (m *machine) fresh(which entry) (*lua.LFunction, error) {
	env := m.environment()
	if fn := m.sealed[which].intact(env); fn != nil {
		return fn, nil
	}
	printed, draws := m.out.writes, m.draws
	s, err := m.specIn(env)
	if err != nil {
		return nil, err
	}
	fn := s.run
	if which == checkEntry {
		fn = s.check
	}
	m.sealed[which] = nil
	if fn != nil && m.out.writes == printed && m.draws == draws {
		m.sealed[which] = seal(fn, env)
	}
	return fn, nil
}

// writeCounter counts the writes of a machine's print, so that a chunk
// that prints is run afresh for every invocation, as its output shows.
type writeCounter struct {
	w      io.Writer
	writes uint64
}

func (c *writeCounter) Write(b []byte) (int, error) {
	c.writes++
	return c.w.Write(b)
}
