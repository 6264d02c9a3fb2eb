package lua51

import (
	"bytes"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// randomCases are Lua 5.1 behaviours, each with the output that Debian's lua5.1
// (5.1.5, glibc 2.36, x86-64) printed for it: recorded once by running the
// case under lua5.1 with testPrelude, in the time zone tz (UTC if empty).
var randomCases = []libraryCase{
	{
		name: "math.randomseed(42)",
		code: `math.randomseed(42); print(math.random(1, 1000), math.random(), math.random(10))`,
		want: "34\t0.32996420763897\t7\n",
	},
	{
		name: "sequences of several seeds",
		code: `for _, seed in ipairs{0, 1, 2, 7, 123456, -7, 2^31 + 5.5, 2^32 + 3, -2^31} do
			  math.randomseed(seed)
			  local t = {} for i = 1, 8 do t[i] = math.random(1000) end
			  print(seed, table.concat(t, " "))
			end`,
		want: "0\t841 395 784 799 912 198 336 769\n1\t841 395 784 799 912 198 336 769\n2\t701 810 89 122 349 422 700 67\n7\t487 868 593 215 11 515 996 32\n123456\t607 656 183 749 438 606 671 3\n-7\t472 88 361 237 937 430 946 905\n2147483653.5\t421 137 695 765 218 864 426 658\n4294967299\t562 225 394 444 286 145 564 865\n-2147483648\t623 564 674 158 39 251 612 173\n",
	},
	{
		name: "no randomseed is srand(1)",
		code: `print(math.random(1000), math.random(1000), math.random())`,
		want: "841\t395\t0.78309922375861\n",
	},
	{
		name: "a long run",
		code: `math.randomseed(123)
			local s = 0 for i = 1, 100000 do s = s + math.random() end
			print(s, math.random(1, 2^31 - 1))`,
		want: "50007.072505343\t907620072\n",
	},
	{
		name: "argument forms",
		code: `math.randomseed(9)
			print(math.random(5, 5), math.random(-10, -5), math.random(3.9), math.random("4"), math.random(-2^31, 2^31 - 1))
			E(math.random, 1, 2^31 + 10)
			E(math.random, 0)
			E(math.random, 3, 1)
			E(math.random, 1, 2, 3)
			E(math.random, "x")
			E(math.randomseed)
			E(math.randomseed, "x")`,
		want: "5\t-6\t1\t2\t-2147483648\nerror\tbad argument #2 (interval is empty)\nerror\tbad argument #1 (interval is empty)\nerror\tbad argument #2 (interval is empty)\nerror\twrong number of arguments\nerror\tbad argument #1 (number expected, got string)\nerror\tbad argument #1 (number expected, got no value)\nerror\tbad argument #1 (number expected, got string)\n",
	},
}

func TestRandom(t *testing.T) { runLibraryCases(t, randomCases) }

// Handwritten tests follow.
// TestRandomSeedOption checks that Options.Seed seeds the state's
// generator as math.randomseed does, and that states do not share one.
func TestRandomSeedOption(t *testing.T) {
	draw := `local t = {} for i = 1, 5 do t[i] = math.random(1000) end print(table.concat(t, " "))`
	var a, b, c bytes.Buffer
	A := NewState(Options{Seed: 42, Stdout: &a})
	B := NewState(Options{Seed: 42, Stdout: &b})
	C := NewState(Options{Stdout: &c})
	defer A.Close()
	defer B.Close()
	defer C.Close()
	for _, step := range []struct {
		L    *lua.LState
		code string
	}{{A, draw}, {C, "math.randomseed(42)" + draw}, {A, draw}, {B, draw}, {B, draw}} {
		if err := step.L.DoString(step.code); err != nil {
			t.Fatal(err)
		}
	}
	// lua5.1 -e 'math.randomseed(42) for i = 1, 10 do io.write(math.random(1000), " ") end'
	const want = "34 330 691 423 207\n251 637 864 302 25\n"
	if a.String() != want || b.String() != want || c.String() != want[:len(want)/2] {
		t.Errorf("seed 42 gave %q, %q and, with math.randomseed, %q; lua5.1 gives %q", a.String(), b.String(), c.String(), want)
	}
}
