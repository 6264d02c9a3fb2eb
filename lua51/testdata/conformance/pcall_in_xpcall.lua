-- pcall inside xpcall: the inner error is caught by pcall, the outer one
-- goes to the handler; counters below both keep their updates.
local n = 0
local function handler(m) return "handled: " .. m end
for i = 1, 3 do
  print(xpcall(function()
    local ok, err = pcall(error, "inner " .. i, 0)
    n = n + 1
    print(ok, err)
    if i ~= 2 then error("outer " .. i, 0) end
    return "fine"
  end, handler))
  n = n + 1
end
print(n)
