-- debug.sethook: line hooks see the lines Lua 5.1 runs, a count hook can
-- stop a loop, and gethook gives back what sethook set.
print(debug.gethook())
local lines = {}
local function f(x)
  local y = x * 2
  return y
end
debug.sethook(function(event, line) lines[#lines + 1] = event .. ":" .. tostring(line) end, "l")
local a = 1
for i = 1, 2 do
  a = a + f(i)
end
if a > 3 then
  a = 0
end
pcall(f, 5)
debug.sethook()
print(table.concat(lines, " "))
print(debug.gethook())
-- the hook sees the hooked function at level 2
local where = {}
debug.sethook(function(event, line)
  local info = debug.getinfo(2, "Sl")
  where[#where + 1] = info.short_src .. ":" .. info.currentline .. "=" .. line
end, "l")
f(3)
debug.sethook()
print(table.concat(where, " "))
-- a count hook that limits a loop, inside pcall
local n = 0
debug.sethook(function() n = n + 1 if n > 10 then error("too long") end end, "", 100)
print(pcall(function() while true do end end))
debug.sethook()
print(n, debug.gethook())
-- gethook gives the function, the mask and the count
local function h() end
debug.sethook(h, "crl", 7)
local fn, mask, count = debug.gethook()
debug.sethook()
print(fn == h, mask, count)
debug.sethook(h, "", 0)
print(select(2, debug.gethook()), select(3, debug.gethook()))
debug.sethook()
-- a coroutine's hook is its own: the main thread's is not called there
local co = coroutine.create(function()
  local x = 1
  coroutine.yield(x)
  return x + 1
end)
local colines = {}
debug.sethook(co, function(event, line) colines[#colines + 1] = line end, "l")
print(coroutine.resume(co))
print(coroutine.resume(co))
print(table.concat(colines, " "), debug.gethook())
-- errors in the arguments
print(pcall(debug.sethook, function() end))
print(pcall(debug.sethook, 1, "l"))
