-- Runtime errors name the local involved.
print(pcall(function() local f; f() end))
print(pcall(function() local t; return t.x end))
print(pcall(function() local n; return n * 2 end))
print(pcall(function() local s; return s .. "x" end))
print(pcall(function() local t = 5; t.x = 1 end))
print(pcall(function(a) return a + 1 end, {}))
