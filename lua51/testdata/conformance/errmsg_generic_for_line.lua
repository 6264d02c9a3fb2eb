-- A generic for whose iterator is not a function fails on the line where
-- the expressions after 'in' start.
print(pcall(function()
  for k, v in
    3
  do
    print(k)
  end
end))
print(pcall(function()
  for k in 4 do end
end))
local t = {}
print(pcall(function()
  for k, v in
    next, nil
  do end
end))
