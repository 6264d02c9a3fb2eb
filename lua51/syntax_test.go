package lua51

import (
	"fmt"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// syntaxCases are broken (and a few valid) chunks with the messages Debian's
// lua5.1 (5.1.5) gave for loadstring(chunk, "@syn.lua") and loadstring(chunk);
// "" where it loaded the chunk. Recorded once by running lua5.1 on each chunk:
//
//	local _, e1 = loadstring(c, "@syn.lua"); local _, e2 = loadstring(c)
var syntaxCases = []struct{ src, file, str string }{
	{"x = = 1", "syn.lua:1: unexpected symbol near '='", "[string \"x = = 1\"]:1: unexpected symbol near '='"},
	{"local t = {}\nt.x 1", "syn.lua:2: '=' expected near '1'", "[string \"local t = {}...\"]:2: '=' expected near '1'"},
	{"x", "syn.lua:1: '=' expected near '<eof>'", "[string \"x\"]:1: '=' expected near '<eof>'"},
	{"f(", "syn.lua:1: unexpected symbol near '<eof>'", "[string \"f(\"]:1: unexpected symbol near '<eof>'"},
	{"function f()\n  return 1\n", "syn.lua:3: 'end' expected (to close 'function' at line 1) near '<eof>'", "[string \"function f()...\"]:3: 'end' expected (to close 'function' at line 1) near '<eof>'"},
	{"if x then", "syn.lua:1: 'end' expected near '<eof>'", "[string \"if x then\"]:1: 'end' expected near '<eof>'"},
	{"if x then else", "syn.lua:1: 'end' expected near '<eof>'", "[string \"if x then else\"]:1: 'end' expected near '<eof>'"},
	{"while true do", "syn.lua:1: 'end' expected near '<eof>'", "[string \"while true do\"]:1: 'end' expected near '<eof>'"},
	{"for i = 1, 2 do", "syn.lua:1: 'end' expected near '<eof>'", "[string \"for i = 1, 2 do\"]:1: 'end' expected near '<eof>'"},
	{"for i 1", "syn.lua:1: '=' or 'in' expected near '1'", "[string \"for i 1\"]:1: '=' or 'in' expected near '1'"},
	{"for i, j = 1", "syn.lua:1: 'in' expected near '='", "[string \"for i, j = 1\"]:1: 'in' expected near '='"},
	{"repeat x = 1", "syn.lua:1: 'until' expected near '<eof>'", "[string \"repeat x = 1\"]:1: 'until' expected near '<eof>'"},
	{"do", "syn.lua:1: 'end' expected near '<eof>'", "[string \"do\"]:1: 'end' expected near '<eof>'"},
	{"x = 'abc", "syn.lua:1: unfinished string near '<eof>'", "[string \"x = 'abc\"]:1: unfinished string near '<eof>'"},
	{"x = 'abc\ny'", "syn.lua:1: unfinished string near ''abc'", "[string \"x = 'abc...\"]:1: unfinished string near ''abc'"},
	{"x = \"a\\300\"", "syn.lua:1: escape sequence too large near '\"a'", "[string \"x = \"a\\300\"\"]:1: escape sequence too large near '\"a'"},
	{"x = [[abc", "syn.lua:1: unfinished long string near '<eof>'", "[string \"x = [[abc\"]:1: unfinished long string near '<eof>'"},
	{"--[[ comment", "syn.lua:1: unfinished long comment near '<eof>'", "[string \"--[[ comment\"]:1: unfinished long comment near '<eof>'"},
	{"x = [==[ abc ]=]", "syn.lua:1: unfinished long string near '<eof>'", "[string \"x = [==[ abc ]=]\"]:1: unfinished long string near '<eof>'"},
	{"x = [=x", "syn.lua:1: invalid long string delimiter near '[='", "[string \"x = [=x\"]:1: invalid long string delimiter near '[='"},
	{"x = 3x", "syn.lua:1: malformed number near '3x'", "[string \"x = 3x\"]:1: malformed number near '3x'"},
	{"x = 0x", "syn.lua:1: malformed number near '0x'", "[string \"x = 0x\"]:1: malformed number near '0x'"},
	{"x = 1e", "syn.lua:1: malformed number near '1e'", "[string \"x = 1e\"]:1: malformed number near '1e'"},
	{"x = 1..2", "syn.lua:1: malformed number near '1..2'", "[string \"x = 1..2\"]:1: malformed number near '1..2'"},
	{"x = 1.2.3", "syn.lua:1: malformed number near '1.2.3'", "[string \"x = 1.2.3\"]:1: malformed number near '1.2.3'"},
	{"x = @", "syn.lua:1: unexpected symbol near '@'", "[string \"x = @\"]:1: unexpected symbol near '@'"},
	{"x = ~1", "syn.lua:1: unexpected symbol near '~'", "[string \"x = ~1\"]:1: unexpected symbol near '~'"},
	{"x = \x01", "syn.lua:1: unexpected symbol near 'char(1)'", "[string \"x = \x01\"]:1: unexpected symbol near 'char(1)'"},
	{"return return", "syn.lua:1: unexpected symbol near 'return'", "[string \"return return\"]:1: unexpected symbol near 'return'"},
	{"return 1 print(2)", "syn.lua:1: '<eof>' expected near 'print'", "[string \"return 1 print(2)\"]:1: '<eof>' expected near 'print'"},
	{"break", "syn.lua:1: no loop to break near '<eof>'", "[string \"break\"]:1: no loop to break near '<eof>'"},
	{"function f() break end", "syn.lua:1: no loop to break near 'end'", "[string \"function f() break end\"]:1: no loop to break near 'end'"},
	{"local function f(a,) end", "syn.lua:1: <name> or '...' expected near ')'", "[string \"local function f(a,) end\"]:1: <name> or '...' expected near ')'"},
	{"local function f(a b) end", "syn.lua:1: ')' expected near 'b'", "[string \"local function f(a b) end\"]:1: ')' expected near 'b'"},
	{"function f(...) return function() return ... end end", "syn.lua:1: cannot use '...' outside a vararg function near '...'", "[string \"function f(...) return function() return ... end end\"]:1: cannot use '...' outside a vararg function near '...'"},
	{"(x) = 1", "syn.lua:1: syntax error near '='", "[string \"(x) = 1\"]:1: syntax error near '='"},
	{"f() = 1", "syn.lua:1: unexpected symbol near '='", "[string \"f() = 1\"]:1: unexpected symbol near '='"},
	{"a, f() = 1", "syn.lua:1: syntax error near '='", "[string \"a, f() = 1\"]:1: syntax error near '='"},
	{"a.b:c = 1", "syn.lua:1: function arguments expected near '='", "[string \"a.b:c = 1\"]:1: function arguments expected near '='"},
	{"x = {1, 2", "syn.lua:1: '}' expected near '<eof>'", "[string \"x = {1, 2\"]:1: '}' expected near '<eof>'"},
	{"x = {1, 2\n\n", "syn.lua:3: '}' expected (to close '{' at line 1) near '<eof>'", "[string \"x = {1, 2...\"]:3: '}' expected (to close '{' at line 1) near '<eof>'"},
	{"x = {[1] 2}", "syn.lua:1: '=' expected near '2'", "[string \"x = {[1] 2}\"]:1: '=' expected near '2'"},
	{"x = (1", "syn.lua:1: ')' expected near '<eof>'", "[string \"x = (1\"]:1: ')' expected near '<eof>'"},
	{"x = (1\n+2", "syn.lua:2: ')' expected (to close '(' at line 1) near '<eof>'", "[string \"x = (1...\"]:2: ')' expected (to close '(' at line 1) near '<eof>'"},
	{"f\n(1)", "syn.lua:2: ambiguous syntax (function call x new statement) near '('", "[string \"f...\"]:2: ambiguous syntax (function call x new statement) near '('"},
	{"local = 1", "syn.lua:1: '<name>' expected near '='", "[string \"local = 1\"]:1: '<name>' expected near '='"},
	{"local 1", "syn.lua:1: '<name>' expected near '1'", "[string \"local 1\"]:1: '<name>' expected near '1'"},
	{"x = function", "syn.lua:1: '(' expected near '<eof>'", "[string \"x = function\"]:1: '(' expected near '<eof>'"},
	{"x = 1 +", "syn.lua:1: unexpected symbol near '<eof>'", "[string \"x = 1 +\"]:1: unexpected symbol near '<eof>'"},
	{"x = not", "syn.lua:1: unexpected symbol near '<eof>'", "[string \"x = not\"]:1: unexpected symbol near '<eof>'"},
	{"a.b = ", "syn.lua:1: unexpected symbol near '<eof>'", "[string \"a.b = \"]:1: unexpected symbol near '<eof>'"},
	{"if x == 1 then y = 2 elseif", "syn.lua:1: unexpected symbol near '<eof>'", "[string \"if x == 1 then y = 2 elseif\"]:1: unexpected symbol near '<eof>'"},
	{"goto = 1", "", ""},
	{"local goto = 2", "", ""},
	{"x = y z", "syn.lua:1: '=' expected near '<eof>'", "[string \"x = y z\"]:1: '=' expected near '<eof>'"},
	{"t = {a = }", "syn.lua:1: unexpected symbol near '}'", "[string \"t = {a = }\"]:1: unexpected symbol near '}'"},
	{"x = #", "syn.lua:1: unexpected symbol near '<eof>'", "[string \"x = #\"]:1: unexpected symbol near '<eof>'"},
	{"f:g", "syn.lua:1: function arguments expected near '<eof>'", "[string \"f:g\"]:1: function arguments expected near '<eof>'"},
	{"f:g 1", "syn.lua:1: function arguments expected near '1'", "[string \"f:g 1\"]:1: function arguments expected near '1'"},
	{"local x <const> = 1", "syn.lua:1: unexpected symbol near '<'", "[string \"local x <const> = 1\"]:1: unexpected symbol near '<'"},
	{"x = 'a\\\nb", "syn.lua:2: unfinished string near '<eof>'", "[string \"x = 'a\\...\"]:2: unfinished string near '<eof>'"},
	{"  \n\n  end", "syn.lua:3: '<eof>' expected near 'end'", "[string \"  ...\"]:3: '<eof>' expected near 'end'"},
	{"x = 1 end", "syn.lua:1: '<eof>' expected near 'end'", "[string \"x = 1 end\"]:1: '<eof>' expected near 'end'"},
	{"for a,b in pairs(t) x", "syn.lua:1: 'do' expected near 'x'", "[string \"for a,b in pairs(t) x\"]:1: 'do' expected near 'x'"},
	{"local function end", "syn.lua:1: '<name>' expected near 'end'", "[string \"local function end\"]:1: '<name>' expected near 'end'"},
	{"function a.b:c.d() end", "syn.lua:1: '(' expected near '.'", "[string \"function a.b:c.d() end\"]:1: '(' expected near '.'"},
	{"x = [[a [[ b]]", "syn.lua:1: nesting of [[...]] is deprecated near '['", "[string \"x = [[a [[ b]]\"]:1: nesting of [[...]] is deprecated near '['"},
	{"x = a[1", "syn.lua:1: ']' expected near '<eof>'", "[string \"x = a[1\"]:1: ']' expected near '<eof>'"},
	{"x = a[1\n\n", "syn.lua:3: ']' expected near '<eof>'", "[string \"x = a[1...\"]:3: ']' expected near '<eof>'"},
	{"return (...)", "", ""},
	{"function f(a, ...) local t = {...} end", "", ""},
	{"x = \"\\", "syn.lua:1: unfinished string near '<eof>'", "[string \"x = \"\\\"]:1: unfinished string near '<eof>'"},
	{"--[==[ x ]==] y", "syn.lua:1: '=' expected near '<eof>'", "[string \"--[==[ x ]==] y\"]:1: '=' expected near '<eof>'"},
	{"x = 1\x0d\ny = = 2", "syn.lua:2: unexpected symbol near '='", "[string \"x = 1...\"]:2: unexpected symbol near '='"},
	{"x = 12345678901234567890123456789012345678901234567890123456789012345678901234567890", "", ""},
	{"x = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb'", "syn.lua:1: unfinished string near ''aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", "[string \"x = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\"]:1: unfinished string near ''aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"},
	{"::lbl::", "syn.lua:1: unexpected symbol near ':'", "[string \"::lbl::\"]:1: unexpected symbol near ':'"},
	{"x = a..", "syn.lua:1: unexpected symbol near '<eof>'", "[string \"x = a..\"]:1: unexpected symbol near '<eof>'"},
	{"while 1 do break break end", "syn.lua:1: 'end' expected near 'break'", "[string \"while 1 do break break end\"]:1: 'end' expected near 'break'"},
	{"until x", "syn.lua:1: '<eof>' expected near 'until'", "[string \"until x\"]:1: '<eof>' expected near 'until'"},
	{"elseif", "syn.lua:1: '<eof>' expected near 'elseif'", "[string \"elseif\"]:1: '<eof>' expected near 'elseif'"},
	{"x.1 = 2", "syn.lua:1: '=' expected near '.1'", "[string \"x.1 = 2\"]:1: '=' expected near '.1'"},
	{"x = .5 + .", "syn.lua:1: unexpected symbol near '.'", "[string \"x = .5 + .\"]:1: unexpected symbol near '.'"},
	{"x = 1 \x00", "syn.lua:1: unexpected symbol", "[string \"x = 1 \"]:1: unexpected symbol"},
	{"x = 'a\x00b\ny'", "syn.lua:1: unfinished string near ''a'", "[string \"x = 'a\"]:1: unfinished string near ''a'"},
	{"f(\x00)", "syn.lua:1: unexpected symbol", "[string \"f(\"]:1: unexpected symbol"},
	{"x = \x7f", "syn.lua:1: unexpected symbol near 'char(127)'", "[string \"x = \x7f\"]:1: unexpected symbol near 'char(127)'"},
}

func TestSyntaxErrorsAsLua51(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, c := range syntaxCases {
		want := []struct{ chunkname, msg string }{{"@syn.lua", c.file}, {c.src, c.str}}
		for _, w := range want {
			if got := loadMessage(L, c.src, w.chunkname); got != w.msg {
				t.Errorf("load %q as %q:\n got %q\nwant %q", c.src, w.chunkname, got, w.msg)
			}
		}
	}
}

// loadMessage is the error message of loading src, "" if it loads.
func loadMessage(L *lua.LState, src, chunkname string) string {
	_, err := LoadString(L, src, chunkname)
	if err == nil {
		return ""
	}
	return string(errorValue(err).(lua.LString))
}

// localsChunk declares n locals, one a line.
func localsChunk(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("local a%d", i+1)
	}
	return strings.Join(lines, "\n")
}

