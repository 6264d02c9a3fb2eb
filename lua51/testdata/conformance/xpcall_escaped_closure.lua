-- A closure that escaped the failed function keeps the value its upvalue
-- had at the error point, whatever later reuses the stack slots.
local escaped
local function f()
  local x = 1
  escaped = function() return x end
  x = 42
  error("boom")
end
print(xpcall(f, function(m) return "handled" end))
local function g() local a, b, c, d = "a", "b", "c", "d"; return a .. b .. c .. d end
g()
print(escaped())
local counter
local function h()
  local c = 0
  counter = function() c = c + 1; return c end
  counter()
  error("again")
end
print(xpcall(h, function(m) return "handled again" end))
g()
print(counter(), counter())
