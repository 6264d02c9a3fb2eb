-- Unbounded recursion is a stack overflow that pcall catches; the state
-- works afterwards.
local function rec() return 1 + rec() end
local ok, err = pcall(rec)
print(ok, string.match(err, "stack overflow"))
local n = 0
for i = 1, 3 do pcall(rec); n = n + 1 end
print(n)
local function depth(k) if k == 0 then return 0 end return 1 + depth(k - 1) end
print(depth(5000))
