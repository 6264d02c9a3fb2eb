-- An error in table.sort's comparator is caught; the counter keeps counting.
local n = 0
for i = 1, 3 do
  local ok, err = pcall(table.sort, {3, 1, 2, 5, 4}, function(a, b)
    if i ~= 2 then error("cmp " .. i, 0) end
    return a < b
  end)
  n = n + 1
  print(ok, err)
end
print(n)
local t = {5, 2, 8, 1}
table.sort(t, function(a, b) return a > b end)
print(table.concat(t, " "))
