-- pcall returns true and every result, nils included; calling a
-- non-function is a caught error.
print(pcall(function() return 1, nil, 3 end))
print(select("#", pcall(function() return nil, nil end)))
print(pcall(function(...) return select("#", ...), ... end, "a", nil))
print(pcall(nil))
print(pcall({}))
print(pcall(function() return pcall() end))
print(select("#", pcall(error)))
