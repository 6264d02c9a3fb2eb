-- Inside a pcall, coroutine.running and coroutine.status see the coroutine
-- that called pcall (and nil at the main level, as Lua 5.1's running gives).
print(pcall(function() return coroutine.running() end))
local co
co = coroutine.create(function()
  local ok, same, status = pcall(function()
    return coroutine.running() == co, coroutine.status(co)
  end)
  print(ok, same, status)
  local ok2, wrapped = pcall(coroutine.wrap(function() coroutine.yield("from inner") end))
  print(ok2, wrapped)
  coroutine.yield("after pcall")
  return "done"
end)
print(coroutine.resume(co))
print(coroutine.resume(co))
print(coroutine.status(co))
