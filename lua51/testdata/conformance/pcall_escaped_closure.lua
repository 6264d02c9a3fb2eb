-- The same with pcall: the escaped closure reads the value at the error point
-- and its own later updates.
local escaped
local function f()
  local x = 1
  escaped = function(d) x = x + (d or 0); return x end
  x = 42
  error("boom")
end
print(pcall(f))
local function g() local a, b, c, d = 9, 9, 9, 9; return a + b + c + d end
g()
print(escaped(), escaped(1), escaped(1))
