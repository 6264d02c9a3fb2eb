-- assert's messages and results.
print(pcall(assert, false))
print(pcall(assert, nil, "custom message"))
print(pcall(assert, 1 == 1, "unused"))
print(select("#", assert(1, 2, 3)), assert("v"))
print(pcall(function() assert(false) end))
print(pcall(function() assert(false, "with position?") end))
