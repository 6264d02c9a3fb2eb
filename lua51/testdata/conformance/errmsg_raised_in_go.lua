-- Errors of the virtual machine raised while a Go (C) function runs have no
-- position: a sort comparing, and values that pcall or xpcall cannot call.
print(pcall(table.sort, {1, "x", 3}))
print(pcall(function() table.sort({1, "x", 3}) end))
print(pcall(function() table.sort({{}, {}}) end))
print(pcall(nil))
print(pcall({}))
print(pcall(42, 1, 2))
print(pcall(setmetatable({}, {__call = 1})))
print(pcall(setmetatable({}, {__call = function(self, x) return x end}), "called"))
print(xpcall(nil, function(m) return "handled: " .. m end))
