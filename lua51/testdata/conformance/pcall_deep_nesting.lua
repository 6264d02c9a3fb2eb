-- pcall nested inside pcall: 150 levels work; far beyond Lua 5.1's C-call
-- limit (about 200) the innermost pcall reports a stack overflow.
local function nest(n)
  if n == 0 then return "bottom" end
  local ok, v = pcall(nest, n - 1)
  return v
end
print(10, nest(10))
print(150, nest(150))
local v = nest(250)
print(250, string.match(v, "stack overflow"))
local n = 0
for i = 1, 3 do pcall(nest, 300); n = n + 1 end
print(n)
