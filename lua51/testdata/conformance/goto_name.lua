-- goto is an ordinary name in Lua 5.1: a local, a global, a field, a
-- method, a parameter, a loop variable, and in error messages.
local goto = 5
print(goto, goto + 1)
do
  local t = {goto = 3}
  t.goto = t.goto * 2
  function t:goto2() return self.goto end
  function t.goto_f(goto) return goto end
  print(t.goto, t["goto"], t:goto2(), t.goto_f(7))
  local u = {}
  function u:goto(x) return x + 1 end
  print(u:goto(1), u.goto(u, 2))
end
local function f(goto) return goto * 2 end
print(f(21))
for goto = 1, 2 do io.write(goto, " ") end
for goto, v in ipairs({"a"}) do io.write(goto, v, "\n") end
_G.goto = "global"
print(rawget(_G, "goto"))
-- a string that holds the name the loader might pick does not confuse it
local s = "goto_0 goto_1 \103oto_2"
print(s, #s)
print(pcall(function() local goto; return goto.x end))
print(pcall(function() return nothing_here .. goto end))
print(pcall(loadstring("goto = 1; return goto + goto_0")))
print(loadstring("local goto = 1 return goto")())
goto = nil
print(pcall(goto))
