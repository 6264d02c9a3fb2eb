package lua51

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// loadFiles are the files loadScript loads, from its directory.
var loadFiles = map[string]string{
	"hash.lua":   "#!/usr/bin/lua\nreturn debug.getinfo(1, \"l\").currentline, ...\n",
	"bad.lua":    "x = = 1\n",
	"mymod.lua":  "return \"mod\", ...\n",
	"badmod.lua": "local x = \n",
	"sub/m.lua":  "return \"sub.m\"\n",
}

// loadScript uses loadfile, dofile, loadstring, load and require, and
// returns what each gave.
const loadScript = `
local function q(s)
  return '"' .. s:gsub(".", function(c)
    local b = c:byte()
    if c == '"' or c == "\\" then return "\\" .. c end
    if b < 32 or b >= 127 then return string.format("\\%03d", b) end
  end) .. '"'
end
local out = {}
local function add(...)
  local t = {...}
  for i = 1, select("#", ...) do
    local v = t[i]
    t[i] = type(v) == "string" and q(v) or type(v) == "function" and "function" or tostring(v)
  end
  out[#out + 1] = table.concat(t, " ")
end
add(loadfile("nofile.lua"))
add(loadfile("bad.lua"))
add(loadfile("hash.lua")("a"))
add(pcall(dofile, "bad.lua"))
add(pcall(dofile, "nofile.lua"))
add(dofile("hash.lua"))
add(loadstring("x = = 1"))
add(loadstring("x = = 1", "=name"))
add(loadstring("x = = 1", "@file.lua"))
add(loadstring("x = = 1", "chunky"))
add(pcall(loadstring("error('e')")))
add(pcall(loadstring("error(\'e\')", "=" .. string.rep("n", 70))))
add(pcall(loadstring("error(\'e\')", "@" .. string.rep("d/", 40) .. "f.lua")))
add(pcall(loadstring("error(\'e\')", string.rep("s", 70))))
add(pcall(loadstring("error(\'e\')", "line one\nline two")))
add(loadstring("x = = 1", "@" .. string.rep("d/", 40) .. "f.lua"))
add(loadstring("x = = 1", string.rep("s", 70)))
local parts = {"return ", "1 ", "+ 2"}
local i = 0
add(load(function() i = i + 1 return parts[i] end)())
add(load(function() return nil end))
local function first(f, msg) return f, msg:match("^[^\n]*") end
add(first(load(function() error("reader fails") end)))
add(first(load(function() return {} end)))
add(load(function() i = i + 1 return i == 100 and 42 or nil end))
i = 0
add(load(function() i = i + 1 if i == 1 then return "x = = 1" end end))
add(load(function() i = i + 1 if i == 1 then return "x = = 1" end end, "=mine"))
add(pcall(load(function() i = i + 1 if i < 4 then return "error('e')" end end)))
package.path = "./?.lua;./sub/?.lua"
package.loaders[3], package.loaders[4] = nil, nil
add(require("mymod"))
add(pcall(require, "nomod"))
add(pcall(require, "badmod"))
add(require("m"))
add(require("sub.m"))
package.path = 5
add(pcall(require, "other"))
return table.concat(out, "\n")
`

// loadWant is what Debian's lua5.1 (5.1.5) returned for dofile("ld.lua")
// with loadScript in ld.lua, beside loadFiles; recorded once.
const loadWant = `
nil "cannot open nofile.lua: No such file or directory"
nil "bad.lua:1: unexpected symbol near '='"
2 "a"
false "bad.lua:1: unexpected symbol near '='"
false "cannot open nofile.lua: No such file or directory"
2
nil "[string \"x = = 1\"]:1: unexpected symbol near '='"
nil "name:1: unexpected symbol near '='"
nil "file.lua:1: unexpected symbol near '='"
nil "[string \"chunky\"]:1: unexpected symbol near '='"
false "[string \"error('e')\"]:1: e"
false "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn:1: e"
false ".../d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/f.lua:1: e"
false "[string \"sssssssssssssssssssssssssssssssssssssssssss...\"]:1: e"
false "[string \"line one...\"]:1: e"
nil ".../d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/f.lua:1: unexpected symbol near '='"
nil "[string \"sssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss...\"]:1: unexpected symbol near '='"
3
function
nil "ld.lua:39: reader fails"
nil "ld.lua:40: reader function must return a string"
function
nil "(load):1: unexpected symbol near '='"
function
true
"mod"
false "module 'nomod' not found:\010\009no field package.preload['nomod']\010\009no file './nomod.lua'\010\009no file './sub/nomod.lua'"
false "error loading module 'badmod' from file './badmod.lua':\010\009./badmod.lua:2: unexpected symbol near '<eof>'"
"sub.m"
"sub.m"
false "module 'other' not found:\010\009no field package.preload['other']\010\009no file '5'"`

