-- Numeric conversions accept numeric strings.
print(string.format("%5.2f|", "3.14159"), string.format("%d", "42"), string.format("%x", "255"))
print(string.format("%.1f", " 1e2 "), string.format("%5.2f|", 3.14159))
print(pcall(function() return string.format("%d", "x") end))
