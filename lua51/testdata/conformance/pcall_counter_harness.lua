-- A test harness in the usual pass/fail style counts every case.
local pass, fail = 0, 0
local function check(name, f)
  local ok, err = pcall(f)
  if ok then pass = pass + 1 else fail = fail + 1 end
  return ok
end
check("a", function() assert(1 == 1) end)
check("b", function() assert(1 == 2, "one is not two") end)
check("c", function() local x = nil; return x.y end)
check("d", function() end)
check("e", function() error({}) end)
print(pass, fail)
