-- A numeric for converts numeric strings, as Lua 5.1's loop setup does, and
-- refuses only what is not a number, naming which bound.
for i = "1", "3" do io.write(i, " ") end
print()
local limit, step = " 0x4 ", "2"
for i = 0, limit, step do io.write(i, " ") end
print()
local function bounds() return "2", "ignored" end
for i = bounds(), 3 do io.write(i, " ") end
print()
print(pcall(function() for i = "one", 2 do end end))
print(pcall(function() for i = 1, "two" do end end))
print(pcall(function() for i = 1, 2, {} do end end))
for i = 1, "1e1", "5" do io.write(i, " ") end
print()
