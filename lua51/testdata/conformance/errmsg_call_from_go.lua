-- A value that is not a function, called by a library function (tostring's
-- __tostring, print's tostring, table.sort's comparison, table.foreach),
-- is named by its type, with no position; called by an operator in Lua
-- code (__concat) it has the position.
print(pcall(tostring, setmetatable({}, {__tostring = 1})))
print(pcall(function() return tostring(setmetatable({}, {__tostring = 1})) end))
print(pcall(print, setmetatable({}, {__tostring = {}})))
print(pcall(function() local t = setmetatable({}, {__concat = 1}) return t .. "x" end))
print(pcall(table.foreach, {1}, setmetatable({}, {__call = function(self, k, v) print("called", k, v) end})))
local old = tostring
tostring = 5
local ok, err = pcall(print, 1)
tostring = old
print(ok, err)
print(tostring(setmetatable({}, {__tostring = function() return "custom" end})))
-- A metamethod of an operator that is not a function is called all the same.
print(pcall(function() local t = setmetatable({}, {__add = 1}) return t + 1 end))
print(pcall(function() local t = setmetatable({}, {__mul = "x"}) return 2 * t end))
