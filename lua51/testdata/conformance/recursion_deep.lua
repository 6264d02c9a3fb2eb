-- Lua recursion 10,000 levels deep works.
local function depth(n)
  if n == 0 then return 0 end
  return 1 + depth(n - 1)
end
print(depth(10000))
local function build(n)
  if n == 0 then return {} end
  local t = build(n - 1)
  t[#t + 1] = n
  return t
end
print(#build(10000))
