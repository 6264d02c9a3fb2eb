-- debug.getmetatable gives the metatable itself, whatever its __metatable
-- says, and debug.setmetatable returns true.
local mt = {__metatable = "locked", __index = {}}
local t = setmetatable({}, mt)
print(getmetatable(t), debug.getmetatable(t) == mt, type(debug.getmetatable(t)))
print(debug.getmetatable("x") == getmetatable("x"), debug.getmetatable(1), debug.getmetatable(nil))
print(pcall(debug.getmetatable))
print(debug.setmetatable(t, nil) == t, getmetatable(t))
print(pcall(debug.setmetatable, t, 1))
print(debug.setmetatable(t, mt), getmetatable(t))
local u = newproxy and newproxy(true)
print(u and debug.getmetatable(u) == getmetatable(u))
print(debug.getmetatable(print))
