package lua51_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// genProgram writes a random Lua 5.1 program, the same for the same seed,
// whose output is deterministic in Lua 5.1 (no addresses, no pairs order,
// no borders of tables with holes) and that ends on its own: every loop is
// bounded and recursion shallow. It prints its values as it goes (through
// P, which shows tables and functions by type), so a difference shows near
// the statement that caused it. It exercises what compilers and
// interpreters get wrong: assignments whose targets are read on their right
// side, across locals, upvalues, globals and fields; closures over loop
// variables; varargs and multiple results; methods; metatables; pcall and
// error values; strings and patterns; arithmetic and coercion; the table
// library; tostring and tonumber; tail calls; coroutines; and conditions
// that are constants, and deep and/or chains.
func genProgram(seed uint64) string {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	g.line(prelude)
	g.scopes = []*genScope{{}}
	g.declare("g1", kindNum, false)
	g.declare("g2", kindNum, false)
	g.declare("gs", kindStr, false)
	g.declare("T.a", kindNum, false)
	g.declare("T.b", kindNum, false)
	g.declare("T.s", kindStr, false)
	n := 6 + g.r.IntN(14)
	for range n {
		g.stmt(0)
	}
	if g.r.IntN(8) == 0 {
		g.line("error(" + g.errorValue() + ")")
	}
	return g.b.String()
}

// prelude is the start of every program: the globals and fields the
// statements use, and P, which prints its arguments on one line.
const prelude = `g1, g2, gs = 1, 2, "g"
T = {a = 3, b = 4, s = "t"}
local function S(v)
  local t = type(v)
  if v == 0 then return "0" end
  if t == "table" and getmetatable(v) and getmetatable(v).__tostring then return tostring(v) end
  if t == "table" or t == "function" or t == "thread" or t == "userdata" then return t end
  return tostring(v)
end
local function P(...)
  local n = select("#", ...)
  local o = {}
  for i = 1, n do o[i] = S((select(i, ...))) end
  print(n, table.concat(o, " "))
end`

// valueKind is what a variable holds: a number, a string, or anything.
type valueKind int

const (
	kindNum valueKind = iota
	kindStr
	kindAny
)

// genVar is a variable a statement may read, and write unless readOnly.
type genVar struct {
	name     string
	kind     valueKind
	readOnly bool
}

// genScope is one block's variables.
type genScope struct{ vars []genVar }

// gen writes one program.
type gen struct {
	r      *rand.Rand
	b      strings.Builder
	indent int
	scopes []*genScope
	next   int  // the number of the next fresh name
	vararg bool // the function being written takes ...
	loop   bool // a break is allowed here
}

func (g *gen) line(s string) {
	for _, l := range strings.Split(s, "\n") {
		g.b.WriteString(strings.Repeat("  ", g.indent))
		g.b.WriteString(l)
		g.b.WriteString("\n")
	}
}

func (g *gen) fresh(prefix string) string {
	g.next++
	return prefix + strconv.Itoa(g.next)
}

func (g *gen) declare(name string, k valueKind, readOnly bool) {
	s := g.scopes[len(g.scopes)-1]
	s.vars = append(s.vars, genVar{name, k, readOnly})
}

// vars is every visible variable of kind k (any kind for kindAny).
func (g *gen) vars(k valueKind, writable bool) []genVar {
	var out []genVar
	for _, s := range g.scopes {
		for _, v := range s.vars {
			if (k == kindAny || v.kind == k) && (!writable || !v.readOnly) {
				out = append(out, v)
			}
		}
	}
	return out
}

func (g *gen) pick(vs []genVar) genVar { return vs[g.r.IntN(len(vs))] }

// block writes body in a block of its own.
func (g *gen) block(body func()) {
	g.scopes = append(g.scopes, &genScope{})
	g.indent++
	body()
	g.indent--
	g.scopes = g.scopes[:len(g.scopes)-1]
}

