-- a % b is a - floor(a/b)*b in Lua 5.1, at the edges too: an infinite or
-- zero divisor gives nan (printed -nan, as glibc prints it), and an exact
-- multiple gives 0, never -0.
print(5 % math.huge, -5 % math.huge, 5 % -math.huge, -5 % -math.huge)
print(5 % 0, -5 % 0, 0 % 0, math.huge % 2, -math.huge % 2)
print(-4 % 2, 4 % -2, -6 % 3, 0 % 5, -0 % 5)
print(5 % 3, -5 % 3, 5 % -3, -5 % -3, 5.5 % 2, -5.5 % 2)
print(5.5 % 0.1, 5.3 % 2, -5.3 % 2, 1 % 0.3, 1e17 % 3, 2^53 % 10)
local a, b = 7, 0
print(a % b, a % -b, (a % b) ~= (a % b))
for i = -3, 3 do io.write(i % 3, " ", i % -3, " ") end
print()
-- strings that are numbers convert
print("10" % 3, 10 % "3", " 10 " % "3", "0x10" % 7)
-- metamethods: the first operand's, then the second's
local mt = {__mod = function(x, y) return "mod" end}
local t = setmetatable({}, mt)
print(t % 1, 1 % t, t % t, "x" % t)
-- errors name the operand, as for any arithmetic
print(pcall(function() local x; return x % 2 end))
print(pcall(function() local x = {} return 2 % x end))
print(pcall(function() return undefined_global % 2 end))
print(pcall(function() local s = {f = "a"} return s.f % 2 end))
print(pcall(function() return "abc" % 2 end))
print(pcall(function() local m = setmetatable({}, {__mod = 5}) return m % 1 end))
print(pcall(function() local x = nil
  return 1 %
    x end))
-- nan prints with its sign, as glibc does
print(0/0, -(0/0), math.huge - math.huge, math.huge * 0)
local nan = 0/0
print(nan ~= nan, -nan)
-- a division by a constant zero is left to the VM, as in Lua 5.1
print(1/0, -1/0, -0)
