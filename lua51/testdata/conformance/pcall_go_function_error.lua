-- Errors raised by Go (C) functions, argument errors among them, keep the
-- caller's upvalues open.
local n = 0
local function case(f, ...) pcall(f, ...); n = n + 1 end
case(string.rep)
case(math.floor, "x")
case(setmetatable, 1, {})
case(string.format, "%d", "y")
case(table.concat, {{}})
print(n)
local ok, err = pcall(string.rep)
print(ok, type(err))