// stmts writes up to n statements.
func (g *gen) stmts(depth, n int) {
	for range 1 + g.r.IntN(n) {
		g.stmt(depth)
	}
}

func (g *gen) stmt(depth int) {
	choice := g.r.IntN(24)
	if depth >= 3 && choice >= 8 {
		choice %= 8
	}
	switch choice {
	case 0, 1:
		g.local()
	case 2, 3, 4:
		g.assign()
	case 5, 6:
		g.print()
	case 7:
		if g.loop && g.r.IntN(3) == 0 {
			g.line("if " + g.constCond() + " then break end")
		} else {
			g.print()
		}
	case 8, 9:
		g.ifStmt(depth)
	case 10:
		g.numericFor(depth)
	case 11, 12:
		g.genericFor(depth)
	case 13:
		g.whileLoop(depth)
	case 14:
		g.function(depth)
	case 15:
		g.protected(depth)
	case 16:
		g.tableLib()
	case 17:
		g.metatables()
	case 18:
		g.coroutine()
	case 19:
		g.closures()
	case 20:
		g.varargs()
	case 21:
		g.method()
	case 22:
		g.strings()
	case 23:
		g.tailCall()
	}
}

func (g *gen) local() {
	k := valueKind(g.r.IntN(3))
	names := []string{g.fresh("v")}
	exprs := []string{g.expr(k, 0)}
	if g.r.IntN(3) == 0 {
		names = append(names, g.fresh("v"))
		exprs = append(exprs, g.expr(k, 0))
	}
	g.line("local " + strings.Join(names, ", ") + " = " + strings.Join(exprs, ", "))
	for _, n := range names {
		g.declare(n, k, false)
	}
}

// assign writes an assignment of one to four targets, whose values read
// the targets themselves more often than not.
func (g *gen) assign() {
	k := valueKind(g.r.IntN(2))
	if g.r.IntN(6) == 0 {
		k = kindAny
	}
	targets := g.vars(k, true)
	if k == kindAny {
		targets = nil
		for _, v := range g.vars(kindAny, true) {
			if v.kind == kindAny {
				targets = append(targets, v)
			}
		}
	}
	if len(targets) == 0 {
		g.local()
		return
	}
	n := 1 + g.r.IntN(4)
	lhs := make([]string, n)
	for i := range lhs {
		lhs[i] = g.pick(targets).name
	}
	var rhs []string
	switch g.r.IntN(6) {
	case 0: // fewer values than targets: the rest are nil only for kindAny
		if k == kindAny {
			rhs = []string{g.expr(k, 0)}
			break
		}
		fallthrough
	default:
		m := n
		if g.r.IntN(4) == 0 {
			m++
		}
		for range m {
			if g.r.IntN(2) == 0 {
				rhs = append(rhs, g.pick(targets).name)
			} else {
				rhs = append(rhs, g.expr(k, 0))
			}
		}
	}
	g.line(strings.Join(lhs, ", ") + " = " + strings.Join(rhs, ", "))
	if g.r.IntN(2) == 0 {
		g.line("P(" + strings.Join(lhs, ", ") + ")")
	}
}

func (g *gen) print() {
	n := 1 + g.r.IntN(3)
	args := make([]string, n)
	for i := range args {
		args[i] = g.expr(valueKind(g.r.IntN(3)), 0)
	}
	g.line("P(" + strings.Join(args, ", ") + ")")
}

// constCond is a condition the compiler may fold.
func (g *gen) constCond() string {
	return []string{"false", "nil", "true", "1", `"x"`, "not nil", "nil or false", "false or 1", "1 and nil", "(nil)", "not 1"}[g.r.IntN(11)]
}

func (g *gen) cond() string {
	if g.r.IntN(3) == 0 {
		return g.constCond()
	}
	return g.expr(kindAny, 0)
}

