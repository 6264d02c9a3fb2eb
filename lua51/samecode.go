package lua51

import (
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// SameCode reports whether two compiled functions do the same thing: the
// same instructions, constants, parameters, upvalues and nested functions,
// whatever lines their source had. The REPL uses it to learn whether the
// lines of a chunk can be kept joined on one line of its history.
func SameCode(a, b *lua.FunctionProto) bool {
	if a.NumUpvalues != b.NumUpvalues || a.NumParameters != b.NumParameters || a.IsVarArg != b.IsVarArg ||
		!slices.Equal(a.Code, b.Code) || len(a.Constants) != len(b.Constants) || len(a.FunctionPrototypes) != len(b.FunctionPrototypes) {
		return false
	}
	for i, k := range a.Constants {
		// A userdata constant is this package's own (a concatenation's
		// site, which holds its line): its kind is what matters.
		if k.Type() != b.Constants[i].Type() || k.Type() != lua.LTUserData && k.String() != b.Constants[i].String() {
			return false
		}
	}
	for i, p := range a.FunctionPrototypes {
		if !SameCode(p, b.FunctionPrototypes[i]) {
			return false
		}
	}
	return true
}
