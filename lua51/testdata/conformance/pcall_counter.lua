-- The counter of gopher-lua issue 448: a caught error must not
-- close the upvalues of the frames below the pcall.
local n = 0
local function case(f) pcall(f); n = n + 1 end
case(function() end); case(function() error("x") end)
print(n)
