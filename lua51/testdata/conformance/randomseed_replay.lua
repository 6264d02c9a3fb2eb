-- math.randomseed(42) then math.random in each form: the numbers glibc's
-- rand gives, and the same again after seeding again.
local function draw()
  return {math.random(1, 1000), math.random(10), math.random(), math.random(1, 1000), math.random(-5, 5)}
end
math.randomseed(42)
local a = draw()
print(a[1], a[2], string.format("%.12f", a[3]), a[4], a[5])
math.randomseed(42)
local b = draw()
print(a[1] == b[1], a[2] == b[2], a[3] == b[3], a[4] == b[4], a[5] == b[5])
math.randomseed(7)
local s = {}
for i = 1, 10 do s[i] = math.random(100) end
print(table.concat(s, " "))
local inrange = true
for i = 1, 1000 do local x = math.random(); if x < 0 or x >= 1 then inrange = false end end
print(inrange)
print(pcall(function() return math.random(2, 1) end))
print(pcall(function() return math.random(1, 2, 3) end))
