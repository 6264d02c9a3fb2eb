-- next(t, k) with a key that has no place in t raises Lua 5.1's error; a
-- key whose value was removed during a traversal is still a place.
print(pcall(next, {}, "nokey"))
print(pcall(next, {a = 1}, "nokey"))
print(pcall(next, {1, 2, 3}, 4))
print(pcall(next, {1, 2, 3}, 1.5))
print(pcall(next, {}, 0/0))
print(pcall(next, {}, {}))
print(select("#", next({1}, 1)), next({}, nil))
local t = {a = 1, b = 2, c = 3, 10, 20}
local seen = 0
for k in pairs(t) do t[k] = nil seen = seen + 1 end
print(seen, next(t))
local u = {x = 1, y = 2}
local k = next(u)
u[k] = nil
local k2 = next(u, k)
print(k2 ~= nil, k2 ~= k)
local ok, msg = pcall(function() return next({}, "nokey") end)
print(ok, msg)
