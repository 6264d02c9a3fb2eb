-- pcall inside a coroutine: the coroutine's locals keep their updates, the
-- coroutine can still yield after a caught error, and resume sees its values.
local co = coroutine.create(function(a)
  local n = 0
  local function case(f) pcall(f); n = n + 1 end
  case(function() error("x") end)
  local b = coroutine.yield(n, a)
  case(function() error("y") end)
  case(function() end)
  return n, b
end)
print(coroutine.resume(co, "first"))
print(coroutine.status(co))
print(coroutine.resume(co, "second"))
print(coroutine.status(co))
print(coroutine.resume(co))
