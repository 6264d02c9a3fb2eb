-- Tail calls: a protected function that tail-calls the failing one, pcall
-- itself in tail position, and deep tail recursion that ends in an error.
local n = 0
local function fail() error("tail", 0) end
local function tail() return fail() end
local function protected() return pcall(tail) end
for i = 1, 3 do
  print(protected())
  n = n + 1
end
print(n)
local function down(k) if k == 0 then error("bottom", 0) end return down(k - 1) end
print(pcall(down, 100000))
local function count(k, acc) if k == 0 then return acc end return count(k - 1, acc + 1) end
print(count(100000, 0))