func (g *gen) ifStmt(depth int) {
	g.line("if " + g.cond() + " then")
	g.block(func() { g.stmts(depth+1, 3) })
	for range g.r.IntN(3) {
		g.line("elseif " + g.cond() + " then")
		g.block(func() { g.stmts(depth+1, 2) })
	}
	if g.r.IntN(2) == 0 {
		g.line("else")
		g.block(func() { g.stmts(depth+1, 2) })
	}
	g.line("end")
}

// inLoop writes body with break allowed.
func (g *gen) inLoop(body func()) {
	was := g.loop
	g.loop = true
	body()
	g.loop = was
}

func (g *gen) numericFor(depth int) {
	i := g.fresh("i")
	bounds := [][3]string{{"1", "3", ""}, {"3", "1", "-1"}, {"0", "1", "0.5"}, {`"1"`, `"2"`, ""}, {"-1", "1", ""}, {"1", "0", ""}, {"2", "6", "2"}}
	b := bounds[g.r.IntN(len(bounds))]
	head := "for " + i + " = " + b[0] + ", " + b[1]
	if b[2] != "" {
		head += ", " + b[2]
	}
	g.line(head + " do")
	g.block(func() {
		g.declare(i, kindNum, true)
		g.inLoop(func() { g.stmts(depth+1, 4) })
	})
	g.line("end")
}

func (g *gen) genericFor(depth int) {
	k, v := g.fresh("k"), g.fresh("e")
	items := make([]string, 1+g.r.IntN(4))
	for i := range items {
		items[i] = g.expr(kindNum, 2)
	}
	iter := "ipairs({" + strings.Join(items, ", ") + "})"
	if g.r.IntN(3) == 0 {
		iter = "string.gmatch(" + strconv.Quote(g.word()+" "+g.word()) + `, "%a+")`
		g.line("for " + v + " in " + iter + " do")
		g.block(func() {
			g.declare(v, kindStr, true)
			g.inLoop(func() { g.stmts(depth+1, 4) })
		})
		g.line("end")
		return
	}
	g.line("for " + k + ", " + v + " in " + iter + " do")
	g.block(func() {
		g.declare(k, kindNum, true)
		g.declare(v, kindNum, true)
		g.inLoop(func() {
			if g.r.IntN(2) == 0 {
				g.line("if " + g.constCond() + " then")
				g.block(func() { g.stmts(depth+1, 2) })
				if g.r.IntN(2) == 0 {
					g.line("else")
					g.block(func() { g.stmts(depth+1, 2) })
				}
				g.line("end")
			}
			g.stmts(depth+1, 4)
		})
	})
	g.line("end")
}

func (g *gen) whileLoop(depth int) {
	c := g.fresh("c")
	g.line("local " + c + " = 0")
	if g.r.IntN(2) == 0 {
		g.line("while " + c + " < " + strconv.Itoa(1+g.r.IntN(3)) + " do")
		g.block(func() {
			g.line(c + " = " + c + " + 1")
			g.inLoop(func() { g.stmts(depth+1, 3) })
		})
		g.line("end")
		return
	}
	g.line("repeat")
	g.block(func() {
		g.line(c + " = " + c + " + 1")
		g.inLoop(func() { g.stmts(depth+1, 3) })
	})
	g.line("until " + c + " >= " + strconv.Itoa(1+g.r.IntN(3)))
}

// function writes a local function with its own body, which reads and
// writes the variables around it as upvalues, and calls it.
func (g *gen) function(depth int) {
	f := g.fresh("f")
	a, b := g.fresh("a"), g.fresh("b")
	g.line("local function " + f + "(" + a + ", " + b + ")")
	wasLoop, wasVararg := g.loop, g.vararg
	g.loop, g.vararg = false, false
	g.block(func() {
		g.declare(a, kindNum, false)
		g.declare(b, kindNum, false)
		g.stmts(depth+1, 4)
		g.line("return " + g.expr(kindNum, 0) + ", " + g.expr(kindAny, 1))
	})
	g.loop, g.vararg = wasLoop, wasVararg
	g.line("end")
	g.line("P(" + f + "(" + g.expr(kindNum, 1) + ", " + g.expr(kindNum, 1) + "))")
	if g.r.IntN(2) == 0 {
		t := g.pick(g.vars(kindNum, true)).name
		u := g.fresh("v")
		g.line("local " + u)
		g.declare(u, kindAny, false)
		g.line(t + ", " + u + " = " + f + "(" + t + ", " + g.expr(kindNum, 1) + ")")
		g.line("P(" + t + ", " + u + ")")
	}
}

