-- An error value that is a table comes back as the same table, and the
-- counter still counts.
local n = 0
local e = {code = 7}
local function case(f) local ok, err = pcall(f); n = n + 1; return ok, err end
local ok, err = case(function() error(e) end)
print(ok, err == e, err.code)
ok, err = case(function() error(setmetatable({}, {__tostring = function() return "custom" end})) end)
print(ok, tostring(err))
ok, err = case(function() error() end)
print(ok, err)
ok, err = case(function() error(42) end)
print(ok, err, type(err))
print(n)
