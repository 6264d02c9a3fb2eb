-- string.dump checks its argument first, as Lua 5.1 does (dumping a Lua
-- function is what still differs: docs/lua.md).
print(pcall(string.dump))
print(pcall(string.dump, print))
print(pcall(string.dump, 1))
print(select(2, pcall(function() return string.dump({}) end)))
