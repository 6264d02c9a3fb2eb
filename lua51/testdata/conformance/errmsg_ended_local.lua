-- An error names what loaded the bad value, not a local whose block has
-- ended and whose register the value now uses.
local t = {}
for _, row in ipairs({1}) do
  do
    local ended = row
  end
  print(pcall(function() return t.missing.field end))
end
if t then
  local a, b = 1, 2
  a, b = b, a
end
print(pcall(function()
  if t then
    local inner = 1
  end
  return undefinedfn(1)
end))
local ok, err = pcall(function()
  do
    local x, y = 1, 2
    x, y = y, x
  end
  local z = t.missing.field
end)
print(ok, err)
