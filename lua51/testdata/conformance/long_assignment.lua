-- An assignment of many targets in a function whose locals hold most
-- registers (gopher-lua's compiler has 200, Lua 5.1's 250) evaluates the
-- targets' tables and keys, then the values, left to right, and stores
-- them all, as Lua 5.1 does.
local function list(n, item)
  local items = {}
  for i = 1, n do items[i] = item(i) end
  return table.concat(items, ", ")
end
local function with60(body)
  return assert(loadstring("local " .. list(60, function(i) return "a" .. i end) .. " = " .. list(60, tostring) .. "\n" .. body))
end
local function target(i) return "t[" .. i .. "]" end
-- a last call gives the values that are left; one too few leaves a nil
local f = with60("local t, three = {}, ... " .. list(150, target) .. " = " .. list(147, tostring) .. ", three() return a60, t[1], t[147], t[148], t[149], t[150]")
print(f(function() return "x", nil end))
-- more values than targets: all evaluated, in order
local order = {}
local function mark(v) order[#order + 1] = v return v end
f = with60("local t, mark = {}, ... " .. list(150, target) .. " = " .. list(152, function(i) return "mark(" .. i .. ")" end) .. " return t[1], t[150], t[151]")
print(f(mark))
print(#order, order[1], order[150], order[152])
-- the values are read before any is stored: a swap of 75 pairs
f = with60("local t = {} for i = 1, 150 do t[i] = i end\n"
  .. list(150, target) .. " = " .. list(150, function(i) return target(i % 2 == 1 and i + 1 or i - 1) end)
  .. " return t[1], t[2], t[149], t[150]")
print(f())
-- locals and globals among the targets
f = with60("local t = {} a1, g1, " .. list(148, target) .. " = " .. list(150, tostring) .. " return a1, g1, t[148]")
print(f())
print(g1)
-- a target's table that is nil is named
f = with60("local t = {} " .. list(140, target) .. ", missing.x = " .. list(141, tostring))
print(pcall(f))
