-- A call whose argument is a closure names the function called, not the
-- closure's first upvalue (the instructions after a closure that say where
-- its upvalues come from write no register).
local up, A = 5, {}
local g
print(pcall(function() A.missing(function() return up end) end))
print(pcall(function() local x = A.f; x(function() return up, g end) end))
print(pcall(function() g(function() return up end) end))
print(pcall(function() string.rep(function() return up end) end))
print(pcall(function() A:method(function() return up end) end))
print(pcall(function() local t = A.x; t.y(function() return up end) end))
local tween = {}
print(pcall(function() A.not_error(function() tween.new(0, {}, {}) end) end))
