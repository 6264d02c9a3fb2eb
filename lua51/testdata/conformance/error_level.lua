-- error(msg, level) points at the right line; level 0 adds no position;
-- values other than strings get no position.
local function check(x)
  if not x then error("bad x", 2) end
  return x
end
local function caller()
  return check(false)
end
print(pcall(caller))
local function level1() error("one") end
print(pcall(level1))
print(pcall(function() error("zero", 0) end))
local function deeper() check(nil) end
local function outer()
  deeper()
end
print(pcall(outer))
local function three() error("three", 3) end
local function two() three() end
local function one()
  two()
end
print(pcall(one))
print(pcall(error, "direct"))
print(pcall(function() error(42) end))
