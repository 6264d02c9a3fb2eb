-- Lua 5.1's # ignores __len on tables (it is for userdata), counts a
-- string's bytes, and names the operand it cannot measure.
local mt = {__len = function() return 99 end}
print(#setmetatable({}, mt), #setmetatable({1, 2, 3}, mt))
local t = setmetatable({}, {__len = function() error("never called") end})
t[1] = "a"
print(#t, #"abc", #"", #"a\0b")
local function three() return "abc", "de" end
print(#three(), #{three()})
local function va(...) return #... end
print(va("four", "x"))
local u = newproxy(true)
getmetatable(u).__len = function(self, other) return "len", other end
print(#u)
print(pcall(function() local x; return #x end))
print(pcall(function() return #undefined_global end))
print(pcall(function() local s = {} return #s.f end))
print(pcall(function() return #5 end))
print(pcall(function() return #print end))
local up
print(pcall(function() return #up end))
print(pcall(function() local x = nil
  return #
    x end))
local p = newproxy(true)
getmetatable(p).__len = true
print(pcall(function() return #p end))
-- the usual appends
local list = {}
for i = 1, 5 do list[#list + 1] = i * i end
print(#list, list[#list], table.concat(list, ","))