func TestLoadingAsLua51(t *testing.T) {
	dir := t.TempDir()
	for name, src := range loadFiles {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ld.lua"), []byte(loadScript[1:]), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	L := lua.NewState()
	defer L.Close()
	installLoad(L)
	if err := L.DoString(`result = dofile("ld.lua")`); err != nil {
		t.Fatal(err)
	}
	compareLines(t, lua.LVAsString(L.GetGlobal("result")), loadWant[1:])
}

func TestIsIncomplete(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for src, want := range map[string]bool{
		"function f()":       true,
		"for i = 1, 2 do":    true,
		"x = 'abc":           true,
		"x = [[abc":          true,
		"--[[ comment":       true,
		"x = 1 +":            true,
		"t = {1,":            true,
		"x = = 1":            false,
		"return 1 end":       false,
		"x = 'abc\ny'":       false,
		"x = 3x":             false,
		"print('complete')":  false,
		"local t = {} t.x 1": false,
	} {
		fn, err := Load(L, strings.NewReader(src), "=stdin")
		if got := IsIncomplete(err); got != want {
			t.Errorf("IsIncomplete(Load(%q)) = %v, want %v (error %v)", src, got, want, err)
		}
		if (err == nil) != (fn != nil) {
			t.Errorf("Load(%q) = %v, %v: want a function or an error", src, fn, err)
		}
		var api *lua.ApiError
		if err != nil && (!errors.As(err, &api) || api.Type != lua.ApiErrorSyntax || !strings.HasPrefix(lua.LVAsString(api.Object), "stdin:1: ")) {
			t.Errorf("Load(%q) error = %#v, want a syntax ApiError with stdin's position", src, err)
		}
	}
	if IsIncomplete(errors.New("near '<eof>'")) {
		t.Error("IsIncomplete is true for an error that is not a syntax error")
	}
}

func TestLoadFileErrors(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	dir := t.TempDir()
	_, err := LoadFile(L, dir)
	var api *lua.ApiError
	if !errors.As(err, &api) || api.Type != lua.ApiErrorFile || lua.LVAsString(api.Object) != "cannot read "+dir+": Is a directory" {
		t.Errorf("LoadFile(a directory) = %v, want lua5.1's \"cannot read %s: Is a directory\"", err, dir)
	}
	path := filepath.Join(dir, "script.lua")
	if err := os.WriteFile(path, []byte("#!/bin/lua\n\nerror('x')"), 0o644); err != nil {
		t.Fatal(err)
	}
	fn, err := LoadFile(L, path)
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	err = L.PCall(0, 0, nil)
	if !errors.As(err, &api) || lua.LVAsString(api.Object) != path+":3: x" {
		t.Errorf("running a script with a #! line: %v, want the error at %s:3", err, path)
	}
}

func TestSoundPrecompiledChunkIsRefused(t *testing.T) {
	// testdata/precompiled.luac is luac5.1's output for
	// print("made by luac5.1"): Lua 5.1 would run it; here it is refused
	// with a message that says so and what to do, as a file (also after a
	// "#!" line, which luaL_loadfile skips) and as a string.
	L := lua.NewState()
	defer L.Close()
	chunk, err := os.ReadFile(filepath.Join("testdata", "precompiled.luac"))
	if err != nil {
		t.Fatal(err)
	}
	if why := undump(chunk); why != "" {
		t.Fatalf("undump rejects luac5.1's output: %s", why)
	}
	withShebang := filepath.Join(t.TempDir(), "shebang.luac")
	if err := os.WriteFile(withShebang, append([]byte("#!/usr/bin/lua5.1\n"), chunk...), 0o644); err != nil {
		t.Fatal(err)
	}
	const cannot = ": precompiled chunks cannot be run here (gopher-lua runs Lua source only); load the chunk's source instead"
	for _, path := range []string{filepath.Join("testdata", "precompiled.luac"), withShebang} {
		_, err := LoadFile(L, path)
		var api *lua.ApiError
		if !errors.As(err, &api) || api.Type != lua.ApiErrorSyntax || lua.LVAsString(api.Object) != path+cannot {
			t.Errorf("LoadFile(%s) = %v, want %q", path, err, path+cannot)
		}
	}
	if _, err := LoadString(L, string(chunk), ""); err == nil || !strings.Contains(err.Error(), "binary string"+cannot) {
		t.Errorf("LoadString of the chunk = %v, want %q", err, "binary string"+cannot)
	}
}

// BenchmarkLoad measures loading a chunk of 200 small functions with Load
// (Lua 5.1's grammar check, the concatenation rewrite) and with stock
// gopher-lua's L.Load, in the same run.
func BenchmarkLoad(b *testing.B) {
	var src strings.Builder
	src.WriteString("local M, t = {}, {}\n")
	for i := range 200 {
		fmt.Fprintf(&src, "function M.f%d(a, b)\n", i)
		src.WriteString("  if a > b then return a .. ':' .. b else return t[a].x + 1 end\nend\n")
	}
	chunk := src.String()
	L := lua.NewState()
	defer L.Close()
	b.Run("lua51", func(b *testing.B) {
		for b.Loop() {
			if _, err := LoadString(L, chunk, "=bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stock", func(b *testing.B) {
		for b.Loop() {
			if _, err := L.Load(strings.NewReader(chunk), "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestSource(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, chunkname := range []string{"modname", "@script.lua", "=stdin", "return function() end"} {
		fn, err := LoadString(L, "return function() return 'a' .. 1 end", chunkname)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := Source(fn); !ok || got != chunkname {
			t.Errorf("Source(chunk loaded as %q) = %q, %v", chunkname, got, ok)
		}
		L.Push(fn)
		L.Call(0, 1)
		nested := L.Get(-1).(*lua.LFunction)
		L.Pop(1)
		if got, ok := Source(nested); !ok || got != chunkname {
			t.Errorf("Source(function in chunk %q) = %q, %v", chunkname, got, ok)
		}
	}
	stock, err := L.LoadString("return 1")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Source(stock); ok {
		t.Error("Source knows a function loaded by gopher-lua's own LoadString")
	}
	if _, ok := Source(L.NewFunction(func(*lua.LState) int { return 0 })); ok {
		t.Error("Source knows a Go function")
	}
}

// TestLocalFunctionValueScope checks that in local f = function ... end the
// function's f is the outer one, as in Lua 5.1 (gopher-lua's compiler
// treats it as local function f). The expected result is what Debian's
// lua5.1 (5.1.5) returned; recorded once.
func TestLocalFunctionValueScope(t *testing.T) {
	const src = `
local out = {}
local f = function() return f end
out[#out + 1] = tostring(f() == nil)
local function g() return g end
out[#out + 1] = tostring(g() == g)
local fact = function(n) if n <= 1 then return 1 end return n * fact(n - 1) end
out[#out + 1] = tostring(pcall(fact, 3))
local h = function(...) return select("#", ...) end
out[#out + 1] = tostring(h(1, 2, 3))
return table.concat(out, " ")`
	const want = "true true false 3"
	for _, withConcat := range []string{"", "\nlocal c = 'x' .. 1"} {
		L := lua.NewState()
		fn, err := LoadString(L, withConcat+src, "=lf")
		if err != nil {
			t.Fatal(err)
		}
		L.Push(fn)
		if err := L.PCall(0, 1, nil); err != nil {
			t.Fatal(err)
		}
		if got := L.ToString(-1); got != want {
			t.Errorf("chunk %q: got %q, want %q", withConcat+"...", got, want)
		}
		L.Close()
	}
}

// TestPackagePath checks that package.path is Debian lua5.1's: its default
// when LUA_PATH is not set (gopher-lua's lacked /usr/local/lib/lua/5.1 and
// /usr/share/lua/5.1), and LUA_PATH with ";;" standing for the default.
func TestPackagePath(t *testing.T) {
	const debian = "./?.lua;/usr/local/share/lua/5.1/?.lua;/usr/local/share/lua/5.1/?/init.lua;" +
		"/usr/local/lib/lua/5.1/?.lua;/usr/local/lib/lua/5.1/?/init.lua;" +
		"/usr/share/lua/5.1/?.lua;/usr/share/lua/5.1/?/init.lua"
	for _, c := range []struct {
		env  string
		set  bool
		want string
	}{
		{"", false, debian},
		{"", true, ""},
		{"/x/?.lua", true, "/x/?.lua"},
		{"/x/?.lua;;", true, "/x/?.lua;" + debian + ";"},
		{";;/y/?.lua", true, ";" + debian + ";/y/?.lua"},
	} {
		if c.set {
			t.Setenv("LUA_PATH", c.env)
		} else {
			t.Setenv("LUA_PATH", "")
			os.Unsetenv("LUA_PATH")
		}
		L := lua.NewState()
		installLoad(L)
		got := lua.LVAsString(L.GetField(L.GetGlobal("package"), "path"))
		L.Close()
		if got != c.want {
			t.Errorf("LUA_PATH %q (set %v): package.path is %q, want %q", c.env, c.set, got, c.want)
		}
	}
}