func (g *gen) errorValue() string {
	switch g.r.IntN(6) {
	case 0:
		return "{code = " + g.expr(kindNum, 1) + "}"
	case 1:
		return ""
	case 2:
		return g.numz(1)
	case 3:
		return g.expr(kindStr, 1) + ", 0"
	case 4:
		return "setmetatable({}, {__tostring = function() return \"custom\" end})"
	}
	return g.expr(kindStr, 1)
}

// protected writes a pcall of a function that may fail, by error or by
// an operation on a bad value, and prints what pcall returns.
func (g *gen) protected(depth int) {
	g.line("P(pcall(function(...)")
	wasLoop := g.loop
	g.loop = false
	g.block(func() {
		g.stmts(depth+1, 3)
		switch g.r.IntN(5) {
		case 0:
			g.line("error(" + g.errorValue() + ")")
		case 1:
			g.line("local z = " + g.expr(kindNum, 1) + " + nil")
		case 2:
			g.line("local z = T.missing.field")
		case 3:
			g.line("return undefinedfn(" + g.expr(kindNum, 1) + ")")
		default:
			g.line("return " + g.expr(kindAny, 0) + ", ...")
		}
	})
	g.loop = wasLoop
	g.line("end, " + g.expr(kindNum, 1) + "))")
}

func (g *gen) tableLib() {
	t := g.fresh("t")
	items := make([]string, 1+g.r.IntN(5))
	for i := range items {
		items[i] = g.numz(2)
	}
	g.line("local " + t + " = {" + strings.Join(items, ", ") + "}")
	for range 1 + g.r.IntN(4) {
		switch g.r.IntN(6) {
		case 0:
			g.line("table.insert(" + t + ", " + g.numz(1) + ")")
		case 1:
			g.line("table.insert(" + t + ", 1, " + g.numz(1) + ")")
		case 2:
			g.line("P(table.remove(" + t + "), #" + t + ")")
		case 3:
			g.line("table.sort(" + t + ")")
		case 4:
			g.line("table.sort(" + t + ", function(x, y) return x > y end)")
		case 5:
			g.line(t + "[#" + t + " + 1] = " + g.numz(1))
		}
	}
	g.line("P(#" + t + ", table.concat(" + t + ", \",\"), unpack(" + t + "))")
}

func (g *gen) metatables() {
	mt, o := g.fresh("mt"), g.fresh("o")
	g.line("local " + mt + " = {}")
	g.line(mt + ".__index = function(t, k) return k .. \"?\" end")
	g.line(mt + ".__add = function(x, y) return (type(x) == \"table\" and x.v or x) + (type(y) == \"table\" and y.v or y) end")
	g.line(mt + ".__eq = function(x, y) return x.v == y.v end")
	g.line(mt + ".__lt = function(x, y) return x.v < y.v end")
	g.line(mt + ".__le = function(x, y) return x.v <= y.v end")
	g.line(mt + ".__concat = function(x, y) return \"cat\" end")
	g.line(mt + ".__call = function(self, a) return self.v * 2, a end")
	g.line(mt + ".__tostring = function(self) return \"obj\" .. self.v end")
	g.line(mt + ".__unm = function(self) return -self.v end")
	g.line("local " + o + " = setmetatable({v = " + g.numz(1) + "}, " + mt + ")")
	g.line("local " + o + "b = setmetatable({v = " + g.numz(1) + "}, " + mt + ")")
	g.line("P(" + o + " + 1, 2 + " + o + ", " + o + " + " + o + "b, " + o + " == " + o + "b, " + o + " < " + o + "b, " + o + " <= " + o + "b)")
	g.line("P(" + o + ".name, " + o + " .. \"x\", " + o + "(" + g.expr(kindAny, 1) + "), tostring(" + o + "), -" + o + ")")
	g.line("P(rawget(" + o + ", \"name\"), rawequal(" + o + ", " + o + "b), getmetatable(" + o + ") == " + mt + ")")
}

