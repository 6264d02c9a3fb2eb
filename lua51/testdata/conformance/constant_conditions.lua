-- Conditions that are constants, inside a generic for and elsewhere, do
-- what Lua 5.1 does: the block that runs is the one the constant picks, and
-- the rest of the loop's body runs once per item.
local sum, seen = 0, {}
for _, v in ipairs({1, 2, 3}) do
  if false then
    sum = sum + 100
  end
  if nil then
    sum = sum + 1000
  elseif false then
    sum = sum + 10000
  end
  if false then else sum = sum + v end
  seen[#seen + 1] = v
end
print("sum", sum, table.concat(seen, ","))
local pairs_seen = 0
for _, row in ipairs({{1, 2}, {3, 4}}) do
  for _, x in ipairs(row) do
    if 1 then break end
    pairs_seen = pairs_seen + 100
  end
  pairs_seen = pairs_seen + 1
end
print("break", pairs_seen)
local words = {}
for w in string.gmatch("one two three", "%a+") do
  local picked = nil or w
  local other = false and w or "-"
  if not nil then words[#words + 1] = picked .. other end
  if "x" then else words[#words + 1] = "never" end
end
print("words", table.concat(words, " "))
local n = 0
for _, v in ipairs({5, 6}) do
  local a = (1 or v) + (nil and v or 0)
  if false then
    local unused = function() return v end
  end
  n = n + a
end
print("or", n)
-- a folded -0 does not become the constant of a later 0
local neg = (- 0) and "kept" or "lost"
print("negative zero", neg, "10" .. (0 + 0), (tonumber("10" .. 0) or 0) + 0)
