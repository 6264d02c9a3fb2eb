-- Errors raised in metamethods (arithmetic, index, newindex, call, concat,
-- comparison) are caught and the counter keeps counting.
local n = 0
local mt = {
  __add = function() error("add", 0) end,
  __index = function() error("index", 0) end,
  __newindex = function() error("newindex", 0) end,
  __call = function() error("call", 0) end,
  __concat = function() error("concat", 0) end,
  __lt = function() error("lt", 0) end,
  __unm = function() error("unm", 0) end,
}
local v = setmetatable({}, mt)
local cases = {
  function() return v + 1 end,
  function() return v.x end,
  function() v.x = 1 end,
  function() return v() end,
  function() return v .. "s" end,
  function() return v < v end,
  function() return -v end,
}
for _, f in ipairs(cases) do
  local ok, err = pcall(f)
  n = n + 1
  print(ok, err)
end
print(n)
