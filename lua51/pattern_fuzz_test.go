package lua51

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// FuzzPatterns checks, for any subject and pattern, that the pattern
// functions never let a Go panic out (every failure is a Lua error) and
// agree with each other:
//   - find's captures are match's when find uses the matcher (match gives the whole match when the
//     pattern has none, find gives only the positions);
//   - gsub(s, p, "%0") gives s back;
//   - unless p starts with '^' (an anchor for gsub, a byte for gmatch),
//     gsub counts as many matches as gmatch yields (when gmatch raises no
//     error: an unfinished capture is an error to gmatch, not to gsub with
//     "%0");
//   - a plain find is strings.Index.
//
// Run it with: go test ./lua51/ -run '^$' -fuzz FuzzPatterns -fuzztime 30s
func FuzzPatterns(f *testing.F) {
	for _, seed := range [][2]string{
		{"hello world", "(o)(%s*)"}, {"THE (quick) fox", "%f[%a]%a+"}, {"f(a(b)c)", "%b()"},
		{"a\x00b", "%z"}, {"key = value", "^(%w+)%s*=%s*(%w+)$"}, {"abcabc", "(abc)%1"},
		{"aaa", "a-"}, {"", ""}, {"x", "[%"}, {"abc", "()"}, {"]]", "[]]+"},
	} {
		f.Add(seed[0], seed[1])
	}
	L := lua.NewState()
	defer L.Close()
	installPatterns(L)
	mod := L.GetGlobal("string").(*lua.LTable)
	call := func(t *testing.T, name string, args ...lua.LValue) ([]lua.LValue, bool) {
		t.Helper()
		L.SetTop(0)
		err := L.CallByParam(lua.P{Fn: mod.RawGetString(name), NRet: lua.MultRet, Protect: true}, args...)
		if err != nil {
			if ae, ok := err.(*lua.ApiError); !ok || ae.Type != lua.ApiErrorRun {
				t.Fatalf("%s(%q, %q): not a Lua error: %v", name, args[0], args[1], err)
			}
			return nil, false
		}
		rets := make([]lua.LValue, L.GetTop())
		for i := range rets {
			rets[i] = L.Get(i + 1)
		}
		return rets, true
	}
	f.Fuzz(func(t *testing.T, s, p string) {
		s, p = s[:min(len(s), 64)], p[:min(len(p), 32)] // keep clear of exponential backtracking
		S, P := lua.LString(s), lua.LString(p)
		found, ok := call(t, "find", S, P)
		matched, _ := call(t, "match", S, P)
		if ok && hasSpecials(p) { // else find searches plainly, match does not
			checkFindMatch(t, s, p, found, matched)
		}
		if r, ok := call(t, "gsub", S, P, lua.LString("%0")); ok {
			if r[0] != S {
				t.Errorf("gsub(%q, %q, '%%0') = %q", s, p, r[0])
			}
			if !strings.HasPrefix(p, "^") {
				checkGmatchCount(t, L, s, p, int(r[1].(lua.LNumber)))
			}
		}
		plain, _ := call(t, "find", S, P, lua.LNumber(1), lua.LTrue)
		if i := strings.Index(s, p); i < 0 && plain[0] != lua.LNil || i >= 0 && plain[0] != lua.LNumber(i+1) {
			t.Errorf("find(%q, %q, 1, true) = %v, strings.Index %d", s, p, plain, i)
		}
	})
}

// checkFindMatch compares find's results with match's.
func checkFindMatch(t *testing.T, s, p string, found, matched []lua.LValue) {
	t.Helper()
	if found[0] == lua.LNil {
		if len(matched) != 1 || matched[0] != lua.LNil {
			t.Errorf("%q, %q: find found nothing, match %v", s, p, matched)
		}
		return
	}
	i, j := int(found[0].(lua.LNumber)), int(found[1].(lua.LNumber))
	if i < 1 || j < i-1 || j > len(s) {
		t.Fatalf("find(%q, %q) = %d, %d", s, p, i, j)
	}
	want := found[2:]
	if len(want) == 0 {
		want = []lua.LValue{lua.LString(s[i-1 : j])}
	}
	if len(matched) != len(want) {
		t.Fatalf("%q, %q: find gave %v, match %v", s, p, found, matched)
	}
	for k := range want {
		if want[k] != matched[k] {
			t.Errorf("%q, %q: find gave %v, match %v", s, p, found, matched)
		}
	}
}

// checkGmatchCount counts gmatch's iterations over s with p and compares
// them with gsub's count n.
func checkGmatchCount(t *testing.T, L *lua.LState, s, p string, n int) {
	t.Helper()
	L.SetTop(0)
	err := L.CallByParam(lua.P{Fn: L.GetField(L.GetGlobal("string"), "gmatch"), NRet: 1, Protect: true}, lua.LString(s), lua.LString(p))
	if err != nil {
		t.Fatalf("gmatch(%q, %q): %v", s, p, err)
	}
	it := L.Get(1)
	count := 0
	for ; count <= len(s)+1; count++ {
		L.SetTop(1)
		if err := L.CallByParam(lua.P{Fn: it, NRet: lua.MultRet, Protect: true}); err != nil {
			if ae, ok := err.(*lua.ApiError); !ok || ae.Type != lua.ApiErrorRun {
				t.Fatalf("gmatch(%q, %q) iterator: not a Lua error: %v", s, p, err)
			}
			return // an unfinished capture, which gsub's "%0" does not read
		}
		if L.GetTop() == 1 {
			break
		}
	}
	if count != n {
		t.Errorf("%q, %q: gmatch yields %d matches, gsub counts %d", s, p, count, n)
	}
}
