-- Number literals read as strtod reads them, and constant arithmetic is
-- folded only where Lua 5.1's compiler folds it.
print(010, 0010.5, 08, 1e309, -1e309, 1e-400, 5e-324, 0x10, 0xffffffffffffffffff)
print(1e15, 123456789012345678, 2^53, 2^63, 1e308 * 10)
-- a nan's sign is the one glibc gives: -nan from an invalid operation
print((-8)^(1/3), (-8)^0.5, 2^0.5, "4"^0.5)
local x, h = -8, 1/3
print(x^h, x^2, 2^x, h^(0/0), h^-(0/0), (0/0)^2, math.pow(h, 0/0), math.pow(-(0/0), 2))
print(1e309 - 1e309, 0 * 1e309, -(1e309 - 1e309))
-- division by a constant zero stays in the code, with its zero constant
print(1/0, -1/0, 0/0, -0)
print(pcall(function() local s = "x" return s ^ 2 end))
print(pcall(function() return 2 ^ {} end))
print(setmetatable({}, {__pow = function(a, b) return "pow" end}) ^ 2)
-- x ^ y and math.pow(x, y) over NaNs and the special values, as glibc's pow
local nn, pn = 0/0, -(0/0)
local xs = {nn, pn, 2, -2, 0.5, 1, 0, -0.0, 1/0, -1/0}
local ys = {nn, pn, 1, 2, 3, 0.5, -1, 0, -0.0, 1/0, -1/0, 0.3}
for _, x in ipairs(xs) do
  local row = {}
  for _, y in ipairs(ys) do row[#row + 1] = tostring(x ^ y) .. "/" .. tostring(math.pow(x, y)) end
  print(tostring(x), table.concat(row, " "))
end
