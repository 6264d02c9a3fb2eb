-- Runtime errors name the global involved.
print(pcall(function() undefinedfunction() end))
print(pcall(function() return undefinedtable.x end))
print(pcall(function() return undefinednumber + 1 end))
print(pcall(function() return "s" .. undefinedstring end))
print(pcall(function() undefinedtable.x = 1 end))
