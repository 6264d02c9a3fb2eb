-- xpcall inside pcall: the handler's value comes back from xpcall, and the
-- counters below both keep their updates.
local n = 0
for i = 1, 3 do
  print(pcall(function()
    local ok, err = xpcall(function() error("inner " .. i, 0) end, function(m) n = n + 1; return m:upper() end)
    n = n + 1
    print(ok, err)
    if i == 3 then error("outer " .. i, 0) end
  end))
  n = n + 1
end
print(n)
