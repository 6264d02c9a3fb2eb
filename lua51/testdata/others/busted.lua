-- A small stand-in for busted (describe, it, before_each, after_each and
-- the assertions specs use most), so that a library's spec files run as
-- plain scripts under both interpreters; each test prints one line.
local path, befores, afters, failed, passed = {}, {}, {}, 0, 0
local function deep(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do if not deep(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
local function show(v) return type(v) == "string" and string.format("%q", v) or tostring(v) end
local function check(ok, msg) if not ok then error(msg, 3) end end
local A = {}
function A.equals(want, got) check(want == got, "expected " .. show(want) .. ", got " .. show(got)) end
A.equal, A.are_equal = A.equals, A.equals
function A.same(want, got) check(deep(want, got), "expected the same as " .. show(want) .. ", got " .. show(got)) end
A.are_same = A.same
function A.is_true(v) check(v == true, "expected true, got " .. show(v)) end
function A.is_false(v) check(v == false, "expected false, got " .. show(v)) end
function A.truthy(v) check(v, "expected truthy, got " .. show(v)) end
function A.falsy(v) check(not v, "expected falsy, got " .. show(v)) end
function A.is_nil(v) check(v == nil, "expected nil, got " .. show(v)) end
function A.not_nil(v) check(v ~= nil, "expected a value, got nil") end
function A.has_error(f, want)
  local ok, err = pcall(f)
  check(not ok, "expected an error")
  if want ~= nil then check(err == want or (type(err) == "string" and err:find(want, 1, true)), "expected error " .. show(want) .. ", got " .. show(err)) end
end
A.error, A.has_errors = A.has_error, A.has_error
function A.error_matches(f, pat)
  local ok, err = pcall(f)
  check(not ok and tostring(err):find(pat), "expected an error matching " .. show(pat) .. ", got " .. show(err))
end
A.is_not = {equals = function(a, b) check(a ~= b, "expected not " .. show(a)) end, same = function(a, b) check(not deep(a, b), "expected not the same") end}
A.are_not = A.is_not
_G.assert = setmetatable(A, {__call = function(_, v, msg, ...)
  if not v then error(msg or "assertion failed!", 2) end
  return v, msg, ...
end})
function _G.describe(name, fn)
  path[#path + 1] = name
  local nb, na = #befores, #afters
  fn()
  for i = #befores, nb + 1, -1 do befores[i] = nil end
  for i = #afters, na + 1, -1 do afters[i] = nil end
  path[#path] = nil
end
_G.context = describe
function _G.before_each(fn) befores[#befores + 1] = fn end
function _G.after_each(fn) afters[#afters + 1] = fn end
function _G.pending() end
function _G.it(name, fn)
  local full = table.concat(path, " ") .. " " .. name
  for _, b in ipairs(befores) do b() end
  local ok, err = pcall(fn)
  for _, a in ipairs(afters) do a() end
  if ok then passed = passed + 1; print("ok   " .. full)
  else failed = failed + 1; print("FAIL " .. full .. ": " .. tostring(err)) end
end
function _G.busted_summary() print(passed .. " passed, " .. failed .. " failed") end
