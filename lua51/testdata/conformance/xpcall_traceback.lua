-- xpcall with debug.traceback: the message, then "stack traceback:".
local function fail() error("boom") end
local ok, tb = xpcall(fail, debug.traceback)
print(ok)
local lines = {}
for line in string.gmatch(tb, "[^\n]+") do lines[#lines + 1] = line end
print(lines[1])
print(lines[2])
ok, tb = xpcall(function() local t = nil; return t.x end, debug.traceback)
print(ok, string.match(tb, "^[^\n]*"))
-- the handler runs before the failed frames are gone: the traceback names
-- the line of the function that raised the error
ok, tb = xpcall(fail, debug.traceback)
print(string.find(tb, "\n[^\n]*xpcall_traceback.lua:2:") ~= nil)
