-- Nested pcalls: each level's counter keeps its updates.
local outer, middle, inner = 0, 0, 0
for i = 1, 3 do
  pcall(function()
    pcall(function()
      pcall(function()
        inner = inner + 1
        error("inner")
      end)
      middle = middle + 1
      error("middle")
    end)
    outer = outer + 1
    if i == 2 then error("outer") end
  end)
end
print(outer, middle, inner)
print(pcall(pcall, error, "e"))
print(select("#", pcall(pcall, pcall, error, "x")), pcall(pcall, pcall, error, "x"))
