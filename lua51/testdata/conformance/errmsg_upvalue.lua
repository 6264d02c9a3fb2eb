-- Runtime errors name the upvalue involved.
local u
local num
print(pcall(function() u() end))
print(pcall(function() return u.x end))
print(pcall(function() return num + 1 end))
print(pcall(function() return num .. "" end))
