-- debug.getinfo's option "L" gives the lines that have code, and an option
-- Lua 5.1 does not know is an error (both were nil).
local function test(x)
  local y = x + 1

  if y > 2 then
    return y
  end
  return x
end
local function lines(f)
  local t = {}
  for k in pairs(debug.getinfo(f, "L").activelines) do t[#t + 1] = k end
  table.sort(t)
  return table.concat(t, " ")
end
print(lines(test))
print(lines(function() end))
print(debug.getinfo(print, "L").activelines)
local b = debug.getinfo(test, "SfL")
print(b.what, b.linedefined, b.lastlinedefined, b.activelines[b.linedefined + 1],
  b.activelines[b.lastlinedefined], b.activelines[b.linedefined])
print(pcall(function() return debug.getinfo(1, "a") end))
print(pcall(function() return debug.getinfo(100, "a") end))
print(pcall(function() return debug.getinfo(print, ">S") end))
print(pcall(function() return debug.getinfo("1", "S").what end))
print(pcall(function() return debug.getinfo("x") end))
