-- string.format's errors.
print(pcall(string.format, "%y", 1))
print(pcall(string.format, "%10.123f", 1))
print(pcall(string.format, "%123d", 1))
print(pcall(string.format, "%-----5d", 1))
print(pcall(function() return string.format() end))
print(pcall(string.format, "%", 1))
print(pcall(function() return string.format("%s", nil) end))
print(pcall(function() return string.format("%s", true) end))
