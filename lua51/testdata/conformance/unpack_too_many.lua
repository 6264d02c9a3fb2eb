-- unpack of 100,000 items is refused by Lua 5.1 (more than its C stack of
-- 8,000 values): "too many results to unpack".
local t = {}
for i = 1, 100000 do t[i] = i end
print(pcall(unpack, t))
