-- unpack of 7,000 items works (Lua 5.1's limit is about 8,000 values on the
-- C stack): the count and a checksum.
local t = {}
for i = 1, 7000 do t[i] = i end
print(select("#", unpack(t)))
local a = {unpack(t)}
local sum = 0
for i = 1, #a do sum = sum + a[i] end
print(#a, sum)
local function count(...) return select("#", ...) end
print(count(unpack(t, 1, 6000)))
