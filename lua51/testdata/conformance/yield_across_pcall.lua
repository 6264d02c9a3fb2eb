-- Yielding from inside pcall is an error in Lua 5.1, caught by the pcall.
local co = coroutine.create(function()
  local ok, err = pcall(coroutine.yield, 1)
  print("inside", ok, err)
  local ok2, err2 = pcall(function() coroutine.yield(2) end)
  print("inside", ok2, err2)
  return "end"
end)
print(coroutine.resume(co))
print(coroutine.status(co))
