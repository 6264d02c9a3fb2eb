-- A table constructor keeps every item, however many (gopher-lua's own
-- compiler stops at 25,550), in order, with the values of a last call or
-- ... after them.
local function constructor(n, item, last)
  local items = {}
  for i = 1, n do items[i] = item(i) end
  if last then items[#items + 1] = last end
  return "local x, f = ... return {" .. table.concat(items, ", ") .. "}"
end
local function f() return "a", nil, "c" end
local t = assert(loadstring(constructor(30000, tostring)))()
print(#t, t[1], t[25550], t[25551], t[30000])
t = assert(loadstring(constructor(30000, function(i) return "x + " .. i end, "f()")))(5, f)
print(#t, t[1], t[30000], t[30001], t[30002], t[30003])
t = assert(loadstring(constructor(2500, function(i) return i % 2 == 0 and tostring(i) or "nil" end, "(f())")))(0, f)
print(t[1], t[2], t[2500], t[2501])
t = assert(loadstring("local x, f = ... return {" .. string.rep("x, ", 1200) .. "...}"))(1, 2, 3)
print(#t, t[1], t[1200], t[1201], t[1202], t[1203])
print(pcall(loadstring(constructor(1500, function(i) return i == 1400 and "x.y" or "1" end))))
-- Past 100 parts of 1,000 items the parts grow: 250,000 items compile.
t = assert(loadstring(constructor(250000, tostring)))()
print(#t, t[1], t[100000], t[250000])
