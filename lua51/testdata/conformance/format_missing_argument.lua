-- A conversion without its argument is an error.
print(pcall(function() return string.format("%d") end))
print(pcall(function() return string.format("%s %s", 1) end))
print(pcall(function() return string.format("%f", nil) end))
