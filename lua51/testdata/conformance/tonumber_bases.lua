-- tonumber with a base.
print(tonumber("ff", 16), tonumber("FF", 16), tonumber("777", 8), tonumber("zz", 36), tonumber("101", 2))
print(tonumber("102", 2), tonumber("8", 8), tonumber("", 10), tonumber(" 10 ", 2), tonumber("1e1", 16))
print(tonumber("10", 10), tonumber(10, 16), tonumber("7fffffff", 16))
print(pcall(function() return tonumber("10", 1) end))
print(pcall(function() return tonumber("10", 37) end))
