-- Runtime errors name the field involved.
local t = {inner = {}}
print(pcall(function() t.missing() end))
print(pcall(function() return t.inner.missing.x end))
print(pcall(function() return t.inner.n + 1 end))
print(pcall(function() return t.inner.s .. "x" end))
print(pcall(function() string.nofunction("x") end))
