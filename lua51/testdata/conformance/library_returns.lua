-- What the base and library functions return, counted with select("#"):
-- rawset returns its table in Lua 5.1, where gopher-lua returns nothing.
local t = {}
print(rawset(t, 1, 2) == t, select("#", rawset(t, 2, 3)))
print(setmetatable(t, nil) == t)
local function f() end
print(setfenv(f, {}) == f)
print(select("#", table.insert(t, 1)), select("#", table.sort(t)))
print(rawequal(t, t), rawget(t, 1))
print(select("#", collectgarbage()), select("#", print()))
print(type(getfenv(f)), select("#", assert(1, 2, 3)))
print(select("#", string.gsub("a", "a", "b")), select("#", pcall(error)))
print(select("#", unpack({1, nil, 3})), select("#", next({})), select("#", ipairs({})))
print(select("#", tostring(nil)), select("#", tonumber("x")), select("#", type(1)))
print(select("#", math.randomseed(1)), select("#", table.concat({})), select("#", table.remove({})))
print(select("#", string.byte("")), select("#", string.find("a", "b")), select("#", string.match("a", "b")))
print(select("#", xpcall(function() end, print)), select("#", setmetatable({}, {})))
