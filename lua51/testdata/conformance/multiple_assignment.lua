-- Every value of an assignment is evaluated before any target is written
-- (Lua 5.1 manual section 2.4.3); the stores go from the last target to the
-- first.
local a, b = 1, 2
a, b = b, a
print("swap", a, b)
a, b = 0, 0
a, b = a + 1, a + b
print("sum", a, b)
local c1, c2, c3 = 1, 2, 3
c1, c2, c3 = c2, c3, c1
print("rotate", c1, c2, c3)
local function counter()
  local p, q = 1, 2
  return function()
    p, q = q, p
    return p, q
  end
end
print("upvalues", counter()())
g1, g2 = "x", "y"
g1, g2 = g2, g1
print("globals", g1, g2)
local t = {1, 2}
t[1], t[2] = t[2], t[1]
print("fields", t[1], t[2])
local i = 1
i, t[i] = i + 1, 20
print("index read first", i, t[1], t[2])
local mixed = {v = 1}
local l = 5
l, mixed.v, g1 = mixed.v, l, l
print("mixed", l, mixed.v, g1)
local x, x2 = 1
x, x = 1, 2
print("same target twice", x, x2)
local log = {}
local proxy = setmetatable({}, {__newindex = function(_, k, v) log[#log + 1] = k .. "=" .. v end})
proxy.a, proxy.b, proxy.c = 1, 2, 3
print("store order", table.concat(log, " "))
local function two() return "r1", "r2" end
local m1, m2, m3 = 0, 0, 0
m1, m2, m3 = two()
print("multiple results", m1, m2, m3)
m1, m2 = two(), two()
print("truncated", m1, m2)
-- single assignments with an and/or value
local function no() return false end
local function none() end
local s = 5
s = no() and 1
print("and false", s)
s = 5
s = none() and "new"
print("and nothing", s)
local nx
s = 7
s = (nx or 3) and s
print("or then and", s)
local function param(_, p)
  p = tostring(1), 1
  return p
end
print("parameter target", param(1, 2))
local ok, err = pcall(function() undefined.x, s = 1, 2 end)
print("error", ok, err)
