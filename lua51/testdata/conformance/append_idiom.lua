-- t[#t + 1] = v, the usual append, as Lua 5.1 does it: the border plus
-- one, __newindex when the table has it, #t taken before v is evaluated,
-- and the errors of #, + and indexing.
local t = {}
for i = 1, 5 do t[#t + 1] = i * i end
print(#t, table.concat(t, ","))
local v = {9}
t[#t + 1] = v
t[#t + 1] = "s"
t[#t + 1] = nil
t[#t + 1] = function() return 1 end
t[#t + 1] = {1, {2}, x = v}
print(#t, t[6][1], t[7], type(t[8]), t[9][2][1])
local logged = setmetatable({}, {__newindex = function(tb, k, val) rawset(tb, k, val * 10) end})
local x = 4
logged[#logged + 1] = x
logged[#logged + 1] = x
print(logged[1], logged[2])
local order = {}
local function f() order[#order + 1] = "inner" return "outer" end
order[#order + 1] = f()
print(order[1], order[2])
G = {}
G[#G + 1] = x
print(#G)
print(pcall(function() local s = "abc" s[#s + 1] = x end))
print(pcall(function() local u; u[#u + 1] = x end))
print(pcall(function() local n = 5; n[#n + 1] = x end))
local p = newproxy(true)
getmetatable(p).__len = function() return 2 end
getmetatable(p).__newindex = function(_, k, val) print("newindex", k, val) end
p[#p + 1] = x