// TestLocalLimitAsLua51 checks Lua 5.1's limit of 200 active locals a
// function; the messages are what Debian's lua5.1 (5.1.5) gave for
// loadstring(chunk, "=lim"), recorded once.
func TestLocalLimitAsLua51(t *testing.T) {
	params := func(n int) string { return strings.Repeat("p, ", n) }
	cases := []struct{ src, want string }{
		{localsChunk(200), ""},
		{localsChunk(201), "lim:201: main function has more than 200 local variables"},
		{"local x\nfunction f()\n" + localsChunk(201) + "\nend", "lim:204: function at line 2 has more than 200 local variables"},
		{localsChunk(197) + "\nfor i = 1, 2 do end", "lim:198: main function has more than 200 local variables"},
		{localsChunk(196) + "\nfor i = 1, 2 do end", ""},
		{localsChunk(196) + "\nfor k, v in pairs({}) do end", "lim:197: main function has more than 200 local variables"},
		{localsChunk(195) + "\nfor k, v in pairs({}) do end", ""},
		{localsChunk(199) + "\nlocal function f() end", ""},
		{localsChunk(200) + "\nlocal function f() end", "lim:201: main function has more than 200 local variables"},
		{"local a, b = 1\n" + localsChunk(198) + "\ndo local c end", "lim:200: main function has more than 200 local variables"},
		{"function f(" + params(198) + "...) end", ""},
		{"do " + localsChunk(200) + " end " + localsChunk(200), ""},
		// A chunk without room for the hidden local of concatenations loads.
		{localsChunk(196) + "\nreturn a1 .. a2", ""},
	}
	L := lua.NewState()
	defer L.Close()
	for i, c := range cases {
		if got := loadMessage(L, c.src, "=lim"); got != c.want {
			t.Errorf("case %d: got %q, want %q", i+1, got, c.want)
		}
	}
}

