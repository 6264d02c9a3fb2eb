-- An error inside the error handler: Lua 5.1 reports "error in error handling".
print(xpcall(error, function() error("again") end))
print(xpcall(function() error("first") end, function(m) local t = nil; return t.x end))
local n = 0
for i = 1, 3 do xpcall(error, function() error("h") end); n = n + 1 end
print(n)
