-- math.huge is +inf.
print(math.huge, -math.huge, math.huge == 1/0, -math.huge == -1/0)
print(math.huge > 1e308, 1e308 * 10 == math.huge, math.max(1, math.huge))
local x = 1/0
print(x == math.huge, math.floor(1.5), math.fmod(7, 3), math.pi)
