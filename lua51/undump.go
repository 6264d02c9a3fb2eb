package lua51

import (
	"bytes"
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// A chunk whose first byte is ESC is a precompiled (binary) chunk in Lua
// 5.1, made by luac or string.dump, and is read by lundump.c rather than
// the parser. gopher-lua runs source only, so such a chunk never loads
// here; it is read as lundump.c reads it, so that a truncated or damaged
// one gets Lua 5.1's message ("binary string: unexpected end in
// precompiled chunk"), and a sound one says that it cannot be run.

// binaryMark is LUA_SIGNATURE[0], the first byte of a binary chunk.
const binaryMark = 0x1b

// binaryHeader is luaU_header's for Lua 5.1 on a 64-bit little-endian
// machine: the signature, version 5.1, the official format, little
// endian, and the sizes of int, size_t, Instruction and lua_Number, which
// is not integral.
var binaryHeader = []byte{binaryMark, 'L', 'u', 'a', 0x51, 0, 1, 4, 8, 4, 8, 0}

// isBinaryChunk reports whether src is a precompiled chunk.
func isBinaryChunk(src []byte) bool { return len(src) > 0 && src[0] == binaryMark }

// binaryChunkError is the message of loading the precompiled chunk src
// named chunkname: lundump.c's for what it would reject, else that it
// cannot be run.
func binaryChunkError(src []byte, chunkname string) string {
	name := chunkname
	switch {
	case name != "" && (name[0] == '@' || name[0] == '='):
		name = name[1:]
	case name != "" && name[0] == binaryMark:
		name = "binary string"
	}
	if why := undump(src); why != "" {
		return name + ": " + why + " in precompiled chunk"
	}
	return name + ": precompiled chunks cannot be run here (gopher-lua runs Lua source only); load the chunk's source instead"
}

// undumpState reads a binary chunk as lundump.c's LoadState does.
type undumpState struct {
	src   []byte
	depth int
}

// undumpFailure is why lundump.c rejects a chunk: "unexpected end", "bad
// header", "bad integer", "bad constant" or "code too deep".
type undumpFailure string

// undump reads src through, returning why Lua 5.1 would reject it, or ""
// when it would not (its bytecode verifier aside).
func undump(src []byte) (why string) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(undumpFailure)
			if !ok {
				panic(r)
			}
			why = string(f)
		}
	}()
	s := &undumpState{src: src}
	if !bytes.Equal(s.block(len(binaryHeader)), binaryHeader) {
		panic(undumpFailure("bad header"))
	}
	s.function()
	return ""
}

// block is LoadBlock: the next n bytes, or "unexpected end".
func (s *undumpState) block(n int) []byte {
	if n < 0 || n > len(s.src) {
		panic(undumpFailure("unexpected end"))
	}
	b := s.src[:n]
	s.src = s.src[n:]
	return b
}

// char is LoadChar: a C char, signed.
func (s *undumpState) char() int { return int(int8(s.block(1)[0])) }

// integer is LoadInt: a non-negative C int.
func (s *undumpState) integer() int {
	n := int32(binary.LittleEndian.Uint32(s.block(4)))
	if n < 0 {
		panic(undumpFailure("bad integer"))
	}
	return int(n)
}

// str is LoadString: a size_t length (0 for none), then that many bytes.
func (s *undumpState) str() {
	size := binary.LittleEndian.Uint64(s.block(8))
	if size > math.MaxInt32 {
		panic(undumpFailure("unexpected end"))
	}
	s.block(int(size))
}

// vector skips n items of size bytes.
func (s *undumpState) vector(n, size int) { s.block(n * size) }

// function is LoadFunction: its header, code, constants, nested functions
// and debug information.
func (s *undumpState) function() {
	s.depth++
	if s.depth > maxLevels-baseLevel {
		panic(undumpFailure("code too deep"))
	}
	s.str()                  // source
	s.integer()              // linedefined
	s.integer()              // lastlinedefined
	s.block(4)               // nups, numparams, is_vararg, maxstacksize
	s.vector(s.integer(), 4) // code
	for n := s.integer(); n > 0; n-- {
		switch s.char() {
		case 0: // nil
		case 1: // boolean
			s.char()
		case 3: // number
			s.block(8)
		case 4: // string
			s.str()
		default:
			panic(undumpFailure("bad constant"))
		}
	}
	for n := s.integer(); n > 0; n-- {
		s.function()
	}
	s.vector(s.integer(), 4) // lineinfo
	for n := s.integer(); n > 0; n-- {
		s.str()     // local's name
		s.integer() // startpc
		s.integer() // endpc
	}
	for n := s.integer(); n > 0; n-- {
		s.str() // upvalue's name
	}
	s.depth--
}

// strDump is string.dump with Lua 5.1's argument check: a function is
// required, and a Go function is "unable to dump given function", as a C
// function is in Lua 5.1. gopher-lua has no binary chunks to write, so a
// Lua function is refused too, saying why (gopher-lua's message came before
// any check of the argument).
func strDump(L *lua.LState) int {
	fn, ok := L.Get(1).(*lua.LFunction)
	switch {
	case !ok:
		typeError(L, 1, "function")
	case fn.IsG:
		luaError(L, "unable to dump given function")
	}
	luaError(L, "unable to dump given function: precompiled chunks cannot be made here (gopher-lua runs Lua source only); keep the function's source instead")
	return 0
}