func (g *gen) coroutine() {
	co := g.fresh("co")
	g.line("local " + co + " = coroutine.wrap(function(a)")
	g.line("  for i = 1, 3 do a = coroutine.yield(a + i, i) end")
	g.line("  return \"done\", a")
	g.line("end)")
	args := make([]string, 4)
	for i := range args {
		args[i] = co + "(" + g.expr(kindNum, 1) + ")"
	}
	g.line("P(" + strings.Join(args, ", ") + ")")
	c2 := g.fresh("co")
	g.line("local " + c2 + " = coroutine.create(function(x) local y = coroutine.yield((x or 0) * 2) error(\"boom \" .. y) end)")
	g.line("P(coroutine.resume(" + c2 + ", " + g.expr(kindNum, 1) + "))")
	g.line("P(coroutine.resume(" + c2 + ", " + g.expr(kindStr, 1) + "))")
	g.line("P(coroutine.status(" + c2 + "), coroutine.resume(" + c2 + "))")
}

// closures writes functions made in a loop, each closing over its own
// loop variable and a shared upvalue.
func (g *gen) closures() {
	fs, acc := g.fresh("fs"), g.fresh("acc")
	g.line("local " + fs + ", " + acc + " = {}, 0")
	g.line("for i = 1, 3 do")
	g.line("  local j = i * 10")
	g.line("  " + fs + "[i] = function(x) " + acc + " = " + acc + " + i; j = j + 1; return i + j + x, " + acc + " end")
	g.line("end")
	g.line("P(" + fs + "[1](" + g.expr(kindNum, 1) + "), " + fs + "[2](1), " + fs + "[1](0), " + fs + "[3](2), " + acc + ")")
	g.line("for _, e in ipairs({5, 6}) do " + fs + "[#" + fs + " + 1] = function() return e end end")
	g.line("P(" + fs + "[4](), " + fs + "[5]())")
}

func (g *gen) varargs() {
	f := g.fresh("va")
	g.line("local function " + f + "(...)")
	g.line("  local a, b = ...")
	g.line("  local t = {...}")
	g.line("  return select(\"#\", ...), a, b, t[1], ...")
	g.line("end")
	args := make([]string, g.r.IntN(4))
	for i := range args {
		args[i] = g.expr(valueKind(g.r.IntN(3)), 1)
	}
	g.line("P(" + f + "(" + strings.Join(args, ", ") + "))")
	g.line("P((" + f + "(" + strings.Join(args, ", ") + ")))")
	g.line("P(" + f + "(" + f + "(" + strings.Join(args, ", ") + ")))")
	g.line("P(select(2, " + f + "(" + strings.Join(args, ", ") + ")))")
}

func (g *gen) method() {
	o := g.fresh("obj")
	g.line("local " + o + " = {v = " + g.expr(kindNum, 1) + ", name = " + g.expr(kindStr, 1) + "}")
	g.line("function " + o + ":add(x) self.v = self.v + x return self end")
	g.line("function " + o + ".get(self) return self.v, self.name end")
	g.line("P(" + o + ":add(" + g.expr(kindNum, 1) + "):add(1):get())")
	g.line("P(" + o + ".v, " + o + ":get())")
	g.line(o + ".v, " + o + ".name = " + o + ".name, " + o + ".v")
	g.line("P(" + o + ":get())")
}