// TestSyntaxLevelsAsLua51 checks Lua 5.1's limit on nesting ("chunk has
// too many syntax levels"): the first depth each construct fails at is what
// Debian's lua5.1 (5.1.5) gave for loadstring from a main chunk; recorded
// once.
func TestSyntaxLevelsAsLua51(t *testing.T) {
	cases := []struct {
		name   string
		gen    func(n int) string
		failAt int
	}{
		{"parentheses", func(n int) string { return "x = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }, 197},
		{"unary minus", func(n int) string { return "x = " + strings.Repeat("- ", n) + "1" }, 197},
		{"do blocks", func(n int) string { return strings.Repeat("do ", n) + strings.Repeat("end ", n) }, 198},
		{"tables", func(n int) string { return "x = " + strings.Repeat("{", n) + strings.Repeat("}", n) }, 198},
		{"calls", func(n int) string { return strings.Repeat("f(", n) + strings.Repeat(")", n) }, 199},
		{"functions", func(n int) string {
			return "x = " + strings.Repeat("function() return ", n) + "1" + strings.Repeat(" end", n)
		}, 99},
		{"concatenations", func(n int) string { return "x = 1" + strings.Repeat(" .. 1", n) }, 197},
	}
	L := lua.NewState()
	defer L.Close()
	for _, c := range cases {
		if got := loadMessage(L, c.gen(c.failAt-1), "=lv"); got != "" {
			t.Errorf("%s, %d deep: %q, want no error", c.name, c.failAt-1, got)
		}
		if got, want := loadMessage(L, c.gen(c.failAt), "=lv"), "lv:1: chunk has too many syntax levels"; got != want {
			t.Errorf("%s, %d deep: %q, want %q", c.name, c.failAt, got, want)
		}
	}
}
