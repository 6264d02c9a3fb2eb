-- select and varargs.
print(select("#"), select("#", nil, nil), select(2, "a", "b", "c"), select(-1, "a", "b"))
print(pcall(function() return select(0, 1) end))
local function f(...) local a, b = ...; return select("#", ...), a, b, ... end
print(f(1, nil, 3))
print((f(1, 2)))
print(pcall(function() return select(-5, 1) end))
