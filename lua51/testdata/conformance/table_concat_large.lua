-- table.concat of 100,000 items: the length and a checksum of the result.
local t = {}
for i = 1, 100000 do t[i] = i % 997 end
local s = table.concat(t, ",")
local sum = 0
for i = 1, #s, 7 do sum = (sum * 31 + string.byte(s, i)) % 1000000007 end
print(#s, sum)
local u = {}
for i = 1, 100000 do u[i] = "x" end
print(#table.concat(u))
