-- The handler receives the error value and its result is xpcall's second
-- result; on success xpcall returns every result.
print(xpcall(function() return 1, 2, 3 end, print))
print(xpcall(function() error("m", 0) end, function(m) return "<" .. m .. ">" end))
print(xpcall(function() error({k = "v"}) end, function(e) return e.k end))
print(xpcall(function() local x = 1 + nil end, function(m) return (string.gsub(m, "^.-:%d+: ", "")) end))
local ok, err = xpcall(error, function(m) return type(m) end)
print(ok, err)
