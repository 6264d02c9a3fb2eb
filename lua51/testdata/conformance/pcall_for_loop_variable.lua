-- A for-loop variable (and a local of the loop body) captured by a closure,
-- then changed after a caught error: the closure sees the change.
local fs, gs = {}, {}
for i = 1, 3 do
  local j = i
  fs[i] = function() return j end
  pcall(error, "x")
  j = j * 10
end
print(fs[1](), fs[2](), fs[3]())
for i = 1, 3 do
  gs[i] = function() return i end
  pcall(function() error("y") end)
  i = i + 100
end
print(gs[1](), gs[2](), gs[3]())
local hs = {}
for k, v in ipairs({"a", "b"}) do
  hs[k] = function() return v end
  pcall(string.rep)
  v = v .. "!"
end
print(hs[1](), hs[2]())
