-- Arithmetic on a string that is not a number, or on a string and a value
-- that is not a number, names the operand as Lua 5.1 does.
local s, n = "a", nil
g = "x"
print(pcall(function() return s + 1 end))
print(pcall(function() return 1 - s end))
print(pcall(function() return "2" * n end))
print(pcall(function() return g / "3" end))
print(pcall(function() return -s end))
print(pcall(function() local t = {f = "z"} return t.f % 2 end))
print(pcall(function() return "a" ^ 2 end))
print(pcall(function() return s .. {} end))
print("10" + 1, "0x10" * 1, " 3 " - 1, -"2")
