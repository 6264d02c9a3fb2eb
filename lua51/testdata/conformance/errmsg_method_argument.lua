-- Argument errors of a function called as a method do not count self; a
-- bad self is "calling 'name' on bad self". next, pairs and ipairs check
-- their table as Lua 5.1's do.
local s = "abc"
print(pcall(function() return s:rep({}) end))
print(pcall(function() return s:sub() end))
print(pcall(function() return s.sub() end))
print(pcall(function() local t = {f = string.rep} return t:f(2) end))
print(pcall(function() return pairs() end))
print(pcall(function() return next() end))
print(pcall(function() return next({}, nil) end))
print(pcall(function() return ipairs(1) end))
print(pcall(function() for i, v in ipairs({10, 20, nil, 40}) do print(i, v) end end))
print(pairs({}) == next, select(3, ipairs({})))
