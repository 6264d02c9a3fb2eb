-- Yielding from a metamethod is an error in Lua 5.1: resume reports it and
-- the coroutine is dead.
local mt = {__index = function(t, k) return coroutine.yield(k) end}
local co = coroutine.create(function()
  local t = setmetatable({}, mt)
  return t.x
end)
print(coroutine.resume(co))
print(coroutine.status(co))
local mt2 = {__add = function(a, b) coroutine.yield("add") return 1 end}
co = coroutine.wrap(function()
  return pcall(function() return setmetatable({}, mt2) + 1 end)
end)
print(co())
