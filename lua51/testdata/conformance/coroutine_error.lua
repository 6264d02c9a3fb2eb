-- An error inside a coroutine ends it: resume returns false and the message,
-- and the caller's counter keeps counting.
local n = 0
for i = 1, 3 do
  local co = coroutine.create(function() n = n + 1; if i ~= 2 then error("fail " .. i) end return i end)
  print(coroutine.resume(co))
  print(coroutine.status(co), n)
  n = n + 1
end
print(n)
local co = coroutine.create(function() error("x") end)
coroutine.resume(co)
print(coroutine.resume(co))
local ok, err = pcall(coroutine.wrap(function() error({}) end))
print(ok, type(err))