func (g *gen) strings() {
	s := g.expr(kindStr, 1)
	switch g.r.IntN(7) {
	case 0:
		g.line("P(string.format(\"%d|%5.2f|%s|%q|%x|%g\", " + g.expr(kindNum, 1) + ", " + g.numz(1) + ", " + s + ", " + s + ", 255, " + g.numz(1) + "))")
	case 1:
		g.line("P(string.gsub(" + s + ", \"(%w)(%w*)\", \"%2%1\"))")
	case 2:
		g.line("P(string.find(" + s + ", \"%a+\"), string.find(" + s + ", \".\", 1, true), string.match(" + s + ", \"^(%s*)(.-)$\"))")
	case 3:
		g.line("P(string.rep(" + s + ", 3, nil), (" + s + "):upper(), string.sub(" + s + ", 2, -2), string.byte(\"abc\", 1, -1))")
	case 4:
		g.line("P(tonumber(" + s + "), tonumber(\"0x1F\"), tonumber(\" 12 \"), tonumber(\"1e2\"), tonumber(\"z\", 36), tonumber(\"12\", 8), tonumber(\"\"))")
	case 5:
		g.line("P(tostring(" + g.expr(kindNum, 1) + "), tostring(nil), tostring(true), " + s + " < \"m\", #" + s + ")")
	case 6:
		g.line("P(string.gsub(" + s + ", \"%s\", {a = \"A\", [\" \"] = \"_\"}), string.gsub(\"hello world\", \"o\", function(c) return nil end, 1))")
	}
}

func (g *gen) tailCall() {
	f := g.fresh("tc")
	g.line("local function " + f + "(n, acc)")
	g.line("  if n <= 0 then return acc, n end")
	g.line("  return " + f + "(n - 1, acc + n)")
	g.line("end")
	g.line("P(" + f + "(" + strconv.Itoa(g.r.IntN(50)) + ", " + g.expr(kindNum, 1) + "))")
}

// num0 is a string or a number plus 0, so that a zero is never -0 (a zero
// from arithmetic has no sign here, see docs/lua.md).
func (g *gen) num0(depth int) string {
	if g.r.IntN(2) == 0 {
		return g.expr(kindStr, depth)
	}
	return g.numz(depth)
}

// numz is a number expression plus 0, which is never -0.
func (g *gen) numz(depth int) string {
	return "(" + g.expr(kindNum, depth) + " + 0)"
}

func (g *gen) word() string {
	return []string{"alpha", "beta", "x", "", "Hello World", "a1b2", " 3 ", "10", "0x10", "1e1", "nan", "-0"}[g.r.IntN(12)]
}

// numLiterals are the number literals of expressions. None is negative,
// and unary minus applies to variables only: a constant expression that Lua
// 5.1 folds to -0 (0 * -1) becomes the constant of every later 0 of its
// function there (see docs/lua.md).
var numLiterals = []string{"0", "1", "2", "3", "10", "0.5", "1e3", "2^53", "7", "1/3", "100"}

