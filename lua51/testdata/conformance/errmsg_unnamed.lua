-- Values with no name: Lua 5.1 says only what the value was.
print(pcall(function() return ({})() end))
print(pcall(function() return (nil)() end))
print(pcall(function() return {} + 1 end))
print(pcall(function() return {} .. "x" end))
print(pcall(function() return (nil).x end))
print(pcall(function() local t = {}; return t[1][2] end))
print(pcall(function() return #nil end))
print(pcall(function() return -{} end))
