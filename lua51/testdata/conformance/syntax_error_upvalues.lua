-- A function may have at most 60 upvalues; names passing through a
-- function to a nested one count as its upvalues too, locals of the
-- function itself (repeat's body seen by until) and globals do not.
local function upvalues(n, nested)
  local s = "local "
  for j = 1, n do s = s .. "a" .. j .. ", " end
  s = s .. "b\nreturn function ()\n"
  if nested then s = s .. "return function ()\n" end
  for j = 1, n do s = s .. " a" .. j .. " = " .. j .. "\n" end
  s = s .. " g = 1\n repeat local c = 1 until c\n"
  if nested then s = s .. "end\n" end
  return s .. "end\n"
end
print(loadstring(upvalues(60)) ~= nil)
print(loadstring(upvalues(61)))
print(loadstring(upvalues(61, true)))
local s = "\nlocal function foo ()\n  local "
for j = 1, 300 do s = s .. "a" .. j .. ", " end
print(loadstring(s .. "b\nend"))
