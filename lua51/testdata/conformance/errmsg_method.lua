-- Runtime errors name the method involved.
local obj = {}
print(pcall(function() obj:nomethod() end))
print(pcall(function() local s = "x"; s:nomethod() end))
print(pcall(function() local n = 5; n:m() end))
