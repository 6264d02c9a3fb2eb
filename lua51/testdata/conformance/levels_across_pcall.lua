-- Lua 5.1 counts pcall itself as a level: error, getfenv, setfenv and
-- luaL_where see it between the protected function and pcall's caller.
print(pcall(error, "msg", 2))
local function three() error("x", 3) end
print(pcall(three))
local function four() error("x", 4) end
print(pcall(four))
local function two() error("x", 2) end
print(pcall(two))
print(pcall(pcall, error, "nested", 3))
print(xpcall(function() error("in xpcall", 3) end, function(m) return "handled: " .. m end))
local function env2() return getfenv(2) == _G end
print(pcall(env2))
local function g() return getfenv(3) == _G end
local function f() return g() end
print(pcall(f))
print(pcall(setfenv, 1, {}))
print(select(2, pcall(getfenv, 1)) == _G)
print(pcall(function() return setfenv(2, {}) end))
local co = coroutine.wrap(function()
  print(pcall(error, "in coroutine", 2))
  print(select(2, pcall(getfenv, 2)) == _G, pcall(getfenv, 3))
end)
co()
-- a Go function called straight from pcall gets no position
print(pcall(string.rep))
print(pcall(setmetatable, 1))