// expr is an expression of kind k; deeper expressions are simpler.
func (g *gen) expr(k valueKind, depth int) string {
	leaf := depth >= 3 || g.r.IntN(3) == 0
	switch k {
	case kindNum:
		vs := g.vars(kindNum, false)
		if leaf {
			if len(vs) > 0 && g.r.IntN(2) == 0 {
				return g.pick(vs).name
			}
			return numLiterals[g.r.IntN(len(numLiterals))]
		}
		switch g.r.IntN(12) {
		case 0, 1, 2:
			op := []string{"+", "-", "*", "/", "%", "^"}[g.r.IntN(6)]
			switch op {
			case "^":
				return "(" + g.expr(kindNum, depth+1) + " ^ " + []string{"2", "0.5", "3"}[g.r.IntN(3)] + ")"
			case "/":
				// A constant divisor: a zero from arithmetic has no sign here
				// (see docs/lua.md), so dividing by one could give inf for -inf.
				return "(" + g.expr(kindNum, depth+1) + " / " + []string{"2", "4", "0.5", "3"}[g.r.IntN(4)] + ")"
			}
			return "(" + g.expr(kindNum, depth+1) + " " + op + " " + g.expr(kindNum, depth+1) + ")"
		case 3:
			if vs := g.vars(kindNum, false); len(vs) > 0 {
				return "(- " + g.pick(vs).name + ")"
			}
			return "(" + numLiterals[g.r.IntN(len(numLiterals))] + " - 1)"
		case 4:
			return "#" + g.expr(kindStr, depth+1)
		case 5:
			return "(" + g.expr(kindAny, depth+1) + " and " + g.expr(kindNum, depth+1) + " or " + g.expr(kindNum, depth+1) + ")"
		case 6:
			return "math." + []string{"floor", "abs", "ceil"}[g.r.IntN(3)] + "(" + g.expr(kindNum, depth+1) + ")"
		case 7:
			return "math.max(" + g.expr(kindNum, depth+1) + ", " + g.expr(kindNum, depth+1) + ")"
		case 8:
			return "(" + strconv.Quote([]string{"10", " 3 ", "0x10", "1e1", "-0", "2"}[g.r.IntN(6)]) + " + " + g.expr(kindNum, depth+1) + ")"
		case 9:
			if g.vararg {
				return "select(\"#\", ...)"
			}
			return "(tonumber(" + g.expr(kindStr, depth+1) + ") or 0)"
		}
		return g.expr(kindNum, 3)
	case kindStr:
		vs := g.vars(kindStr, false)
		if leaf {
			if len(vs) > 0 && g.r.IntN(2) == 0 {
				return g.pick(vs).name
			}
			return strconv.Quote(g.word())
		}
		switch g.r.IntN(6) {
		case 0, 1:
			return "(" + g.expr(kindStr, depth+1) + " .. " + g.num0(depth+1) + ")"
		case 2:
			return "tostring(" + g.expr(kindNum, depth+1) + " + 0)"
		case 3:
			return "string.sub(" + g.expr(kindStr, depth+1) + ", " + []string{"1", "2", "-3", "0"}[g.r.IntN(4)] + ")"
		case 4:
			return "(" + g.expr(kindAny, depth+1) + " and " + g.expr(kindStr, depth+1) + " or " + g.expr(kindStr, depth+1) + ")"
		}
		return "string.format(\"%s:%d\", " + g.expr(kindStr, depth+1) + ", " + g.expr(kindNum, depth+1) + ")"
	}
	if leaf {
		vs := g.vars(kindAny, false)
		if len(vs) > 0 && g.r.IntN(2) == 0 {
			return g.pick(vs).name
		}
		return []string{"nil", "true", "false", "0", `""`, `"s"`, "1"}[g.r.IntN(7)]
	}
	switch g.r.IntN(9) {
	case 0:
		return "(" + g.expr(kindAny, depth+1) + " and " + g.expr(kindAny, depth+1) + ")"
	case 1:
		return "(" + g.expr(kindAny, depth+1) + " or " + g.expr(kindAny, depth+1) + ")"
	case 2:
		return "not " + g.expr(kindAny, depth+1)
	case 3:
		return "(" + g.expr(kindNum, depth+1) + " " + []string{"<", "<=", ">", ">=", "==", "~="}[g.r.IntN(6)] + " " + g.expr(kindNum, depth+1) + ")"
	case 4:
		return "(" + g.expr(kindStr, depth+1) + " " + []string{"<", "==", "~="}[g.r.IntN(3)] + " " + g.expr(kindStr, depth+1) + ")"
	case 5:
		return "(" + g.constCond() + " " + []string{"and", "or"}[g.r.IntN(2)] + " " + g.expr(kindAny, depth+1) + ")"
	case 6:
		return "((" + g.expr(kindAny, depth+1) + " or " + g.expr(kindAny, depth+1) + ") and (" + g.expr(kindAny, depth+1) + " or " + g.expr(kindNum, depth+1) + "))"
	}
	return g.expr(valueKind(g.r.IntN(2)), depth)
}
